"""The wait for the screen to settle after an input: it ends once the screen is still, never before.

A fake clock moves only when the performer sleeps; the screen shows what a script says at each moment.
"""

from __future__ import annotations

from rpa_agent.core.choices import DesktopChoices
from rpa_agent.core.perform import SETTLE_MAX_S, SETTLE_MIN_S, Performer
from rpa_agent.core.wire import NextAction, Target
from rpa_agent.port import Frame

from .fakes import SIZE, Clock, FakeDesktop, FakeHttp, FakeServer

QUIET = 0.3


class ScriptedScreen:
    """Shows frame n from the n-th moment of `changes` on (seconds after the input)."""

    def __init__(self, clock: Clock, changes: list[float]) -> None:
        self.clock, self.changes = clock, changes

    def size(self) -> tuple[int, int]:
        return SIZE

    def grab(self) -> Frame:
        shown = sum(self.clock.now >= at for at in self.changes)
        return Frame(SIZE[0], SIZE[1], bytes([shown]) * (SIZE[0] * SIZE[1] * 4))

    def png(self, frame: Frame) -> bytes:
        return b""


def settle(changes: list[float], *, before: int | None = None) -> tuple[float, int]:
    """How long the wait took, and which frame it returned; `before`: the frame shown just before the input."""
    clock = Clock()
    desktop = FakeDesktop()
    desktop.screen = ScriptedScreen(clock, changes)  # type: ignore[assignment]
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    since = None if before is None else Frame(SIZE[0], SIZE[1], bytes([before]) * (SIZE[0] * SIZE[1] * 4))
    frame, _ = performer._settle(QUIET, since=since)
    return clock.now, frame.pixels[0]


def test_a_screen_that_changed_then_stayed_still_ends_the_wait_after_the_quiet_time_not_a_fixed_delay() -> None:
    took, shown = settle([0.02])
    assert shown == 1
    assert QUIET <= took < SETTLE_MIN_S + QUIET  # before, at least SETTLE_MIN_S then QUIET


def test_a_screen_that_never_changed_is_waited_for_the_application_to_begin_reacting() -> None:
    took, shown = settle([])
    assert shown == 0
    assert took >= SETTLE_MIN_S + QUIET


def test_a_late_reaction_within_the_first_wait_is_seen() -> None:
    took, shown = settle([SETTLE_MIN_S + QUIET - 0.05])
    assert shown == 1
    assert took >= SETTLE_MIN_S + QUIET - 0.05 + QUIET


def test_a_change_during_the_quiet_time_starts_it_again() -> None:
    took, shown = settle([0.02, 0.25])
    assert shown == 2
    assert took >= 0.25 + QUIET


def test_a_screen_that_never_stays_still_is_waited_for_at_most_the_limit() -> None:
    took, shown = settle([n * 0.03 for n in range(200)])
    assert SETTLE_MAX_S <= took < SETTLE_MAX_S + 0.1
    assert shown > 0


def test_a_screen_that_reacted_before_the_first_look_ends_the_wait_after_the_quiet_time() -> None:
    took, shown = settle([0.0], before=0)  # already unlike the frame grabbed just before the input
    assert shown == 1
    assert QUIET <= took < SETTLE_MIN_S + QUIET


def test_a_screen_like_the_one_before_the_input_is_given_time_to_react() -> None:
    took, shown = settle([], before=0)
    assert shown == 0
    assert took >= SETTLE_MIN_S + QUIET


def test_a_look_with_no_input_waits_the_quiet_time_only() -> None:
    # a look (no input made) has nothing to begin reacting to: a still screen for the quiet time is enough
    clock = Clock()
    desktop = FakeDesktop()
    desktop.screen = ScriptedScreen(clock, [])  # type: ignore[assignment]
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    look = NextAction(
        replay_id="r", action_id="a", attempt_id="t", not_after=1e12, server_now=0.0,
        action_type="screenshot_evidence", params={},
    )  # fmt: skip
    result = performer.execute(look)
    assert result["executed"] is True
    assert 0.3 <= clock.now < SETTLE_MIN_S + 0.3  # before: SETTLE_MIN_S then the quiet time, as after an input


def test_a_control_that_reacted_before_the_first_look_is_waited_for_the_quiet_time_only() -> None:
    # a box ticked (a list opened) at once: the screen unlike the one grabbed just before the click has reacted
    clock = Clock()
    desktop = FakeDesktop()  # its screen changes with each input
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    controls = DesktopChoices(desktop, performer.http, "PC-1", performer._settled_png)
    controls.click(10, 20)
    controls.settled_png()
    assert 0.2 <= clock.now < SETTLE_MIN_S + 0.2  # before: SETTLE_MIN_S then the quiet time, reaction or not


