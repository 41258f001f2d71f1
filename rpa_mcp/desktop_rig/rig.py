"""A whole real-desktop setup in one object, for `rpa-mcp bench desktop` and `rpa-mcp demo --desktop`.

Xvfb + openbox + Chromium, the demo application, the RPA server (create_app under uvicorn on a
free loopback port, real clock) and `rpa-agent` running in this process, so that its phase
timings can be read. The recorder runs as its own process, as on a workstation.

    with Rig(workdir) as rig:
        rig.browser("/", wait_title="Recherche patient")
        agent = rig.start_agent()
        tools = rig.tools("nurse-alice")
        replay_id = tools.propose_apply("start_replay", competence="...", machine_id=rig.machine_id)["replay_id"]
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from rpa_mcp.desktop_rig.harness import AgentProcess, Browser, ServerThread, VirtualDisplay, wait_until

MACHINE = "poste-x11-01"
STOPPED = ("paused", "completed", "failed", "cancelled")


class ReplayLog(logging.Handler):
    """Keeps the replay engine's structured log lines (one JSON object each) with their epoch time."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[tuple[float, str]] = []
        self._lock_lines = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._lock_lines:
            self.lines.append((record.created, record.getMessage()))


def approve_in_console(url: str, credential: str, approval_url: str) -> None:
    """A second person signs in to the console with their own console credential and approves, CSRF and all."""
    jti = approval_url.rstrip("/").rsplit("/", 1)[-1]
    origin = {"origin": url}
    with httpx2.Client(base_url=url, timeout=60, follow_redirects=False) as page:
        login = page.get("/console/login")
        nonce = re.search(r'name="login_csrf" value="([^"]+)"', login.text)
        if nonce is None:
            raise RuntimeError(f"the console's sign-in page has no login_csrf field (HTTP {login.status_code})")
        signed = page.post(
            "/console/login",
            data={"token": credential, "login_csrf": nonce[1], "next": f"/console/approvals/{jti}"},
            headers=origin,
        )
        if signed.status_code not in (200, 303):
            raise RuntimeError(f"console sign-in refused: HTTP {signed.status_code}")
        view = page.get(f"/console/approvals/{jti}")
        csrf = re.search(
            r'action="/console/approvals/[^"]+/approve"[^>]*><input type="hidden" name="csrf" value="([^"]+)"',
            view.text,
        )
        if csrf is None:
            raise RuntimeError(f"the approval view of {jti} offers no approve form (HTTP {view.status_code})")
        decided = page.post(f"/console/approvals/{jti}/approve", data={"csrf": csrf[1]}, headers=origin)
        if decided.status_code not in (200, 303):
            raise RuntimeError(f"approval refused: HTTP {decided.status_code}")


class Tools:
    """The REST tools surface (`/api/v1/tools/<name>`) with one person's token."""

    def __init__(self, rig: Rig, subject: str, *roles: str) -> None:
        self.rig = rig
        token = rig.token(subject, *(roles or ("operator",)))
        self.http = httpx2.Client(base_url=rig.url, headers={"Authorization": f"Bearer {token}"}, timeout=120)

    def close(self) -> None:
        self.http.close()

    def call(self, tool: str, /, **args: Any) -> dict[str, Any]:
        answer = self.http.post(f"/api/v1/tools/{tool}", json=args)
        body: dict[str, Any] = answer.json()
        if answer.status_code >= 400:
            raise RuntimeError(f"{tool}: HTTP {answer.status_code} {body.get('code')}: {body.get('detail')}")
        return body

    def propose_apply(self, operation: str, /, **args: Any) -> dict[str, Any]:
        proposal = self.call(f"propose_{operation}", **args)
        if proposal.get("approval_mode") == "human":
            approve_in_console(
                self.rig.url, self.rig.console_credential("dr-martin", "approver"), str(proposal["approval_url"])
            )
        return self.call(f"apply_{operation}", token=proposal["token"])

    def wait_stopped(self, replay_id: str, *, timeout: float = 300.0) -> dict[str, Any]:
        holder: dict[str, Any] = {}

        def stopped() -> bool:
            holder["status"] = self.call("get_replay_status", replay_id=replay_id)
            return holder["status"].get("state") in STOPPED

        wait_until(stopped, timeout=timeout, what=f"replay {replay_id} to stop", interval=0.2)
        status: dict[str, Any] = holder["status"]
        return status


@dataclass
class RunningAgent:
    agent: Any  # rpa_agent.core.agent.Agent over the X11 backend
    thread: threading.Thread
    stop_event: threading.Event
    lines: list[str] = field(default_factory=list)

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(60)
        self.agent.close()
        self.agent.desktop.close()
        self.agent.journal.close()


