"""A later look for a window a slow application had not shown yet: the agent's wait ends as soon as another
window is in front (or a person comes, or the wait's limit), then the screen is watched still and sent."""

from __future__ import annotations

from typing import Any

from rpa_agent.core.perform import LOOK_QUIET_S, TITLE_CHANGES_PARAM, Performer
from rpa_agent.core.wire import NextAction
from rpa_agent.port import Window

from .fakes import FakeDesktop, FakeHttp, FakeServer, FakeWindows

WAIT_S = 10.0
SEARCH = "Easily — Recherche"
RECORD = "Easily — DURAND Alice — Synthèse"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class SlowWindows(FakeWindows):
    """The search window in front until `at` seconds, then `later` (a record, a window with no title...)."""

    def __init__(self, clock: Clock, at: float | None, later: Window | None) -> None:
        super().__init__()
        self.clock, self.at, self.later = clock, at, later

    def foreground(self) -> Window | None:
        if self.at is not None and self.clock.now >= self.at:
            return self.later
        return Window(1, SEARCH, 10, "chromium")


def look(windows_at: float | None, later: Window | None = None, **params: Any) -> tuple[float, dict[str, Any]]:
    clock = Clock()
    desktop = FakeDesktop()
    desktop.windows = SlowWindows(clock, windows_at, later or Window(3, RECORD, 10, "chromium"))
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    action = NextAction(
        replay_id="r", action_id="a-look0", attempt_id="t", not_after=1e12, server_now=0.0,
        action_type="screenshot_evidence", params={"seconds": WAIT_S, **params},
    )  # fmt: skip
    result = performer.execute(action)
    assert result["executed"] is True and result["success"] is True
    return clock.now, result


def test_the_wait_ends_soon_after_the_window_comes_not_at_its_limit() -> None:
    took, result = look(2.0, **{TITLE_CHANGES_PARAM: SEARCH})
    assert 2.0 <= took < 2.0 + LOOK_QUIET_S + 0.2
    assert (result["window_title"], result["window_title_before"]) == (RECORD, SEARCH)


def test_a_window_that_never_comes_is_waited_for_up_to_the_limit() -> None:
    took, result = look(None, **{TITLE_CHANGES_PARAM: SEARCH})
    assert WAIT_S <= took < WAIT_S + 0.2
    assert result["window_title"] == SEARCH


def test_a_window_with_no_title_yet_is_no_window_come() -> None:
    # a window being mapped has no title for a moment: the wait goes on (the server would judge no title)
    took, _ = look(1.0, later=Window(3, "", 10, "chromium"), **{TITLE_CHANGES_PARAM: SEARCH})
    assert took >= WAIT_S


def test_a_look_waiting_for_no_window_waits_its_time() -> None:
    # the typed text's look and the closing look: no title to wait for, the window's change does not end them
    took, _ = look(0.5, seconds=1.0)
    assert 1.0 <= took < 1.0 + 0.2
