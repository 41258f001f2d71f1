"""A later look for a window a slow application had not shown yet: the agent's wait ends as soon as another
window is in front (or a person comes, or the wait's limit), then the screen is watched still and sent. A look
for a step's outcome (a save a server answers late) ends as soon as the screen is another than the one sent
after the step."""

from __future__ import annotations

from typing import Any

from rpa_agent.core.perform import LOOK_QUIET_S, SCREEN_CHANGES_PARAM, TITLE_CHANGES_PARAM, Performer
from rpa_agent.core.wire import NextAction
from rpa_agent.port import Frame, Window

from .fakes import SIZE, Clock, FakeDesktop, FakeHttp, FakeServer, FakeWindows

WAIT_S = 10.0
SEARCH = "Easily — Recherche"
RECORD = "Easily — DURAND Alice — Synthèse"


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


class LateScreen:
    """Shows frame 0 until `at` seconds (never: None), then frame 1."""

    def __init__(self, clock: Clock, at: float | None) -> None:
        self.clock, self.at = clock, at

    def size(self) -> tuple[int, int]:
        return SIZE

    def grab(self) -> Frame:
        return frame(1 if self.at is not None and self.clock.now >= self.at else 0)

    def png(self, frame: Frame) -> bytes:
        return b""


def frame(shade: int) -> Frame:
    return Frame(SIZE[0], SIZE[1], bytes([shade]) * (SIZE[0] * SIZE[1] * 4))


def outcome_look(at: float | None, *, last_sent: Frame | None = None) -> float:
    clock = Clock()
    desktop = FakeDesktop()
    desktop.screen = LateScreen(clock, at)  # type: ignore[assignment]
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    if last_sent is not None:
        performer._last_shot = (last_sent, b"")
    action = NextAction(
        replay_id="r", action_id="a-look0", attempt_id="t", not_after=1e12, server_now=0.0,
        action_type="screenshot_evidence", params={"seconds": WAIT_S, SCREEN_CHANGES_PARAM: True},
    )  # fmt: skip
    assert performer.execute(action)["executed"] is True
    return clock.now


def test_an_outcome_look_ends_soon_after_the_screen_changes() -> None:
    took = outcome_look(3.0)
    assert 3.0 <= took < 3.0 + LOOK_QUIET_S + 0.2


def test_an_outcome_already_drawn_since_the_step_s_screen_ends_the_look_at_once() -> None:
    # the banner came between the step's screen and the look: the screen is another than the one sent
    took = outcome_look(None, last_sent=frame(7))
    assert took < LOOK_QUIET_S + 0.2


def test_a_screen_that_never_changes_is_waited_for_up_to_the_limit() -> None:
    assert WAIT_S <= outcome_look(None, last_sent=frame(0)) < WAIT_S + 0.2
