"""A row of a list out of view is brought in by a bounded scroll; nothing else is ever scrolled."""

from __future__ import annotations

from typing import Any, Literal

from rpa_agent.core.locate import Located
from rpa_agent.core.scrolling import MAX_SCROLLS, STEP, bring_into_view
from rpa_agent.core.wire import NextAction, Target

SIZE = (1920, 1080)
ROW = {"label": "MOREL Jeanne", "element": {"role": "DataItem", "name": "MOREL Jeanne"}}
NOT_FOUND = Located(None, None, "not_found", "no method found the target on this screen")


class FakeList:
    """A list whose rows show `page` by `page`; the target appears after `below` scrolls (None: never)."""

    def __init__(self, below: int | None, length: int = 10) -> None:
        self.below, self.length, self.offset = below, length, 0
        self.wheel: list[tuple[str, int]] = []

    def scroll(self, x: int, y: int, direction: Literal["up", "down"], amount: int) -> None:
        self.wheel.append((direction, amount))
        step = amount // STEP
        self.offset = max(0, min(self.length, self.offset + (step if direction == "down" else -step)))

    def settled_png(self) -> bytes:
        return f"screen-{self.offset}".encode()

    def find(self, png: bytes) -> Located:
        return Located(700, 420, "hybrid_text_direct") if self.offset == self.below else NOT_FOUND


def action(spec: dict[str, Any]) -> NextAction:
    return NextAction(
        replay_id="r", action_id="a", attempt_id="t", not_after=1e12, server_now=0.0, action_type="click_anchor",
        target=Target(label=spec.get("label"), rel_x=0.4, rel_y=0.5, spec=spec),
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


def test_a_button_or_a_rejected_hit_is_never_scrolled_for() -> None:
    rows = FakeList(below=1)
    button = {"label": "Valider", "element": {"role": "Button", "name": "Valider"}}
    assert bring_into_view(rows, action(button), NOT_FOUND, b"screen-0", SIZE, rows.find).scrolls == 0
    drift = Located(None, None, "rejected_drift_hybrid_text_direct", "too far")
    assert bring_into_view(rows, action(ROW), drift, b"screen-0", SIZE, rows.find).scrolls == 0
    assert rows.wheel == []
