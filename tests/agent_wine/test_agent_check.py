"""The Windows agent, in Windows' own Python under Wine, passes `rpa-mcp agent-check`."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent_wine.wine import WineDesktop, windows_path

pytestmark = pytest.mark.wine


def test_the_windows_agent_passes_every_clause_of_agent_check(package: Path, wine_desktop: WineDesktop) -> None:
    folder = wine_desktop.folder("agent-check")
    token_file = folder / "token.txt"
    token_file.write_text("agent-check-token-0123456789abcdef\n", encoding="utf-8")
    wine_desktop.setup.give(token_file)
    agent = wine_desktop.command([
        windows_path(package / "python.exe"), "-m", "rpa_agent", "run", "--url", "{url}",
        "--token-file", windows_path(token_file), "--machine-id", "{machine_id}",
        "--journal", windows_path(folder / "journal.sqlite"), "--heartbeat-interval", "1", "--wait", "2",
    ])  # fmt: skip
    # Wine's Python needs pipes for its standard handles (agent-check logs the agent to a file)
    agent_cmd = shlex.join(["sh", "-c", f"{shlex.join(agent)} </dev/null 2>&1 | cat"])
    report_file = folder / "report.json"
    argv = [
        sys.executable, "-m", "rpa_mcp", "agent-check", "--url", "http://127.0.0.1:0", "--long-action-s", "3",
        "--pause-s", "0.5", "--timeout", "180", "--token-file", str(token_file), "--json", str(report_file),
        "--agent-cmd", agent_cmd,
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(report_file.read_text("utf-8"))
    assert [c["name"] for c in report["clauses"] if not c["passed"]] == []
