"""A target out of view is brought in by a bounded scroll; the wheel never turns over what it would change.

Without a way to tell what is under the pointer (`checks_wheel` false), only a list's row is scrolled to; with
one, any target is, one notch at a time, each notch checked, down then up; the content's shift is measured on
the screen and given to the server's search.
"""

from __future__ import annotations

from typing import Any, Literal

from rpa_agent.core.locate import Located
from rpa_agent.core.scrolling import MAX_NOTCHES, MAX_SCROLLS, STEP, bring_into_view
from rpa_agent.core.wire import NextAction, Target
from rpa_agent.port import Frame

SIZE = (1920, 1080)
ROW = {"label": "MOREL Jeanne", "element": {"role": "DataItem", "name": "MOREL Jeanne"}}
BUTTON = {"label": "Enregistrer", "element": {"role": "Button", "name": "Enregistrer"}}
NOT_FOUND = Located(None, None, "not_found", "no method found the target on this screen")


class FakeList:
    """A list whose rows show `page` by `page`; the target appears after `below` scrolls (None: never)."""

    checks_wheel = False

    def __init__(self, below: int | None, length: int = 10) -> None:
        self.below, self.length, self.offset = below, length, 0
        self.wheel: list[tuple[str, int]] = []

    def scroll(self, x: int, y: int, direction: Literal["up", "down"], amount: int) -> None:
        self.wheel.append((direction, amount))
        step = amount // STEP
        self.offset = max(0, min(self.length, self.offset + (step if direction == "down" else -step)))

    def settled_png(self) -> bytes:
        return f"screen-{self.offset}".encode()

    def frame(self) -> Frame | None:
        return None

    def wheel_refusal(self, x: int, y: int) -> str | None:
        raise AssertionError("never asked when the wheel cannot be checked")

    def find(self, png: bytes, shift: int) -> Located:
        return Located(700, 420, "hybrid_text_direct") if self.offset == self.below else NOT_FOUND


def action(spec: dict[str, Any], rel_y: float = 0.5) -> NextAction:
    return NextAction(
        replay_id="r", action_id="a", attempt_id="t", not_after=1e12, server_now=0.0, action_type="click_anchor",
        target=Target(label=spec.get("label"), rel_x=0.4, rel_y=rel_y, spec=spec),
    )  # fmt: skip


def test_a_row_below_the_visible_part_is_scrolled_into_view_and_found() -> None:
    rows = FakeList(below=2)
    seen = bring_into_view(rows, action(ROW), NOT_FOUND, b"screen-0", SIZE, rows.find)
    assert seen.found.found and seen.scrolls == 2 and seen.png == b"screen-2"
    assert rows.wheel == [("down", STEP), ("down", STEP)] and seen.note is not None


def test_a_row_nowhere_in_the_list_scrolls_back_and_stays_not_found() -> None:
    rows = FakeList(below=None)
    seen = bring_into_view(rows, action(ROW), NOT_FOUND, b"screen-0", SIZE, rows.find)
    assert not seen.found.found and seen.png is None and rows.offset == 0
    assert rows.wheel[:-1] == [("down", STEP)] * MAX_SCROLLS and rows.wheel[-1] == ("up", STEP * MAX_SCROLLS)


def test_the_end_of_the_list_stops_the_scrolling_early() -> None:
    rows = FakeList(below=None, length=1)
    seen = bring_into_view(rows, action(ROW), NOT_FOUND, b"screen-0", SIZE, rows.find)
    assert seen.scrolls == 2 and rows.offset == 0  # the second scroll moved nothing: the list ended
    assert rows.wheel == [("down", STEP), ("down", STEP), ("up", STEP)]  # back by what moved


def test_without_a_check_of_the_wheel_a_button_or_a_rejected_hit_is_never_scrolled_for() -> None:
    rows = FakeList(below=1)
    assert bring_into_view(rows, action(BUTTON), NOT_FOUND, b"screen-0", SIZE, rows.find).scrolls == 0
    drift = Located(None, None, "rejected_drift_hybrid_text_direct", "too far")
    assert bring_into_view(rows, action(ROW), drift, b"screen-0", SIZE, rows.find).scrolls == 0
    assert rows.wheel == []


WIDTH, VIEW, NOTCH = 32, 1080, 60  # a page seen through the whole screen's height; a notch moves it 60 px


