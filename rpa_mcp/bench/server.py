"""A real server in a child process, on a loopback socket it inherits; its memory read from /proc.

Used by the hardening benchmark and by the abuse tests that must observe a server from the
outside (a stalled event loop, the resident memory): the parent binds 127.0.0.1 on a free
port and listens before the child starts, so the first request simply waits in the backlog
until the child serves it (no polling for readiness), and no other process can take the port.

    with server_process(tmp_path, RPA_FRAME_CACHE_BYTES="67108864") as server:
        token = server.token("operator")
        httpx2.get(f"{server.base}/healthz")
        server.rss_bytes()
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rpa_mcp.testing import loopback_socket

AGENT_TOKEN_CHARS = 32


@dataclass
class ServerProcess:
    base: str
    process: subprocess.Popen[bytes]
    secret: str
    agent_token: str
    log_path: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def pid(self) -> int:
        return self.process.pid

    def token(self, *roles: str, subject: str = "bench", machines: list[str] | None = None) -> str:
        from rpa_mcp.auth.tokens import AccessTokens

        tokens = AccessTokens([self.secret.encode()], issuer="rpa-mcp", audience="rpa-mcp")
        return tokens.mint(subject, list(roles), ttl_s=3600, machines=machines)

    def _status(self, key: str) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
        raise RuntimeError(f"{key} not in /proc/{self.pid}/status")

    def rss_bytes(self) -> int:
        """Resident memory now."""
        return self._status("VmRSS")

    def peak_rss_bytes(self) -> int:
        """Highest resident memory since the child started."""
        return self._status("VmHWM")

    def reset_peak(self) -> None:
        """Start a new peak measurement (Linux: writing 5 to clear_refs resets VmHWM to the current RSS)."""
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _soft_open_files(limit: int) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


@contextlib.contextmanager
def server_process(
    data_dir: Path,
    *,
    http: str = "guarded",
    open_files: int | None = None,
    env: dict[str, str] | None = None,
    **more: str,
) -> Iterator[ServerProcess]:
    """`rpa_mcp` served as `rpa-mcp serve` does in a child process; `env` and `more` hold extra RPA_* settings.

    `http`: "guarded" (as `rpa-mcp serve`), or uvicorn without the connection guard: "plain" (its
    defaults), "options" (its own limits: limit_concurrency, timeout_keep_alive). `open_files`: the
    child's soft open-file limit at start (a system service's usual 1024, say).
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    sock = loopback_socket()
    sock.listen(512)
    secret = secrets.token_urlsafe(48)
    agent_token = secrets.token_urlsafe(AGENT_TOKEN_CHARS)
    child_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("RPA_")},
        "RPA_DATA_DIR": str(data_dir),
        "RPA_JWT_SECRET": secret,
        "RPA_API_TOKEN": agent_token,
        "RPA_WATCHDOG_ENABLED": "false",
        **(env or {}),
        **more,
    }
    log_path = data_dir / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "rpa_mcp.bench.server", str(sock.fileno()), http],
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=(sock.fileno(),),
            preexec_fn=None if open_files is None else functools.partial(_soft_open_files, open_files),
        )
    port = sock.getsockname()[1]
    sock.close()  # the child holds its own copy
    server = ServerProcess(f"http://127.0.0.1:{port}", process, secret, agent_token, log_path, child_env)
    try:
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def main(argv: list[str]) -> int:
    """Child side: serve the app built from the environment on the inherited socket."""
    import logging
    import math
    import socket

    import uvicorn

    from rpa_mcp.bootstrap import build_services
    from rpa_mcp.entrypoints.app import create_app, freeze_startup_heap
    from rpa_mcp.entrypoints.http_server import HttpLimits, serve
    from rpa_mcp.settings import Settings

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sock = socket.socket(fileno=int(argv[0]))
    settings = Settings()
    app = create_app(settings, services=build_services(settings))
    http = argv[1] if len(argv) > 1 else "guarded"
    if http == "plain":
        uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])
    elif http == "options":  # uvicorn's own limits, set as the guard's caps and idle deadline
        limits = HttpLimits.from_settings(settings)
        config = uvicorn.Config(
            app,
            log_level="warning",
            lifespan="on",
            limit_concurrency=limits.max_connections,
            timeout_keep_alive=math.ceil(limits.idle_timeout_s),
            h11_max_incomplete_event_size=16 * 1024,
        )
        uvicorn.Server(config).run(sockets=[sock])
    else:
        freeze_startup_heap()  # as `rpa-mcp serve`
        serve(app, sock, settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
