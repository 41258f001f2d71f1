"""A real X11 desktop for tests, benchmarks and the demo: Xvfb, openbox, a D-Bus session with
accessibility on, Chromium, and the demo application, each started here and stopped by its id.

    with VirtualDisplay(workdir) as desk:           # Xvfb on a free display (-displayfd)
        app = ServerThread(create_demo_app(log)).start()
        browser = desk.chromium(app.url)            # waits for its window
        desk.wait_for(lambda w: "Recherche" in w.title)

Chromium runs with accessibility forced on (AT-SPI) so recorders get element names. As root it
needs `--no-sandbox` (Chromium refuses to start otherwise); `--test-type` hides the warning
bar that flag would add, so the screen shows what a person's browser shows.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rpa_mcp.desktop_rig.child import ChildLines
from rpa_mcp.testing import loopback_socket

REQUIRED_TOOLS = {"Xvfb": "xvfb", "openbox": "openbox", "chromium": "chromium", "dbus-daemon": "dbus"}
CHROMIUM_FLAGS = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-session-crashed-bubble",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--password-store=basic",
    "--force-renderer-accessibility",
    "--use-fake-device-for-media-stream",
    "--disable-gpu",
]


COOKIE_SCHEME = b"MIT-MAGIC-COOKIE-1"
FAMILY_LOCAL = 256
_AUTH_LOCK = threading.Lock()


def _xauth_entry(number: str, cookie: bytes, *, family: int = FAMILY_LOCAL, address: bytes | None = None) -> bytes:
    """One Xauthority record (family, address, display number, scheme, data; big-endian lengths)."""
    host = socket.gethostname().encode() if address is None else address
    fields = [host, number.encode(), COOKIE_SCHEME, cookie]
    return family.to_bytes(2, "big") + b"".join(len(f).to_bytes(2, "big") + f for f in fields)


def _set_cookie(number: str, cookie: bytes | None) -> str:
    """Give display `number` this cookie in the process's Xauthority (None: forget it); its path."""
    from Xlib import xauth

    with _AUTH_LOCK:
        path = _client_authority()
        entries = xauth.Xauthority(str(path)).entries if path.stat().st_size else []
        kept = [
            _xauth_entry(num.decode(), data, family=family, address=addr)
            for family, addr, num, _name, data in entries
            if num.decode() != number  # a display number is reused once its Xvfb stopped
        ]
        fresh = [_xauth_entry(number, cookie)] if cookie is not None else []
        path.write_bytes(b"".join(kept + fresh))
        return str(path)


def _client_authority() -> Path:
    """This process's Xauthority file (cookies of the displays it started, after any it already had),
    named by XAUTHORITY so that every X connection of the process and its children finds them."""
    current = os.environ.get("XAUTHORITY", "")
    if current.endswith(".rpa-desktop.Xauthority"):
        return Path(current)
    fd, name = tempfile.mkstemp(suffix=".rpa-desktop.Xauthority")
    with os.fdopen(fd, "wb") as out:
        if current and Path(current).is_file():
            out.write(Path(current).read_bytes())
    os.environ["XAUTHORITY"] = name
    atexit.register(lambda: Path(name).unlink(missing_ok=True))
    return Path(name)


def missing_tools() -> list[str]:
    """The Debian packages to install for a real desktop (empty when everything is there)."""
    return sorted({pkg for tool, pkg in REQUIRED_TOOLS.items() if shutil.which(tool) is None})


class DesktopError(RuntimeError):
    """A part of the virtual desktop did not start."""


