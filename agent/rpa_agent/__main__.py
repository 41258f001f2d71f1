"""`python -m rpa_agent run|record ...` (the same as the `rpa-agent` command)."""

import sys

from rpa_agent.cli import main

sys.exit(main())
