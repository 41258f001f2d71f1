"""`rpa-mcp agent-check` over real HTTP: it starts the agent under test and exits 0 only when every clause passed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rpa_mcp.agent_check.cli import EXIT_NO_AGENT, main

ROOT = Path(__file__).resolve().parents[2]


def agent_check(tmp_path: Path, agent_cmd: str) -> subprocess.CompletedProcess[str]:
    argv = [
        sys.executable, "-m", "rpa_mcp", "agent-check", "--url", "http://127.0.0.1:0",
        "--long-action-s", "1.0", "--pause-s", "0.2", "--timeout", "60", "--connect-timeout", "60",
        "--json", str(tmp_path / "report.json"), "--agent-cmd", agent_cmd,
    ]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False)


@pytest.mark.slow
def test_the_reference_agent_process_passes_over_real_http(tmp_path: Path) -> None:
    agent = (
        f"{sys.executable} -m rpa_mcp agent-sim --url {{url}} --token-file {{token_file}} "
        f"--machine-id {{machine_id}} --journal {tmp_path / 'journal.sqlite'} --heartbeat-interval 0.3 --wait 2"
    )
    done = agent_check(tmp_path, agent)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["passed"] and len(report["clauses"]) == 20
    assert "20 clauses: 20 passed, 0 failed" in done.stdout


@pytest.mark.slow
def test_an_agent_that_ignores_the_token_fails_with_status_1(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong-token"
    wrong.write_text("not-the-check-token\n")
    wrong.chmod(0o600)
    agent = (
        f"{sys.executable} -m rpa_mcp agent-sim --url {{url}} --token-file {wrong} "
        f"--machine-id {{machine_id}} --journal {tmp_path / 'journal.sqlite'} --wait 2"
    )
    done = agent_check(tmp_path, agent)
    assert done.returncode == EXIT_NO_AGENT, done.stdout + done.stderr
    assert "FAILED  bearer-token" in done.stdout


def test_a_url_that_is_not_plain_http_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "https://127.0.0.1:8799"]) == 2
    assert "--url must be http://HOST:PORT" in capsys.readouterr().err
