from rpa_mcp.cli import main

raise SystemExit(main())
