"""The X11 agent passes `rpa-mcp agent-check` on a real (virtual) X11 desktop."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rpa_mcp.desktop_rig.harness import VirtualDisplay

from .conftest import require_desktop

pytestmark = pytest.mark.desktop


def test_the_x11_agent_passes_every_clause_of_agent_check(tmp_path: Path) -> None:
    require_desktop()
    with VirtualDisplay(tmp_path / "desk", width=1280, height=800) as desk:
        agent = (
            f"{sys.executable} -m rpa_agent run --url {{url}} --token-file {{token_file}} "
            f"--machine-id {{machine_id}} --display {desk.display} --journal {tmp_path / 'journal.sqlite'} "
            "--heartbeat-interval 1 --wait 2"
        )
        argv = [
            sys.executable, "-m", "rpa_mcp", "agent-check", "--url", "http://127.0.0.1:0", "--long-action-s", "3",
            "--pause-s", "0.5", "--timeout", "120", "--json", str(tmp_path / "report.json"), "--agent-cmd", agent,
        ]  # fmt: skip
        done = subprocess.run(argv, env=desk.env, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert [c["name"] for c in report["clauses"] if not c["passed"]] == []
