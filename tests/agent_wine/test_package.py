"""The one-folder Windows package, as built by `rpa_agent.build_windows`, smoke-tested in Wine."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from rpa_agent import __version__
from rpa_agent.build_windows import Cache, build, wheel_modules
from rpa_agent.config import FILE_KEYS

from tests.agent_wine.wine import WineDesktop, WineSetup, windows_path

pytestmark = pytest.mark.wine


def test_the_package_holds_python_the_agent_its_libraries_and_a_start_script(
    wine_setup: WineSetup, tmp_path: Path
) -> None:
    package = tmp_path / "rpa-agent"  # a fresh build: the session's package has run (and cached bytecode)
    build(package, Cache(wine_setup.cache))
    assert (package / "python.exe").is_file() and (package / "python311.dll").is_file()
    assert "import site" in (package / "python311._pth").read_text("utf-8").splitlines()
    site = package / "Lib" / "site-packages"
    assert (site / "rpa_agent" / "windows" / "__init__.py").is_file()
    assert not list(site.rglob("__pycache__"))
    assert not (site / "rpa_agent" / "build_windows.py").exists()  # the build tool stays behind
    start = (package / "start-agent.cmd").read_bytes()
    assert b"\r\n" in start and b'python.exe" -m rpa_agent run --config "%~dp0agent.ini"' in start
    config = tomllib.loads((package / "agent.ini").read_text("utf-8"))
    assert set(config) <= set(FILE_KEYS) and {"url", "machine_id", "token_file"} <= set(config)
    assert __version__ in (package / "README.txt").read_text("utf-8")


def test_every_library_imports_in_windows_python_and_pip_finds_nothing_missing(
    package: Path, wine_setup: WineSetup, wine_desktop: WineDesktop
) -> None:
    modules = ", ".join([*wheel_modules(Cache(wine_setup.cache)), "rpa_agent.windows", "rpa_agent.core.wire"])
    ran = wine_desktop.run([windows_path(package / "python.exe"), "-c", f"import {modules}; print('imported')"])
    assert (ran.proc.returncode, ran.lines[-1:]) == (0, ["imported"]), ran.lines
    pip = Cache(wine_setup.cache).pip_wheel()
    ran = wine_desktop.run([windows_path(package / "python.exe"), windows_path(pip / "pip"), "check"])
    assert ran.proc.returncode == 0, ran.lines


def test_the_agent_says_its_version_in_windows_python(package: Path, wine_desktop: WineDesktop) -> None:
    ran = wine_desktop.run([windows_path(package / "python.exe"), "-m", "rpa_agent", "--version"])
    assert (ran.proc.returncode, ran.lines) == (0, [f"rpa-agent {__version__}"])


def test_selfcheck_passes_under_wine_and_says_names_come_from_msaa(package: Path, wine_desktop: WineDesktop) -> None:
    ran = wine_desktop.run([windows_path(package / "python.exe"), "-m", "rpa_agent", "selfcheck", "--json"])
    report = json.loads("\n".join(ran.lines[ran.lines.index("{") :]))  # stderr's warnings come first
    assert (ran.proc.returncode, report["ok"]) == (0, True), report
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert statuses["screenshot"] == statuses["msaa"] == statuses["input_hooks"] == "ok", report
    assert statuses["ui_automation"] == "warn", report  # Wine 8 has no UI Automation: names come from MSAA


def test_oleacc_answers_for_the_desktop_window_the_selfcheck_falls_back_to(
    package: Path, wine_desktop: WineDesktop
) -> None:
    script = (
        "from rpa_agent.windows.win32 import NativeWin32; w = NativeWin32(); d = w.desktop_window(); "
        "print('desktop', d != 0, w.msaa_window(d) is not None)"
    )
    ran = wine_desktop.run([windows_path(package / "python.exe"), "-c", script])
    assert (ran.proc.returncode, ran.lines[-1:]) == (0, ["desktop True True"]), ran.lines
