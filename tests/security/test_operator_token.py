"""The start-up operator token reaches a person's terminal, never a log (redirected output or stderr)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from rpa_mcp.auth.tokens import AccessTokens
from tests.conftest import SECRET

JWT = re.compile(rb"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
DEADLINE_S = 90


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RPA_")}
    env.update(RPA_DATA_DIR=str(tmp_path / "data"), RPA_JWT_SECRET=SECRET, RPA_PORT="0", RPA_WATCHDOG_ENABLED="false")
    return env


def _read_until(fd: int, marker: bytes) -> bytes:
    """Read `fd` until `marker` appears (the banner is complete), with a generous deadline."""
    out = b""
    deadline = time.monotonic() + DEADLINE_S
    while marker not in out:
        left = deadline - time.monotonic()
        assert left > 0, f"no {marker!r} within {DEADLINE_S} s: {out[-500:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, f"the server closed its output: {out[-500:]!r}"
            out += chunk
    return out


def _serve(tmp_path: Path, stdout: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "rpa_mcp", "serve"],
        env=_env(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
    )


def _stop(process: subprocess.Popen[bytes]) -> bytes:
    process.terminate()
    _, err = process.communicate(timeout=60)
    return err


def test_on_a_terminal_the_banner_carries_a_working_operator_token(tmp_path):
    master, slave = pty.openpty()
    process = _serve(tmp_path, slave)
    os.close(slave)
    try:
        banner = _read_until(master, b"--method tools/list")
    finally:
        err = _stop(process)
        os.close(master)
    tokens = set(JWT.findall(banner))
    assert len(tokens) == 1
    caller = AccessTokens([SECRET.encode()], issuer="rpa-mcp", audience="rpa-mcp").verify(tokens.pop().decode())
    assert caller is not None and "operator" in caller.roles
    assert not JWT.search(err)  # the log (stderr) never has it


def test_redirected_output_gets_no_token_and_says_how_to_mint_one(tmp_path):
    """A pipe, like a log file or a service manager's journal, is not a terminal."""
    process = _serve(tmp_path, subprocess.PIPE)
    try:
        assert process.stdout is not None
        banner = _read_until(process.stdout.fileno(), b"rpa-mcp token")
    finally:
        err = _stop(process)
    assert b"MCP endpoint" in banner
    assert not JWT.search(banner) and not JWT.search(err)
