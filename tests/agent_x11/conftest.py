"""A real X11 desktop for these tests: Xvfb, openbox, D-Bus with accessibility, the demo app.

One desktop per test module (starting Xvfb and Chromium costs seconds); each test opens its own
Chromium window on a fresh profile. When a test fails, its artifacts are saved under
`$RPA_TEST_ARTIFACTS/desktop/<test>/` (default `test-artifacts/`; `.ci/run` keeps it beside the
checkout): the screen at the failure (`screen.png`), the desktop's and the agent's logs, and for
each replay the test drove its status (`<replay>/status.json`), the last screenshot the agent sent
(`<replay>/last-screenshot.png`) and every action's evidence crops (`<replay>/<step>-<label>.png`).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from rpa_mcp.desktop_rig.harness import ServerThread, VirtualDisplay, missing_tools

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("RPA_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "desktop"


def require_packages(what: str, missing: Sequence[str]) -> None:
    """Fail (in CI, which must provide them) or skip (elsewhere) when `what` lacks Debian packages."""
    if not missing:
        return
    reason = f"{what} needs Debian packages {', '.join(missing)} (apt-get install -y {' '.join(missing)})"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must provide them")
    pytest.skip(reason)


def require_desktop() -> None:
    require_packages("a real desktop", missing_tools())


class DesktopEnv:
    """The shared desktop and demo application of a test module."""

    def __init__(self, desk: VirtualDisplay, app: ServerThread, effects: Any) -> None:
        self.desk, self.app, self.effects = desk, app, effects
        self.cleanup: list[Any] = []  # browsers and agents of the running test, stopped after its artifacts

    def browser(self, path: str = "", *, wait_title: str | None = None, **kw: Any) -> Any:
        browser = self.desk.chromium(f"{self.app.url}{path}", wait_title=wait_title, **kw)
        self.cleanup.append(browser.process.terminate)
        return browser

    def agent(self, args: list[str]) -> Any:
        from rpa_mcp.desktop_rig.harness import AgentProcess

        process = AgentProcess(self.desk, args)
        self.cleanup.append(process.stop)
        return process

    @property
    def display(self) -> str:
        return self.desk.display


@pytest.fixture(scope="module")
def desktop_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DesktopEnv]:
    require_desktop()
    from rpa_mcp.demo_app import EffectsLog, create_demo_app

    workdir = tmp_path_factory.mktemp("desktop")
    effects = EffectsLog(workdir / "effects.jsonl")
    with VirtualDisplay(workdir) as desk, ServerThread(create_demo_app(effects)) as app:
        yield DesktopEnv(desk, app, effects)


def artifacts_of(item: pytest.Item) -> Path:
    """The folder of a failed test's artifacts (screens, logs, replay evidence)."""
    return ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", item.nodeid)[-150:]


def failed(item: pytest.Item) -> bool:
    report = getattr(item, "rep_call", None)
    return bool(report is not None and report.failed)


def save_replays(server: Any, folder: Path) -> None:
    """Each replay's status, the agent's last screenshot and every action's evidence crops, as files."""
    store = server.services.replay.store
    for summary in store.list_replays(limit=50):
        where = folder / re.sub(r"[^A-Za-z0-9_.-]+", "_", summary.replay_id)
        where.mkdir(parents=True, exist_ok=True)
        status = server.services.replay.status(summary.replay_id, with_crops=False)
        (where / "status.json").write_text(json.dumps(status, ensure_ascii=False, indent=1, default=str), "utf-8")
        replay = store.get_replay(summary.replay_id)
        if replay is not None and replay.last_screenshot:
            (where / "last-screenshot.png").write_bytes(replay.last_screenshot)
        for action in store.actions(summary.replay_id):
            for n, crop in enumerate(action.evidence or []):
                if crop.get("data_base64"):
                    label = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(crop.get("label") or "evidence"))[:60]
                    name = f"{action.step_index:02d}-{n}-{label}.png"
                    (where / name).write_bytes(base64.b64decode(crop["data_base64"]))


@pytest.fixture
def desktop(request: pytest.FixtureRequest, desktop_env: DesktopEnv) -> Iterator[DesktopEnv]:
    """The module's desktop; on failure its screen and logs are kept as artifacts."""
    yield desktop_env
    if failed(request.node):
        folder = artifacts_of(request.node)
        folder.mkdir(parents=True, exist_ok=True)
        try:
            desktop_env.desk.screenshot(folder / "screen.png")
        except Exception as exc:  # the display itself may be what failed
            (folder / "screen-error.txt").write_text(repr(exc), encoding="utf-8")
        workdir = desktop_env.desk.workdir
        for log in workdir.glob("*.log") if workdir else []:
            shutil.copy(log, folder / log.name)
        for process in desktop_env.cleanup:
            lines = getattr(getattr(process, "__self__", None), "lines", None)
            if lines:
                with (folder / "rpa-agent.log").open("a", encoding="utf-8") as fh:
                    fh.write("\n".join(lines) + "\n")
    for stop in reversed(desktop_env.cleanup):
        stop()
    desktop_env.cleanup.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    report = yield
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]  # read by the fixtures' teardown
        if report.failed:  # this failure's artifacts only, not an earlier run's
            shutil.rmtree(artifacts_of(item), ignore_errors=True)
    return report


AGENT_TOKEN = "desktop-agent-token-0123456789abcdef"
JWT_SECRET = "desktop-test-secret-key-long-enough-0123456789"


class RpaServer:
    """The real server (create_app under uvicorn, real clock) on a free loopback port."""

    def __init__(self, settings: Any, services: Any, server: ServerThread) -> None:
        self.settings, self.services, self.server = settings, services, server
        self.url = server.url

    def token(self, subject: str, *roles: str) -> str:
        return str(self.services.access_tokens.mint(subject, list(roles), ttl_s=3600))

    def console_credential(self, subject: str, *roles: str) -> str:
        return self.services.console_credentials.mint(subject, list(roles), ttl_s=3600)


@pytest.fixture
def make_rpa_server(request: pytest.FixtureRequest, tmp_path: Path, shared_ocr: Any) -> Iterator[Any]:
    """make_rpa_server(**settings) -> RpaServer (a watchdog scanning each second, leases of 60 s by default)."""
    from rpa_mcp.bootstrap import build_services
    from rpa_mcp.entrypoints.app import create_app
    from rpa_mcp.settings import Settings

    started: list[RpaServer] = []

    def make(**overrides: Any) -> RpaServer:
        fields: dict[str, Any] = {
            "data_dir": tmp_path / f"rpa-data-{len(started)}",
            "jwt_secret": JWT_SECRET,
            "api_token": AGENT_TOKEN,
            "watchdog_orphan_timeout_s": 60.0,
            "watchdog_scan_interval_s": 1.0,
        }
        settings = Settings(**(fields | overrides))
        services = build_services(settings, ocr=shared_ocr)
        server = RpaServer(settings, services, ServerThread(create_app(settings, services=services)).start())
        started.append(server)
        return server

    yield make
    for n, server in enumerate(started):
        if failed(request.node):
            save_replays(server, artifacts_of(request.node) / (f"server-{n}" if n else "server"))
    for server in reversed(started):
        server.server.stop()


@pytest.fixture
def rpa_server(make_rpa_server: Any) -> RpaServer:
    server: RpaServer = make_rpa_server()
    return server
