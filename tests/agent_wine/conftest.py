"""The Wine tier: the agent's one-folder Windows package, run by Windows' own Python under Wine.

`.ci/run` prepares Wine with `.ci/wine-setup DIR` and names DIR in $RPA_TEST_WINE. Without it these
tests skip, except in CI (CI=true), where they fail: CI must provide Wine. One package is built per
session (the agent of this checkout, the cached wheels); one Wine desktop per test module.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agent_wine.wine import WineDesktop, WineProcess, WineSetup, read_log, wait_until, windows_path

# The real server of the X11 tier (create_app under uvicorn on a loopback port), shared as fixtures.
from tests.agent_x11.conftest import make_rpa_server, rpa_server  # noqa: F401  # fixtures, re-exported

HERE = Path(__file__).resolve().parent
MACHINE = "poste-wine-01"


def require_wine() -> WineSetup:
    setup = WineSetup.from_environment()
    reason = "the Wine tier needs $RPA_TEST_WINE: run `.ci/wine-setup DIR` and export RPA_TEST_WINE=DIR"
    if setup is not None:
        reason = setup.missing() or ""
    if setup is not None and not reason:
        return setup
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must provide it")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def wine_setup() -> WineSetup:
    return require_wine()


@pytest.fixture(scope="session")
def package(wine_setup: WineSetup) -> Iterator[Path]:
    """The one-folder Windows package of this checkout's agent, readable by the Wine user."""
    from rpa_agent.build_windows import Cache, build

    runs = wine_setup.root / "runs"
    runs.mkdir(exist_ok=True)
    where = Path(tempfile.mkdtemp(prefix="package-", dir=runs))
    out = where / "rpa-agent"
    build(out, Cache(wine_setup.cache), url="http://127.0.0.1:9")
    for helper in ("winapp.py", "drive.py"):  # the test application and the backend's step driver
        shutil.copy(HERE / helper, out / helper)
    wine_setup.give(where)
    yield out
    shutil.rmtree(where, ignore_errors=True)


@pytest.fixture(scope="module")
def wine_desktop(wine_setup: WineSetup) -> Iterator[WineDesktop]:
    with WineDesktop(wine_setup) as desk:
        yield desk
    shutil.rmtree(desk.run_dir, ignore_errors=True)


class WinApp:
    """The Win32 test application (winapp.py) running in Wine; `events` reads what it logged."""

    def __init__(self, desk: WineDesktop, package: Path, title: str = "Fiche patient — essai") -> None:
        self.log = desk.folder("app") / f"effects-{len(desk.started)}.jsonl"
        argv = [
            windows_path(package / "python.exe"),
            windows_path(package / "winapp.py"),
            windows_path(self.log),
            title,
        ]
        self.process: WineProcess = desk.start(argv)
        self.ready = wait_until(
            lambda: next((e for e in self.events() if e["event"] == "ready"), None), timeout=60, what="the test app"
        )

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [e for e in read_log(self.log) if kind is None or e["event"] == kind]

    def centre(self, control: str) -> dict[str, int]:
        x, y, w, h = self.ready["controls"][control]
        return {"x": x + w // 2, "y": y + h // 2}


@pytest.fixture
def winapp(wine_desktop: WineDesktop, package: Path) -> Iterator[WinApp]:
    app = WinApp(wine_desktop, package)
    yield app
    app.process.stop()


@pytest.fixture
def drive(wine_desktop: WineDesktop, package: Path) -> Callable[[list[dict[str, Any]]], list[Any]]:
    """drive(steps) -> each step's value: the agent's Windows backend run by drive.py in Wine."""
    count = [0]

    def run(steps: list[dict[str, Any]]) -> list[Any]:
        count[0] += 1
        path = wine_desktop.folder("drive") / f"steps-{count[0]}.json"
        path.write_text(json.dumps(steps), encoding="utf-8")
        ran = wine_desktop.run(
            [windows_path(package / "python.exe"), windows_path(package / "drive.py"), windows_path(path)]
        )
        results = [json.loads(line.removeprefix("RESULT ")) for line in ran.lines if line.startswith("RESULT ")]
        assert ran.proc.returncode == 0 and len(results) == len(steps), ran.lines[-20:]
        return [r["value"] for r in results]

    return run


class WineAgent:
    """`rpa-agent run|record` in the package's python.exe under Wine, configured by an agent.ini and a
    token file as a hospital installs it (the token minted for this machine only)."""

    def __init__(self, desk: WineDesktop, package: Path, server: Any, command: str = "run", *extra: str) -> None:
        folder = desk.folder(f"agent-{len(desk.started)}")
        token = server.services.access_tokens.mint(MACHINE, ["agent"], ttl_s=3600, machines=[MACHINE])
        (folder / "token.txt").write_text(f"{token}\n", encoding="utf-8")
        (folder / "agent.ini").write_text(
            f'url = "{server.url}"\nmachine_id = "{MACHINE}"\ntoken_file = "token.txt"\ndata_dir = "data"\n',
            encoding="utf-8",
        )
        desk.setup.give(folder)
        argv = [windows_path(package / "python.exe"), "-m", "rpa_agent", command]
        self.process = desk.start([*argv, "--config", windows_path(folder / "agent.ini"), *extra])

    def stop(self) -> None:
        self.process.stop()


@pytest.fixture
def wine_agent(wine_desktop: WineDesktop, package: Path) -> Iterator[Callable[..., WineAgent]]:
    started: list[WineAgent] = []

    def start(server: Any, command: str = "run", *extra: str) -> WineAgent:
        agent = WineAgent(wine_desktop, package, server, command, *extra)
        started.append(agent)
        return agent

    yield start
    for agent in reversed(started):
        agent.stop()
