"""The foreground window and the window list of an X11 desktop, through EWMH (python-xlib).

`_NET_ACTIVE_WINDOW` names the window in front, `_NET_WM_NAME` (UTF-8, else `WM_NAME`) its
title, `_NET_WM_PID` its process (the name comes from /proc). `_NET_CLIENT_LIST` lists the
managed windows. Every call is wrapped so that a window closing in between gives `None`,
never an exception.
"""

from __future__ import annotations

import select
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from Xlib import X, Xatom, display, error
from Xlib.protocol import event as xevent

from rpa_agent.x11.clock import ServerClock, delta_ms

CATCH_UP_S = 2.0  # how long an input waits for the window changes before it to be read


@dataclass(frozen=True)
class WindowInfo:
    wid: int
    title: str
    pid: int | None
    process: str | None
    wm_class: str | None
    geometry: tuple[int, int, int, int] | None  # x, y, w, h on the root window


def process_name(pid: int | None) -> str | None:
    if not pid:
        return None
    try:
        return Path(f"/proc/{pid}/comm").read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


class Windows:
    """One Xlib connection (thread-safe through a lock) for window queries and EWMH requests."""

    def __init__(self, display_name: str | None = None) -> None:
        self.display = display.Display(display_name)
        self.root = self.display.screen().root
        self._lock = threading.Lock()
        self._atoms: dict[str, int] = {}

    def close(self) -> None:
        with self._lock:
            self.display.close()

    @property
    def size(self) -> tuple[int, int]:
        screen = self.display.screen()
        return int(screen.width_in_pixels), int(screen.height_in_pixels)

    def atom(self, name: str) -> int:
        if name not in self._atoms:
            self._atoms[name] = self.display.intern_atom(name)
        return self._atoms[name]

    # --- queries ------------------------------------------------------------------------------
    def _prop(self, wid: int, name: str, kind: int = X.AnyPropertyType) -> Any:
        window = self.display.create_resource_object("window", wid)
        prop = window.get_full_property(self.atom(name), kind)
        return prop.value if prop is not None else None

    def active_window(self) -> int | None:
        with self._lock:
            try:
                value = self._prop(self.root.id, "_NET_ACTIVE_WINDOW", Xatom.WINDOW)
            except error.XError:
                return None
        wid = int(value[0]) if value is not None and len(value) else 0
        return wid or None

    def client_list(self) -> list[int]:
        with self._lock:
            try:
                value = self._prop(self.root.id, "_NET_CLIENT_LIST", Xatom.WINDOW)
            except error.XError:
                return []
        return [int(w) for w in value] if value is not None else []

    def info(self, wid: int | None) -> WindowInfo | None:
        if not wid:
            return None
        with self._lock:
            try:
                title = self._prop(wid, "_NET_WM_NAME")
                if title is None:
                    title = self._prop(wid, "WM_NAME")
                pid = self._prop(wid, "_NET_WM_PID", Xatom.CARDINAL)
                klass = self._prop(wid, "WM_CLASS", Xatom.STRING)
                geometry = self._geometry(wid)
            except (error.XError, error.BadWindow):
                return None
        text = title.decode("utf-8", "replace") if isinstance(title, bytes) else str(title or "")
        pid_value = int(pid[0]) if pid is not None and len(pid) else None
        wm_class = None
        if isinstance(klass, bytes | str):
            raw = klass.decode("latin-1") if isinstance(klass, bytes) else klass
            wm_class = ".".join(p for p in raw.split("\0") if p) or None
        return WindowInfo(wid, text, pid_value, process_name(pid_value), wm_class, geometry)

    def _geometry(self, wid: int) -> tuple[int, int, int, int] | None:
        window = self.display.create_resource_object("window", wid)
        geo = window.get_geometry()
        origin = window.translate_coords(self.root, 0, 0)
        return (-int(origin.x), -int(origin.y), int(geo.width), int(geo.height))

    def touch(self, wid: int, atom: int) -> None:
        """Change a property of `wid`: the server notifies it, stamped, after every earlier change."""
        with self._lock:
            window = self.display.create_resource_object("window", wid)
            window.change_property(atom, Xatom.CARDINAL, 32, [0])
            self.display.flush()

    def foreground(self) -> WindowInfo | None:
        return self.info(self.active_window())

    def keyboard_at(self, x: int, y: int) -> bool:
        """Is the X input focus in the foreground window, and is (x, y) inside that window?"""
        active = self.active_window()
        if active is None:
            return False
        with self._lock:
            try:
                geometry = self._geometry(active)
                focus = self.display.get_input_focus().focus
                window = focus if not isinstance(focus, int) else None
                for _ in range(16):  # the focus may sit on a child of the foreground window
                    if window is None or int(window.id) == self.root.id:
                        return False
                    if int(window.id) == active:
                        break
                    window = window.query_tree().parent
                else:
                    return False
            except (error.XError, error.BadWindow):
                return False
        if geometry is None:
            return False
        gx, gy, gw, gh = geometry
        return gx <= x < gx + gw and gy <= y < gy + gh

    def windows(self) -> list[WindowInfo]:
        return [i for i in (self.info(w) for w in self.client_list()) if i is not None]

    def stacked(self) -> list[WindowInfo]:
        """The windows shown, top-most first (EWMH stacking order), minimised ones left out: what covers what."""
        with self._lock:
            try:
                value = self._prop(self.root.id, "_NET_CLIENT_LIST_STACKING", Xatom.WINDOW)
                order = [int(w) for w in value][::-1] if value is not None else []
                hidden = self.atom("_NET_WM_STATE_HIDDEN")
                shown = [w for w in order if hidden not in list(self._prop(w, "_NET_WM_STATE", Xatom.ATOM) or [])]
            except (error.XError, error.BadWindow):
                return []
        return [i for i in (self.info(w) for w in shown) if i is not None]

    def find(self, title_part: str) -> WindowInfo | None:
        return next((w for w in self.windows() if title_part in w.title), None)

    # --- requests (the harness and benchmark; the agent only for a recorded focus_window step) ---
    def _client_message(self, wid: int, name: str, data: list[int]) -> None:
        window = self.display.create_resource_object("window", wid)
        message = xevent.ClientMessage(window=window, client_type=self.atom(name), data=(32, (data + [0] * 5)[:5]))
        mask = X.SubstructureRedirectMask | X.SubstructureNotifyMask
        self.root.send_event(message, event_mask=mask)
        self.display.flush()

    def activate(self, wid: int) -> None:
        with self._lock:
            self._client_message(wid, "_NET_ACTIVE_WINDOW", [2, X.CurrentTime, 0])

    def move_resize(self, wid: int, x: int, y: int, w: int, h: int) -> None:
        """Un-maximize, resize, then move: EWMH requests the window manager honours, the size and the place apart
        as a person changes them (a corner, then the title bar). One request for both makes openbox send only the
        real ConfigureNotify of the resize, and Java's AWT then keeps its old place on the screen: its drop-down
        lists open, and its clicks land, where the window was."""
        northwest = 1
        given_x, given_y, given_w, given_h = 1 << 8, 1 << 9, 1 << 10, 1 << 11
        with self._lock:
            horz, vert = self.atom("_NET_WM_STATE_MAXIMIZED_HORZ"), self.atom("_NET_WM_STATE_MAXIMIZED_VERT")
            self._client_message(wid, "_NET_WM_STATE", [0, horz, vert, 2])
            self._client_message(wid, "_NET_MOVERESIZE_WINDOW", [northwest | given_w | given_h, 0, 0, w, h])
            self._client_message(wid, "_NET_MOVERESIZE_WINDOW", [northwest | given_x | given_y, x, y, 0, 0])

    def maximize(self, wid: int) -> None:
        with self._lock:
            horz, vert = self.atom("_NET_WM_STATE_MAXIMIZED_HORZ"), self.atom("_NET_WM_STATE_MAXIMIZED_VERT")
            self._client_message(wid, "_NET_WM_STATE", [1, horz, vert, 2])