class FakePage:
    """A page of `length` rows of pixels, each unlike the others, seen from row `offset`; `combos` are the rows a
    drop-down covers, `target` the row of the control looked for."""

    checks_wheel = True

    def __init__(self, target: int, *, length: int = 4000, offset: int = 0, combos: range = range(0)) -> None:
        self.target, self.length, self.offset, self.combos = target, length, offset, combos
        self.wheel: list[tuple[str, int, bool]] = []  # direction, notches, over a drop-down
        self.shifts: list[int] = []

    def scroll(self, x: int, y: int, direction: Literal["up", "down"], amount: int) -> None:
        self.wheel.append((direction, amount, self.offset + y in self.combos))
        moved = NOTCH * amount * (1 if direction == "down" else -1)
        self.offset = max(0, min(self.length - VIEW, self.offset + moved))

    def settled_png(self) -> bytes:
        return f"screen-{self.offset}".encode()

    def frame(self) -> Frame:
        rows = (((self.offset + y) * 7919).to_bytes(4, "big") * WIDTH for y in range(VIEW))
        return Frame(WIDTH, VIEW, b"".join(rows))

    def front_box(self) -> tuple[int, int, int, int]:
        return (0, 0, *SIZE)

    def wheel_refusal(self, x: int, y: int) -> str | None:
        return "the wheel would turn over a combo box" if self.offset + y in self.combos else None

    def find(self, png: bytes, shift: int) -> Located:
        self.shifts.append(shift)
        shown = self.offset <= self.target < self.offset + VIEW
        return Located(700, 420, "hybrid_text_direct") if shown else NOT_FOUND


def test_a_button_below_the_view_is_scrolled_to_one_checked_notch_at_a_time() -> None:
    page = FakePage(target=1200)
    seen = bring_into_view(page, action(BUTTON), NOT_FOUND, b"screen-0", SIZE, page.find)
    assert seen.found.found and seen.png == b"screen-180" and seen.direction == "down"
    assert page.wheel == [("down", 1, False)] * 3
    assert page.shifts == [-NOTCH, -2 * NOTCH, -3 * NOTCH] and seen.shift == -180  # the content moved up
    assert seen.note == "scrolled 3 notch(es) down (180 px) to bring the target into view"


def test_a_control_above_the_view_is_found_by_scrolling_up_once_down_reached_the_end() -> None:
    page = FakePage(target=800, length=2000, offset=920)  # the page already at its end
    seen = bring_into_view(page, action(BUTTON), NOT_FOUND, b"screen-920", SIZE, page.find)
    assert seen.found.found and seen.direction == "up" and seen.shift == 2 * NOTCH
    assert page.wheel == [("down", 1, False)] + [("up", 1, False)] * 2  # down moved nothing: nothing to undo


def test_the_wheel_stops_before_a_drop_down_comes_under_it_and_scrolls_back() -> None:
    page = FakePage(target=3000, combos=range(800, 830))  # the pointer at row 540: the drop-down 260 px below
    seen = bring_into_view(page, action(BUTTON), NOT_FOUND, b"screen-0", SIZE, page.find)
    assert not seen.found.found and seen.png is None and page.offset == 0
    assert not any(over for _, _, over in page.wheel)  # no notch ever turned over the drop-down
    assert page.wheel == [("down", 1, False)] * 4 + [("up", 1, False)] * 4
    assert seen.found.reason is not None and "combo box (coming under the pointer)" in seen.found.reason


def test_a_drop_down_under_the_pointer_from_the_start_is_never_scrolled_over() -> None:
    page = FakePage(target=3000, combos=range(530, 560))
    seen = bring_into_view(page, action(BUTTON), NOT_FOUND, b"screen-0", SIZE, page.find)
    assert page.wheel == [] and seen.scrolls == 0 and "not scrolled for" in str(seen.found.reason)


def test_a_control_nowhere_is_looked_for_a_bounded_way_each_way_and_the_page_left_as_it_was() -> None:
    page = FakePage(target=10_000, length=6000, offset=1500)
    seen = bring_into_view(page, action(BUTTON), NOT_FOUND, b"screen-1500", SIZE, page.find)
    assert not seen.found.found and page.offset == 1500
    downs = [w for w in page.wheel if w[0] == "down"]
    assert len(page.wheel) == 4 * MAX_NOTCHES and len(downs) == 2 * MAX_NOTCHES


def test_a_point_below_a_shorter_window_is_brought_into_it_before_the_wheel_turns() -> None:
    page = FakePage(target=1200)
    page.front_box = lambda: (0, 0, 1280, 400)  # type: ignore[method-assign]
    wheel_at: list[tuple[int, int]] = []
    scroll = page.scroll
    page.scroll = lambda x, y, d, a: (wheel_at.append((x, y)), scroll(x, y, d, a))  # type: ignore[method-assign]
    bring_into_view(page, action(BUTTON, rel_y=0.8), NOT_FOUND, b"screen-0", SIZE, page.find)
    assert wheel_at and all(x == 768 and y == 400 - 1 - 120 for x, y in wheel_at)


def test_a_rejected_hit_is_never_scrolled_away_even_where_the_wheel_is_checked() -> None:
    page = FakePage(target=1200)
    drift = Located(None, None, "rejected_drift_hybrid_text_direct", "too far")
    assert bring_into_view(page, action(BUTTON), drift, b"screen-0", SIZE, page.find).scrolls == 0
    assert page.wheel == []
