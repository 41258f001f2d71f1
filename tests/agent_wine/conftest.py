"""The Wine tier: the agent's one-folder Windows package, run by Windows' own Python under Wine.

`.ci/run` prepares Wine with `.ci/wine-setup DIR` and names DIR in $RPA_TEST_WINE. Without it these
tests skip, except in CI (CI=true), where they fail: CI must provide Wine. One package is built per
session (the agent of this checkout, the cached wheels); one Wine desktop per test module.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent_wine.wine import WineDesktop, WineSetup

HERE = Path(__file__).resolve().parent


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
    shutil.copy(HERE / "winapp.py", out / "winapp.py")
    wine_setup.give(where)
    yield out
    shutil.rmtree(where, ignore_errors=True)


@pytest.fixture(scope="module")
def wine_desktop(wine_setup: WineSetup) -> Iterator[WineDesktop]:
    with WineDesktop(wine_setup) as desk:
        yield desk
    shutil.rmtree(desk.run_dir, ignore_errors=True)
