"""docs/getting-started.md's first observation and first replay, run exactly as written.

The commands of the section run in a shell in an empty folder (the server on a free port instead
of 8765), the script is saved as the page says, and the approver's part — sign in to the console
with `console.token`, press Approve — goes through the console's own forms.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rpa_mcp.desktop_rig.rig import approve_in_console

pytestmark = pytest.mark.slow
DOC = Path(__file__).resolve().parents[2] / "docs" / "getting-started.md"
SECTION = "## A first observation and a first replay"
DEADLINE_S = 120


def _blocks() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return re.findall(r"```(bash|python)\n(.*?)```", text[start : end if end > 0 else None], re.S)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RPA_", "MCP_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # rpa-mcp and python
    env["RPA_PORT"] = "0"  # a free port; the commands below are given the one it took
    return env


def _read_until(process: subprocess.Popen[str], pattern: str, seen: list[str]) -> re.Match[str]:
    assert process.stdout is not None
    deadline = time.monotonic() + DEADLINE_S
    while True:
        for line in seen:
            if found := re.search(pattern, line):
                return found
        left = deadline - time.monotonic()
        assert left > 0 and process.poll() is None, f"no {pattern!r}: {''.join(seen)[-2000:]}"
        ready, _, _ = select.select([process.stdout], [], [], left)
        if ready:
            line = process.stdout.readline()
            assert line, f"the output ended before {pattern!r}: {''.join(seen)[-2000:]}"
            seen.append(line)


def _start(command: str, cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def test_the_first_replay_walkthrough_runs_as_written(tmp_path):
    blocks = _blocks()
    assert [kind for kind, _ in blocks] == ["bash", "bash", "python", "bash"], "the section's code blocks changed"
    (_, serve), (_, agent), (_, script), (_, client) = blocks
    env = _env()
    started = time.monotonic()
    processes: list[subprocess.Popen[str]] = []
    out: list[str] = []
    try:
        server = _start(serve.strip(), tmp_path, env)
        processes.append(server)
        base = _read_until(server, r"MCP endpoint: (http://127\.0\.0\.1:\d+)/mcp", [])[1]

        def here(text: str) -> str:
            return text.replace("http://127.0.0.1:8765", base)

        *tokens, agent_command = [line for line in here(agent).splitlines() if line.strip()]
        for command in tokens:
            subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, check=True, capture_output=True)
        assert {f.name for f in tmp_path.glob("*.token")} == {"agent.token", "operator.token", "console.token"}
        assert all(f.stat().st_mode & 0o077 == 0 for f in tmp_path.glob("*.token"))
        agent_sim = _start(agent_command, tmp_path, env)
        processes.append(agent_sim)
        _read_until(agent_sim, r"demonstration streamed: \d+ events", [])  # what the page says to wait for

        (tmp_path / "first_replay.py").write_text(here(script), encoding="utf-8")
        run = _start(here(client).strip(), tmp_path, env)
        processes.append(run)
        approval_url = _read_until(run, r"approve it here: (\S+)", out)[1]
        assert approval_url.startswith(f"{base}/console/approvals/")
        console_credential = (tmp_path / "console.token").read_text(encoding="utf-8").strip()
        approve_in_console(base, console_credential, approval_url)
        _read_until(run, r"^outcome: ", out)
        assert run.wait(timeout=DEADLINE_S) == 0, "".join(out)
    finally:
        for process in reversed(processes):
            process.terminate()
            process.communicate(timeout=60)
    text = "".join(out)
    assert re.findall(r"^step \d+: ", text, re.M), text
    assert "outcome: completed - Every step was done and its outcome seen." in text, text
    assert re.search(r"^replay completed: (\d+)/\1$", text, re.M), text
    print(f"first replay, from an empty folder: {time.monotonic() - started:.1f} s")