class WindowTracker:
    """The foreground window over time, from PropertyNotify events (X server time, like RECORD's).

    `at(t)` answers "which window was in front at X time t", so an input event is attributed to
    the window it went to, even when it is processed after the window changed. `catch_up(t)`
    first makes sure every change the server made before `t` is in the history: it changes a
    property on a window of its own and waits for that notification, which the server sends
    after every earlier one (its stamp also sets the `clock`).
    """

    def __init__(self, display_name: str | None = None, *, clock: ServerClock | None = None) -> None:
        self.windows = Windows(display_name)
        self.clock = clock or ServerClock()
        self._conn = display.Display(display_name)
        self._root = self._conn.screen().root
        self._active_atom = self._conn.intern_atom("_NET_ACTIVE_WINDOW")
        self._name_atoms = {self._conn.intern_atom("_NET_WM_NAME"), self._conn.intern_atom("WM_NAME")}
        self._probe = self._root.create_window(
            0, 0, 1, 1, 0, X.CopyFromParent, X.InputOnly, X.CopyFromParent, event_mask=X.PropertyChangeMask
        )
        self._probe_atom = self._conn.intern_atom("_RPA_MCP_CLOCK")
        self._cond = threading.Condition()
        # (X time of the change, the window, time.monotonic() when this tracker saw it)
        self._entries: list[tuple[int, WindowInfo | None, float]] = [(0, self.windows.foreground(), 0.0)]
        self._caught_up: int | None = None  # X time up to which every change is in `_entries`
        self._barriers = 0
        self._probe_lock = threading.Lock()
        self._probe_sent = 0.0
        self._watched: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="x11-window-tracker", daemon=True)

    def start(self) -> WindowTracker:
        self._root.change_attributes(event_mask=X.PropertyChangeMask)
        first = self._entries[0][1]
        self._watch(first.wid if first else None)
        self._conn.sync()
        self._thread.start()
        if self.catch_up(None):  # reads the server's clock before any input is stamped
            with self._cond:  # the window in front at the start is dated from the start
                _, first, seen = self._entries[0]
                started = min([self._caught_up or 0, *(t for t, _, _ in self._entries[1:])])
                self._entries[0] = (started, first, seen)
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._conn.close()
        self.windows.close()

    @property
    def history(self) -> list[tuple[int, WindowInfo | None]]:
        with self._cond:
            return [(t, info) for t, info, _ in self._entries]

    def at(self, time_ms: int) -> WindowInfo | None:
        with self._cond:
            current = self._entries[0][1]
            for t, info, _ in self._entries:
                if t > time_ms:
                    break
                current = info
            return current

    def since(self, time_ms: int, *, seen_before: float | None = None) -> list[tuple[int, WindowInfo | None]]:
        """Changes after X time `time_ms`; with `seen_before`, only those this tracker saw before that
        monotonic time (a change seen just now may be the effect of an input not yet delivered)."""
        with self._cond:
            return [
                (t, info)
                for t, info, seen in self._entries
                if t > time_ms and (seen_before is None or seen < seen_before)
            ]

    def catch_up(self, time_ms: int | None, timeout: float = CATCH_UP_S) -> bool:
        """Wait until every change the server made up to X time `time_ms` (None: up to now) is in
        the history; False when the server did not answer within `timeout` seconds."""
        with self._probe_lock:
            with self._cond:
                # strictly older than the last barrier: a change stamped in the barrier's own
                # millisecond may have been made after it, and `at` counts it before the input
                if time_ms is not None and self._caught_up is not None and delta_ms(time_ms, self._caught_up) < 0:
                    return True
                seen = self._barriers
            self._probe_sent = time.monotonic()
            self.windows.touch(self._probe.id, self._probe_atom)
            with self._cond:
                return self._cond.wait_for(lambda: self._barriers > seen, timeout)

    def _watch(self, wid: int | None) -> None:
        if wid and wid != self._watched:
            try:
                self._conn.create_resource_object("window", wid).change_attributes(event_mask=X.PropertyChangeMask)
                self._watched = wid
            except error.XError:
                pass

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._conn.pending_events():
                select.select([self._conn.fileno()], [], [], 0.1)
                continue
            ev = self._conn.next_event()
            if self._is_barrier(ev):
                self._passed(int(ev.time))
                continue
            if not self._relevant(ev):
                continue
            time_ms, info, barriers = self._read_after(int(ev.time))
            self._watch(info.wid if info else None)
            with self._cond:
                if _key(self._entries[-1][1]) != _key(info):
                    self._entries.append((time_ms, info, time.monotonic()))
                    del self._entries[:-200]
            for stamp in barriers:  # after the change they follow is in the history
                self._passed(stamp)

    def _is_barrier(self, ev: Any) -> bool:
        return bool(ev.type == X.PropertyNotify and ev.window.id == self._probe.id and ev.atom == self._probe_atom)

    def _passed(self, stamp: int) -> None:
        self.clock.observe(stamp, self._probe_sent)
        with self._cond:
            self._caught_up = stamp
            self._barriers += 1
            self._cond.notify_all()

    def _relevant(self, ev: Any) -> bool:
        if ev.type != X.PropertyNotify:
            return False
        is_active = ev.window.id == self._root.id and ev.atom == self._active_atom
        return is_active or (ev.window.id == self._watched and ev.atom in self._name_atoms)

    def _read_after(self, time_ms: int) -> tuple[int, WindowInfo | None, list[int]]:
        """The foreground window as it is after the change notified at `time_ms`, stamped with the
        time of the latest change it reflects, and the barriers passed meanwhile.

        The window is read now, on another connection, so it may already show a later change (the
        person clicked a tab that retitled the window). A round trip on the event connection after
        the read brings every notification of a change made before the read: if one came, the read
        is stamped with that later time (read again), never with the earlier one.
        """
        barriers: list[int] = []
        while True:
            info = self.windows.foreground()
            self._conn.sync()
            later = None
            while self._conn.pending_events():
                ev = self._conn.next_event()
                if self._is_barrier(ev):
                    barriers.append(int(ev.time))
                elif self._relevant(ev):
                    later = int(ev.time)
            if later is None:
                return time_ms, info, barriers
            time_ms = later


def _key(info: WindowInfo | None) -> tuple[int, str] | None:
    return (info.wid, info.title) if info is not None else None
