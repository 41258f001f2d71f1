"""Windows programs under Wine for the tests: an Xvfb display, Wine's virtual desktop on it, and Windows
processes (the agent in the embeddable Python, notepad, the test application) run as the unprivileged
user of `.ci/wine-setup`, never as root.

    setup = WineSetup.from_environment()          # $RPA_TEST_WINE: the folder .ci/wine-setup made
    with WineDesktop(setup) as desk:              # Xvfb + a lock on the prefix (one desktop at a time)
        app = desk.start(["notepad"])             # a WineProcess: output lines kept, stopped by its id
        desk.wait_log(log, lambda e: e["event"] == "ready")

Standard handles of a Wine process are pipes or /dev/null: Wine 8's embeddable Python cannot use a
regular file as its standard output. Files the Windows side writes live under `desk.run_dir`, owned
by that user; `windows_path()` turns a path into the `Z:\\...` Windows sees.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpa_mcp.desktop_rig.child import ChildLines
from rpa_mcp.desktop_rig.harness import wait_until as rig_wait_until

ENV_SETUP = "RPA_TEST_WINE"  # the folder .ci/wine-setup made (prefix, cache, user)
SCREEN = (1280, 800)  # Wine's virtual desktop, as .ci/wine-setup configured it


class WineError(RuntimeError):
    """A Windows program under Wine did not start or did not do what the test waited for."""


def windows_path(path: Path) -> str:
    """The path as Windows programs under Wine see it (drive Z: is the Linux root)."""
    return "Z:" + str(path).replace("/", "\\")


def wait_until(condition: Callable[[], Any], *, timeout: float, what: str, interval: float = 0.05) -> Any:
    """The rig's `wait_until`, raising WineError."""
    return rig_wait_until(condition, timeout=timeout, what=what, interval=interval, error=WineError)


@dataclass(frozen=True)
class WineSetup:
    """What `.ci/wine-setup DIR` made: DIR/prefix, DIR/cache, DIR/user, DIR/ready."""

    root: Path

    @classmethod
    def from_environment(cls) -> WineSetup | None:
        value = os.environ.get(ENV_SETUP, "").strip()
        return cls(Path(value)) if value else None

    def missing(self) -> str | None:
        """Why this setup cannot run Windows programs (None: it can)."""
        if shutil.which("wine") is None or shutil.which("Xvfb") is None:
            return "Wine and Xvfb are not installed (apt-get install --no-install-recommends wine wine64 xvfb)"
        if not (self.root / "ready").is_file():
            return f"{self.root} was not prepared: run `.ci/wine-setup {self.root}`"
        return None

    @property
    def user(self) -> str:
        return (self.root / "user").read_text("utf-8").strip()

    @property
    def prefix(self) -> Path:
        return self.root / "prefix"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    def give(self, path: Path) -> Path:
        """Hand `path` (recursively) to the Wine user, so Windows programs can write there."""
        shutil.chown(path, user=self.user)
        for inner in path.rglob("*") if path.is_dir() else []:
            shutil.chown(inner, user=self.user)
        return path


def _xauth_record(number: str, cookie: bytes) -> bytes:
    """One Xauthority record for display `number` on this host (family local, MIT-MAGIC-COOKIE-1)."""
    fields = [socket.gethostname().encode(), number.encode(), b"MIT-MAGIC-COOKIE-1", cookie]
    return (256).to_bytes(2, "big") + b"".join(len(f).to_bytes(2, "big") + f for f in fields)