class Rig:
    def __init__(
        self,
        workdir: Path,
        *,
        approval: str = "write=token,act=token,dangerous=token",
        log_to_console: bool = True,
        **settings: Any,
    ) -> None:
        """`log_to_console=False` keeps the replay engine's log lines in `self.log` only."""
        self.workdir = workdir
        self.log_to_console = log_to_console
        self.machine_id = MACHINE
        self.approval = approval
        self.settings_overrides = settings
        self.log = ReplayLog()
        self._stops: list[Callable[[], Any]] = []

    # --- lifecycle ------------------------------------------------------------------------------------
    def __enter__(self) -> Rig:
        from rpa_mcp.bootstrap import build_services, prepare_ocr
        from rpa_mcp.demo_app import EffectsLog, create_demo_app
        from rpa_mcp.entrypoints.app import create_app
        from rpa_mcp.settings import Settings

        try:
            self.desk = VirtualDisplay(self.workdir / "desk").start()
            self._stops.append(self.desk.stop)
            self.effects = EffectsLog(self.workdir / "effects.jsonl")
            self.app = ServerThread(create_demo_app(self.effects)).start()
            self._stops.append(self.app.stop)
            self.api_token = secrets.token_urlsafe(24)
            fields: dict[str, Any] = {
                "data_dir": self.workdir / "rpa-data",
                "jwt_secret": secrets.token_urlsafe(48),
                "api_token": self.api_token,
                "approval": self.approval,
                "watchdog_orphan_timeout_s": 60.0,
                "watchdog_scan_interval_s": 1.0,
            }
            self.settings = Settings(**(fields | self.settings_overrides))
            self.services = build_services(self.settings)
            prepare_ocr(self.services)  # as `rpa-mcp serve` does: the models load while the desk starts
            self.server = ServerThread(create_app(self.settings, services=self.services)).start()
            self._stops.append(self.server.stop)
            self.url = self.server.url
            replay_logger = logging.getLogger("rpa_mcp.replay")
            level, propagate = replay_logger.level, replay_logger.propagate
            replay_logger.addHandler(self.log)
            replay_logger.setLevel(logging.INFO)
            replay_logger.propagate = self.log_to_console and propagate

            def restore() -> None:
                replay_logger.removeHandler(self.log)
                replay_logger.setLevel(level)
                replay_logger.propagate = propagate

            self._stops.append(restore)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        while self._stops:
            stop = self._stops.pop()
            try:
                stop()
            except Exception:  # keep stopping the rest; the desktop goes last
                logging.getLogger(__name__).exception("rig_stop_failed")

    # --- people, windows, agents -------------------------------------------------------------------
    def token(self, subject: str, *roles: str) -> str:
        """An access token (for /mcp and /api/v1)."""
        return str(self.services.access_tokens.mint(subject, list(roles), ttl_s=3600))

    def console_credential(self, subject: str, *roles: str) -> str:
        """A person's credential for the console's sign-in."""
        return self.services.console_credentials.mint(subject, list(roles), ttl_s=3600)

    def tools(self, subject: str = "nurse-alice", *roles: str) -> Tools:
        tools = Tools(self, subject, *roles)
        self._stops.append(tools.close)
        return tools

    def browser(self, path: str = "/", *, wait_title: str | None = None) -> Browser:
        browser = self.desk.chromium(f"{self.app.url}{path}", wait_title=wait_title)

        def close() -> None:
            browser.process.terminate()
            browser.process.wait(30)

        self._stops.append(close)
        return browser

    def close_browser(self, browser: Browser) -> None:
        """Quit a browser and wait until its window is gone from the desktop."""
        browser.process.terminate()
        browser.process.wait(30)
        wait_until(
            lambda: browser.wid not in self.desk.windows().client_list(), timeout=30, what="the browser to close"
        )

    def recorder(self, session_id: str) -> AgentProcess:
        # `--token=T`: a random token may begin with "-", which would read as another option
        args = ["record", "--url", self.url, f"--token={self.api_token}", "--machine-id", self.machine_id]
        process = AgentProcess(self.desk, [*args, "--session-id", session_id])
        self._stops.append(process.stop)
        return process

    def start_agent(self, *, poll_wait_s: float = 5.0) -> RunningAgent:
        """The workstation agent (X11 backend) in a thread of this process (its `timings` readable), journaled
        under the workdir."""
        from rpa_agent.core.agent import Agent
        from rpa_agent.core.http import Http
        from rpa_agent.core.journal import Journal
        from rpa_agent.x11.desktop import X11Desktop

        lines: list[str] = []
        journal = Journal(self.workdir / f"journal-{secrets.token_hex(3)}.sqlite")
        # the desktop's own accessibility bus, as a workstation agent in the person's session has it
        desktop = X11Desktop.open(self.desk.display, session_bus=self.desk.env.get("DBUS_SESSION_BUS_ADDRESS"))
        desktop.watch.start()
        agent = Agent(
            desktop=desktop,
            http=Http(self.url, headers={"Authorization": f"Bearer {self.api_token}"}),
            machine_id=self.machine_id,
            journal=journal,
            say=lines.append,
            poll_wait_s=poll_wait_s,
        )
        stop = threading.Event()
        thread = threading.Thread(target=agent.run, args=(stop,), name="rpa-agent", daemon=True)
        running = RunningAgent(agent, thread, stop, lines)
        thread.start()
        self._stops.append(running.stop)
        deadline = time.monotonic() + 30.0  # its first poll reached the server: a replay may be proposed
        while not any("polling for actions" in line for line in lines) and time.monotonic() < deadline:
            time.sleep(0.05)
        return running