def look_with_a_wait(changes: list[float], seconds: float) -> float:
    clock = Clock()
    desktop = FakeDesktop()
    desktop.screen = ScriptedScreen(clock, changes)  # type: ignore[assignment]
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    look = NextAction(
        replay_id="r", action_id="a", attempt_id="t", not_after=1e12, server_now=0.0,
        action_type="screenshot_evidence", params={"duration_s": seconds},
    )  # fmt: skip
    assert performer.execute(look)["executed"] is True
    return clock.now


def test_a_look_s_quiet_time_is_the_end_of_its_wait_not_added_to_it() -> None:
    # the closing look's wait (a dialog that comes late is seen): the screen watched still at its end
    assert 1.0 <= look_with_a_wait([], 1.0) < 1.0 + 0.1


def test_a_change_at_the_end_of_a_look_s_wait_is_waited_for_the_quiet_time() -> None:
    assert look_with_a_wait([0.9], 1.0) >= 0.9 + QUIET


class BlinkingCaret:
    """The screen changes once at `changed_at` (the input's reaction), then a text caret 2 px wide and
    12 px tall blinks every `every` seconds, for ever, as a focused field's does."""

    def __init__(self, clock: Clock, changed_at: float, every: float) -> None:
        self.clock, self.changed_at, self.every = clock, changed_at, every

    def size(self) -> tuple[int, int]:
        return SIZE

    def grab(self) -> Frame:
        width, height = SIZE
        pixels = bytearray(bytes([1 if self.clock.now >= self.changed_at else 0]) * (width * height * 4))
        if self.clock.now >= self.changed_at and int((self.clock.now - self.changed_at) / self.every) % 2 == 0:
            for y in range(20, 32):
                pixels[(y * width + 30) * 4 : (y * width + 32) * 4] = b"\xff" * 8
        return Frame(width, height, bytes(pixels))

    def png(self, frame: Frame) -> bytes:
        return b""


def test_a_blinking_caret_does_not_keep_the_wait_going() -> None:
    # a field typed in keeps its caret blinking: before, each blink started the quiet time again
    clock = Clock()
    desktop = FakeDesktop()
    desktop.screen = BlinkingCaret(clock, changed_at=0.02, every=0.25)  # type: ignore[assignment]
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    frame, _ = performer._settle(QUIET)
    assert frame.pixels[0] == 1  # the reaction is in the frame returned
    assert QUIET <= clock.now < SETTLE_MIN_S + QUIET


def test_a_change_after_the_caret_blinked_starts_the_quiet_time_again() -> None:
    clock = Clock()
    desktop = FakeDesktop()
    blinking = BlinkingCaret(clock, changed_at=0.02, every=0.1)
    later = 0.25  # a dialog drawn late, over the whole screen

    def grab() -> Frame:
        frame = BlinkingCaret.grab(blinking)
        if clock.now < later:
            return frame
        return Frame(frame.width, frame.height, bytes([7]) * len(frame.pixels))

    blinking.grab = grab  # type: ignore[method-assign]
    desktop.screen = blinking  # type: ignore[assignment]
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    frame, _ = performer._settle(QUIET)
    assert frame.pixels[0] == 7
    assert clock.now >= later + QUIET


def test_a_box_read_on_the_still_screen_after_its_click_is_not_waited_for_again() -> None:
    # no accessibility tree: the box's state is read on the screen once still after the click; the step's
    # own wait then counts the quiet time from that still screen, not from after the server's reading
    from .test_perform_controls import BOX, FOUND, Server

    clock = Clock()
    desktop = FakeDesktop()  # no element under the box: its state is read on the screen
    server = Server(FOUND | dict(zip("xy", BOX, strict=True)), FOUND | {"checked": False}, FOUND | {"checked": True})
    performer = Performer(
        desktop, FakeHttp(server), machine_id="PC-1", say=lambda _s: None, sleep=clock.sleep, clock=clock
    )
    step = NextAction(
        replay_id="r", action_id="a", attempt_id="t", not_after=1e12, server_now=0.0, action_type="set_checked",
        target=Target(label="Urgent"), params={"checked": True},
    )  # fmt: skip
    result = performer.execute(step)
    assert result["success"] is True and result["output"] == {"checked": True}
    assert QUIET <= clock.now < 0.2 + QUIET  # before: the state's own quiet time (0.2 s), then QUIET again