class WineProcess(ChildLines):
    """A Windows program started by `WineDesktop.start`; its output lines (stdout and stderr) are kept."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        super().__init__(argv, env=env, cwd=cwd, stream="stdout", what=repr(argv[-1]), error=WineError)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        return super().stop(sig, timeout)


class WineDesktop:
    """Xvfb and Wine's virtual desktop (1280x800) for one test module; Windows programs as the Wine user."""

    def __init__(self, setup: WineSetup, *, lang: str = "fr_FR.UTF-8") -> None:
        self.setup, self.lang = setup, lang
        self.display = ""
        self.run_dir = Path()
        self.started: list[WineProcess] = []
        self._xvfb: subprocess.Popen[bytes] | None = None
        self._grab: Any = None
        self._lock: Any = None

    def __enter__(self) -> WineDesktop:
        return self.start_desktop()

    def __exit__(self, *exc: object) -> None:
        self.stop_desktop()

    def start_desktop(self) -> WineDesktop:
        self._lock = (self.setup.root / "lock").open("a")
        fcntl.flock(self._lock, fcntl.LOCK_EX)  # one desktop per prefix: its wineserver is shared
        try:
            runs = self.setup.root / "runs"
            runs.mkdir(exist_ok=True)
            self.run_dir = self.setup.give(Path(tempfile.mkdtemp(prefix="run-", dir=runs)))
            self._start_xvfb()
        except BaseException:
            self.stop_desktop()
            raise
        return self

    def _start_xvfb(self) -> None:
        cookie = secrets.token_bytes(16)
        server_auth = self.run_dir / "xvfb.auth"
        server_auth.write_bytes(_xauth_record("", cookie))
        server_auth.chmod(0o600)
        read_fd, write_fd = os.pipe()
        width, height = SCREEN
        argv = ["Xvfb", "-displayfd", str(write_fd), "-auth", str(server_auth), "-nolisten", "tcp"]
        self._xvfb = subprocess.Popen(
            [*argv, "-screen", "0", f"{width}x{height}x24"],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:
            number = pipe.readline().strip()
        if not number:
            raise WineError("Xvfb did not start")
        self.display = f":{int(number)}"
        client_auth = self.run_dir / "Xauthority"
        client_auth.write_bytes(_xauth_record(str(int(number)), cookie))
        client_auth.chmod(0o600)
        self.setup.give(client_auth)
        self._hold_pointer(client_auth)

    def _hold_pointer(self, authority: Path) -> None:
        """Grab the X pointer for the desktop's life, so that Wine never warps it: a warp's late echo
        from X would pull Windows' cursor back to where an earlier move left it, and a click pressed
        there is lost. Windows programs get their input from SendInput alone, as on Windows."""
        from Xlib import X, display

        previous = os.environ.get("XAUTHORITY")
        os.environ["XAUTHORITY"] = str(authority)
        try:
            self._grab = display.Display(self.display)
        finally:
            if previous is None:
                os.environ.pop("XAUTHORITY", None)
            else:
                os.environ["XAUTHORITY"] = previous
        root = self._grab.screen().root
        status = root.grab_pointer(False, 0, X.GrabModeAsync, X.GrabModeAsync, X.NONE, X.NONE, X.CurrentTime)
        if status != X.GrabSuccess:
            raise WineError(f"cannot hold the pointer of {self.display} (grab status {status})")
        self._grab.sync()

    def env(self) -> dict[str, str]:
        """The environment of a Windows program: only what Wine needs, no secret of the test process."""
        return {
            "HOME": str(self.setup.root / "home"),
            "PATH": "/usr/bin:/bin",
            "WINEPREFIX": str(self.setup.prefix),
            "WINEDEBUG": "-all",
            "WINEDLLOVERRIDES": "mscoree,mshtml=",
            "DISPLAY": self.display,
            "XAUTHORITY": str(self.run_dir / "Xauthority"),
            "LANG": self.lang,
            "LC_ALL": self.lang,
        }

    def command(self, argv: list[str], *, env: dict[str, str] | None = None) -> list[str]:
        """The Linux command running `wine argv...` as the Wine user on this desktop."""
        variables = [f"{k}={v}" for k, v in {**self.env(), **(env or {})}.items()]
        return ["runuser", "-u", self.setup.user, "--", "env", "-i", *variables, "wine", *argv]

    def start(self, argv: list[str], *, env: dict[str, str] | None = None) -> WineProcess:
        """`wine argv...` as the Wine user on this desktop (argv[0]: a Windows program or a .exe path)."""
        process = WineProcess(self.command(argv, env=env), os.environ.copy(), self.run_dir)
        self.started.append(process)
        return process

    def run(self, argv: list[str], *, timeout: float = 120.0, env: dict[str, str] | None = None) -> WineProcess:
        """Run a Windows program to its end; its lines are in `.lines`, its status in `.proc.returncode`."""
        process = self.start(argv, env=env)
        process.wait(timeout)
        return process

    def folder(self, name: str) -> Path:
        """A new folder under the run folder that the Windows side can write to."""
        path = self.run_dir / name
        path.mkdir(parents=True, exist_ok=True)
        return self.setup.give(path)

    def stop_desktop(self) -> None:
        for process in reversed(self.started):
            process.stop()
        self.started.clear()
        if self.display:
            kill = ["runuser", "-u", self.setup.user, "--", "env", "-i", *[f"{k}={v}" for k, v in self.env().items()]]
            subprocess.run([*kill, "wineserver", "-k"], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
            subprocess.run([*kill, "wineserver", "-w"], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        if self._grab is not None:
            with contextlib.suppress(Exception):
                self._grab.close()
            self._grab = None
        if self._xvfb is not None and self._xvfb.poll() is None:
            os.killpg(self._xvfb.pid, signal.SIGTERM)
            self._xvfb.wait(20)
        self._xvfb = None
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None


def read_log(path: Path) -> list[dict[str, Any]]:
    """The JSON lines the test application logged so far (a line being written is left for later)."""
    if not path.is_file():
        return []
    lines = path.read_text("utf-8").split("\n")
    return [json.loads(line) for line in lines[:-1] if line.strip()]