def wait_until(
    condition: Callable[[], Any],
    *,
    timeout: float,
    what: str,
    interval: float = 0.05,
    seen: Callable[[], str] | None = None,
    error: type[Exception] = DesktopError,
) -> Any:
    """Poll `condition` until it returns something truthy; `error` naming `what` after `timeout`
    (and what `seen` says was there instead, to tell a slow start from a wrong page)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            instead = f"; seen instead: {seen()}" if seen is not None else ""
            raise error(f"timed out after {timeout:.0f} s waiting for {what}{instead}")
        time.sleep(interval)


@dataclass
class Browser:
    process: subprocess.Popen[bytes]
    profile: Path
    wid: int | None = None


@dataclass
class VirtualDisplay:
    """Xvfb + openbox + a D-Bus session bus (accessibility enabled), in `workdir`."""

    workdir: Path | None = None
    width: int = 1920
    height: int = 1080
    window_manager: bool = True
    display: str = ""
    env: dict[str, str] = field(default_factory=dict)
    _procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _tmp: tempfile.TemporaryDirectory[str] | None = None
    _windows: Any = None
    _authority: str = ""

    # --- lifecycle --------------------------------------------------------------------------------
    def __enter__(self) -> VirtualDisplay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> VirtualDisplay:
        missing = missing_tools()
        if missing:
            raise DesktopError(f"a real desktop needs these Debian packages: apt-get install -y {' '.join(missing)}")
        if self.workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="rpa-desktop-")
            self.workdir = Path(self._tmp.name)
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            self._start_xvfb()
            runtime = self.workdir / "runtime"
            runtime.mkdir(mode=0o700, exist_ok=True)
            self.env = {
                **{k: v for k, v in os.environ.items() if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")},
                "DISPLAY": self.display,
                "XAUTHORITY": self._authority,
                "XDG_RUNTIME_DIR": str(runtime),
                "NO_AT_BRIDGE": "0",
                "ACCESSIBILITY_ENABLED": "1",
            }
            self._start_dbus()
            if self.window_manager:
                self.spawn(["openbox", "--sm-disable"], log="openbox")
                wait_until(self._wm_ready, timeout=30, what="the openbox window manager")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self._windows is not None:
            with contextlib.suppress(Exception):
                self._windows.close()
            self._windows = None
        for proc in reversed(self._procs):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(10)
        self._procs.clear()
        if self._authority and self.display:
            with contextlib.suppress(Exception):
                _set_cookie(self.display.lstrip(":"), None)
            self._authority = ""
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def spawn(self, argv: list[str], *, log: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Start a process in its own process group (stopped with the desktop), output to `<log>.log`."""
        assert self.workdir is not None
        out = (self.workdir / f"{log}.log").open("ab")
        proc = subprocess.Popen(
            argv,
            env=env or self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        out.close()
        self._procs.append(proc)
        return proc

    def _start_xvfb(self) -> None:
        """Xvfb with a cookie only this process and its children hold: no other local client (a person
        or a test of someone else's on the same machine) can connect to it and inject input."""
        assert self.workdir is not None
        cookie = secrets.token_bytes(16)
        server_auth = self.workdir / "xvfb.auth"
        server_auth.write_bytes(_xauth_entry("", cookie))
        server_auth.chmod(0o600)
        read_fd, write_fd = os.pipe()
        log = (self.workdir / "xvfb.log").open("ab")
        argv = ["Xvfb", "-displayfd", str(write_fd), "-auth", str(server_auth), "-nolisten", "tcp"]
        proc = subprocess.Popen(
            [*argv, "-screen", "0", f"{self.width}x{self.height}x24"],
            pass_fds=(write_fd,),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        os.close(write_fd)
        self._procs.append(proc)
        with os.fdopen(read_fd, "rb") as pipe:
            number = pipe.readline().strip()  # Xvfb writes the display number once it accepts clients
        if not number:
            raise DesktopError(f"Xvfb did not start (see {self.workdir / 'xvfb.log'})")
        self.display = f":{int(number)}"
        self._authority = _set_cookie(str(int(number)), cookie)

    def _start_dbus(self) -> None:
        assert self.workdir is not None
        address = f"unix:path={self.workdir / 'session-bus'}"
        self.spawn(["dbus-daemon", "--session", f"--address={address}", "--nofork", "--nopidfile"], log="dbus")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address
        wait_until(lambda: (self.workdir / "session-bus").exists(), timeout=20, what="the D-Bus session bus")  # type: ignore[operator]  # workdir set in start()
        with contextlib.suppress(Exception):  # accessibility is a bonus: element names, never required
            from rpa_agent.x11.atspi import enable_accessibility

            enable_accessibility(address)

    def _wm_ready(self) -> bool:
        windows = self.windows()
        try:
            return bool(windows._prop(windows.root.id, "_NET_SUPPORTING_WM_CHECK"))
        except Exception:
            return False

    # --- what runs on it ---------------------------------------------------------------------------
    def windows(self) -> Any:
        """A `Windows` (EWMH) connection to this display, shared by the harness."""
        if self._windows is None:
            from rpa_agent.x11.windows import Windows

            self._windows = Windows(self.display)
        return self._windows

    def chromium(
        self,
        url: str,
        *,
        profile: Path | None = None,
        lang: str = "fr",
        app_mode: bool = False,
        extra: list[str] | None = None,
        wait_title: str | None = None,
        timeout: float = 90.0,
    ) -> Browser:
        """Start Chromium on `url`, maximised, and wait until its window shows `wait_title` (or any title)."""
        assert self.workdir is not None
        profile = profile or Path(tempfile.mkdtemp(prefix="chromium-", dir=self.workdir))
        argv = ["chromium", f"--user-data-dir={profile}", f"--lang={lang}", *CHROMIUM_FLAGS, "--start-maximized"]
        if os.geteuid() == 0:
            argv += ["--no-sandbox", "--test-type"]
        argv += extra or []
        argv += [f"--app={url}"] if app_mode else [url]
        env = {**self.env, "LANGUAGE": lang, "LANG": "fr_FR.UTF-8" if lang == "fr" else "en_US.UTF-8"}
        # a window is known by its id and its process: the X server may hand a browser that just quit
        # its client's id range to the next one, whose first window then has the same id
        before = {(info.wid, info.pid) for info in self.windows().windows()}
        proc = self.spawn(argv, log=f"chromium-{profile.name}", env=env)

        def window() -> Any:
            if proc.poll() is not None:
                raise DesktopError(f"chromium exited with status {proc.returncode} (see {self.workdir}/chromium-*.log)")
            for info in self.windows().windows():
                if (info.wid, info.pid) in before:
                    continue
                if wait_title is None and info.title and "chromium" in (info.wm_class or "").lower():
                    return info
                if wait_title is not None and wait_title in info.title:
                    return info
            return None

        def new_windows() -> str:
            fresh = [info for info in self.windows().windows() if (info.wid, info.pid) not in before]
            titles = [f"{info.title!r} ({info.wm_class})" for info in fresh]
            return ", ".join(titles) or "no new window"

        info = wait_until(
            window,
            timeout=timeout,
            what=f"a Chromium window{f' titled {wait_title!r}' if wait_title else ''}",
            seen=new_windows,
        )
        return Browser(proc, profile, info.wid)

    def wait_for(self, predicate: Callable[[Any], bool], *, timeout: float = 60.0, what: str = "a window") -> Any:
        """The first window (`WindowInfo`) for which `predicate` holds."""
        return wait_until(
            lambda: next((w for w in self.windows().windows() if predicate(w)), None), timeout=timeout, what=what
        )

    def wait_foreground(self, predicate: Callable[[Any], bool], *, timeout: float = 60.0, what: str = "") -> Any:
        def check() -> Any:
            info = self.windows().foreground()
            return info if info is not None and predicate(info) else None

        return wait_until(check, timeout=timeout, what=what or "the foreground window")

    def wait_still(self, *, quiet_s: float = 0.4, timeout: float = 30.0) -> None:
        """Until the screen has not changed for `quiet_s` (a window finished moving, a page its layout)."""
        from rpa_agent.x11.screen import Screen

        screen = Screen(self.display)
        try:
            frames = [screen.grab()]
            since = [time.monotonic()]

            def still() -> bool:
                frame = screen.grab()
                if frame != frames[-1]:
                    frames[-1], since[-1] = frame, time.monotonic()
                return time.monotonic() - since[-1] >= quiet_s

            wait_until(still, timeout=timeout, what="the screen to stop changing", interval=0.1)
        finally:
            screen.close()

    def screenshot(self, path: Path) -> Path:
        from rpa_agent.x11.screen import Screen

        screen = Screen(self.display)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(screen.png(screen.grab()))
        finally:
            screen.close()
        return path


class ServerThread:
    """An ASGI application under uvicorn on 127.0.0.1 (free port), in a background thread."""

    def __init__(self, app: Any, *, sock: socket.socket | None = None) -> None:
        import uvicorn

        self.sock = sock or loopback_socket()
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def start(self, timeout: float = 30.0) -> ServerThread:
        self._thread.start()
        wait_until(lambda: self.server.started, timeout=timeout, what=f"the server on {self.url}")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(15)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def demo_app_server(effects_path: Path | None = None) -> Iterator[tuple[ServerThread, Any]]:
    """The demo application served on 127.0.0.1; yields (server, its EffectsLog)."""
    from rpa_mcp.demo_app import EffectsLog, create_demo_app

    log = EffectsLog(effects_path)
    with ServerThread(create_demo_app(log)) as server:
        yield server, log


class AgentProcess(ChildLines):
    """`python -m rpa_agent run|record ...` (the workstation agent, X11 backend) as a child process on a
    desktop; its stderr lines are kept. Arguments without a command are `run`'s."""

    def __init__(self, desk: VirtualDisplay, args: list[str], *, env: dict[str, str] | None = None) -> None:
        import sys

        command = [] if args and args[0] in ("run", "record") else ["run"]
        argv = [sys.executable, "-m", "rpa_agent", *command, *args]
        super().__init__(argv, env={**desk.env, **(env or {})}, stream="stderr", what="rpa-agent", error=DesktopError)

    def kill(self) -> int:
        """SIGKILL: the process dies at once, with no chance to clean up (a crash)."""
        return self.stop(signal.SIGKILL)
