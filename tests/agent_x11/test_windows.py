"""The foreground window over time and the server's clock, on a real X display (Xvfb, openbox)."""

from __future__ import annotations

import queue
import time

import pytest
from rpa_agent.x11.inject import Injector
from rpa_agent.x11.watch import InputWatch, RawInput
from rpa_agent.x11.windows import WindowInfo, Windows, WindowTracker
from Xlib import X, Xatom, display

from rpa_mcp.desktop_rig.harness import wait_until

pytestmark = pytest.mark.desktop


class TitledWindow:
    """A plain window of another client, that retitles itself."""

    def __init__(self, display_name: str, title: str) -> None:
        self.conn = display.Display(display_name)
        root = self.conn.screen().root
        self.window = root.create_window(100, 100, 400, 300, 0, X.CopyFromParent, X.InputOutput, X.CopyFromParent)
        self.retitle(title)
        self.window.map()
        self.conn.sync()

    def retitle(self, title: str) -> None:
        utf8 = self.conn.intern_atom("UTF8_STRING")
        self.window.change_property(self.conn.intern_atom("_NET_WM_NAME"), utf8, 8, title.encode())
        self.window.change_property(Xatom.WM_NAME, Xatom.STRING, 8, title.encode("latin-1", "replace"))
        self.conn.sync()  # processed by the server: any input injected after it is stamped later

    def close(self) -> None:
        self.window.destroy()
        self.conn.close()


def test_an_input_stamped_in_the_last_barrier_s_millisecond_waits_for_a_new_one(desktop):
    """A change and an input may share the millisecond of the barrier before them: only an input
    strictly older than the barrier is known to have every change before it in the history."""
    tracker = WindowTracker(desktop.display).start()
    try:
        assert tracker.catch_up(None)
        barrier = tracker._caught_up
        assert barrier is not None
        passed = tracker._barriers
        assert tracker.catch_up(barrier)
        assert tracker._barriers == passed + 1  # a new probe went round, the last one was not trusted
        assert tracker.catch_up(barrier - 1)
        assert tracker._barriers == passed + 1  # older than the barrier: already in the history
    finally:
        tracker.stop()


def test_an_input_sees_every_window_change_made_before_it_and_is_dated_on_this_machines_clock(desktop):
    tracker = WindowTracker(desktop.display).start()
    moves: queue.Queue[RawInput] = queue.Queue()
    watch = InputWatch(desktop.display)
    watch.add_listener(lambda raw: moves.put(raw) if raw.kind == X.MotionNotify else None)
    watch.start()
    hands = Injector(desktop.display)
    window = TitledWindow(desktop.display, "Dossier — Synthèse")
    try:
        # the tracker's own history shows the window: it watches that window's title from then on
        wait_until(lambda: "Synthèse" in _last_title(tracker), timeout=30, what="the window in the tracker's history")
        for n, title in enumerate(["Dossier — Observations", "Dossier — Prescriptions", "Dossier — Synthèse"]):
            window.retitle(title)
            sent = time.monotonic()
            hands.move(300 + n, 300)  # processed after the retitle: stamped after it
            raw = moves.get(timeout=30)
            assert tracker.catch_up(raw.time_ms)
            # the change is in the history the moment the input is handled, however late the tracker was
            assert tracker.at(raw.time_ms).title == title
            moment = tracker.clock.monotonic(raw.time_ms)
            assert moment is not None and sent - 1.0 < moment <= raw.received
    finally:
        window.close()
        hands.close()
        watch.stop()
        tracker.stop()


def _last_title(tracker: WindowTracker) -> str:
    history = tracker.history
    info = history[-1][1] if history else None
    return info.title if info is not None else ""


def test_the_windows_shown_are_stacked_top_most_first_with_their_boxes(desktop):
    windows = Windows(desktop.display)
    below, above = TitledWindow(desktop.display, "Dossier de soins"), TitledWindow(desktop.display, "Pharmacie")
    try:
        wait_until(lambda: len(mine(windows)) == 2, timeout=10, what="both windows managed by openbox")
        assert [w.title for w in mine(windows)] == ["Pharmacie", "Dossier de soins"]  # the last mapped is on top
        assert all(w.geometry is not None and w.geometry[2:] == (400, 300) for w in mine(windows))
        windows.activate(below.window.id)  # raised by the window manager: now on top
        wait_until(lambda: mine(windows)[0].title == "Dossier de soins", timeout=10, what="the raised window on top")
    finally:
        below.close()
        above.close()
        windows.close()


def mine(windows: Windows) -> list[WindowInfo]:
    return [w for w in windows.stacked() if w.title in ("Dossier de soins", "Pharmacie")]
