"""A target not in view is brought in by a bounded scroll, then resolved again.

Only a target the server found nowhere on the screen (`not_found`) is looked for this way: a rejected hit is
never scrolled away. The wheel turns at the recorded point (where the target was; moved inside the window in
front when that window is shorter), a bounded number of times, and stops early at the end of the content (the
screen did not change).

Where the platform tells what is under the pointer (`ScrollPort.checks_wheel`: the accessibility tree), any
target is looked for, one notch at a time (`MAX_NOTCHES` each way), each notch only where the element under the
pointer, and those the notch brings under it, are ones whose value a wheel never changes (text, a field, a
container, a list, a button: never a drop-down, a spin button, a slider or a tab strip, which a wheel turns):
down, then up from where it began. Elsewhere only a row of a list is (a record: `identity` in its spec, or a
recorded row, list item or cell), `STEP` notches at a time, down.

After each turn the content's shift is measured on the screen (`rpa_agent.core.shift`) and the server looks for
the target that much further (`content_shift_y`) as well as where it was recorded; its drift guard accepts a hit
near either.
Found: the action goes on from the scrolled screen and its result says how far it scrolled (`warning`). Not
found: the content is scrolled back as it was and the step is reported not resolved (the replay pauses); a
scroll changes no record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from rpa_agent.core.locate import Located, recorded_point, selects_a_record, spec_of
from rpa_agent.core.shift import vertical_shift
from rpa_agent.core.wire import NextAction
from rpa_agent.port import Frame

MAX_SCROLLS = 4  # turns of STEP notches down a list, where the wheel cannot be checked
STEP = 3  # wheel notches per unchecked turn
MAX_NOTCHES = 12  # checked notches each way
AHEAD_PX = 120  # looked at ahead of the pointer before the first notch (GTK, Qt, Chromium: 50-100 px a notch)
MAX_AHEAD_PX = 200
STRIDE_PX = 10  # between the points looked at ahead (a drop-down or a spin button is taller)
LIST_ROLES = frozenset({"dataitem", "listitem", "treeitem", "row", "tablerow", "cell", "tablecell", "gridcell"})
NOT_FOUND = frozenset({"not_found", "ocr_not_found"})
Direction = Literal["up", "down"]


class ScrollPort(Protocol):
    def scroll(self, x: int, y: int, direction: Direction, amount: int) -> None: ...

    def settled_png(self) -> bytes:
        """The screen once it stopped changing, as PNG."""
        ...

    def frame(self) -> Frame | None:
        """The screen now, raw (just after `settled_png`: the settled screen); None when not kept."""
        ...

    def front_box(self) -> tuple[int, int, int, int] | None:
        """The window in front's box on the screen (x, y, w, h); None when not known."""
        ...

    @property
    def checks_wheel(self) -> bool:
        """Whether `wheel_refusal` can tell what a wheel turned at a point lands on."""
        ...

    def wheel_refusal(self, x: int, y: int) -> str | None:
        """Why a wheel turned at (x, y) could change something else than the view (the element under it, or
        another window there); None when it only scrolls."""
        ...


@dataclass(frozen=True)
class Scrolled:
    found: Located
    scrolls: int  # how many times the wheel turned (0: not tried)
    png: bytes | None  # the screen the action goes on from (None: unchanged)
    notches: int = STEP  # per turn
    direction: Direction = "down"
    shift: int | None = None  # pixels the content moved down (None: not measured)

    @property
    def note(self) -> str | None:
        if not self.scrolls:
            return None
        moved = f" ({-self.shift if self.direction == 'down' else self.shift} px)" if self.shift else ""
        return f"scrolled {self.scrolls * self.notches} notch(es) {self.direction}{moved} to bring the target into view"


def in_a_list(spec: dict[str, Any]) -> bool:
    """A target chosen by its content in a list: a record, or a recorded row, list item or cell."""
    element = spec.get("element") if isinstance(spec.get("element"), dict) else {}
    role = re.sub(r"[\s_\-]+", "", str((element or {}).get("role") or "").lower())
    return selects_a_record(spec) or role in LIST_ROLES


def bring_into_view(
    port: ScrollPort,
    action: NextAction,
    first: Located,
    before: bytes,
    size: tuple[int, int],
    find: Callable[[bytes, int], Located],
) -> Scrolled:
    """Scroll at the recorded point until `find` locates the target on the screen (bounded); `find` is given
    the screen and how far the content moved down on it since `before` (pixels; 0 when not measured)."""
    point = recorded_point(action, size)
    if first.found or first.method not in NOT_FOUND or point is None:
        return Scrolled(first, 0, None)
    if port.checks_wheel:
        box = port.front_box()
        if box is None:
            return Scrolled(first, 0, None)
        wheel = _Wheel(port, within(point, box, AHEAD_PX), before, 1, checked=True)
        return (
            wheel.search("down", MAX_NOTCHES, find) or wheel.search("up", MAX_NOTCHES, find) or wheel.not_found(first)
        )
    if not in_a_list(spec_of(action)):
        return Scrolled(first, 0, None)
    wheel = _Wheel(port, point, before, STEP, checked=False)
    return wheel.search("down", MAX_SCROLLS, find) or wheel.not_found(first)


def within(point: tuple[int, int], box: tuple[int, int, int, int], margin: int) -> tuple[int, int]:
    """`point` moved inside `box`, `margin` from its top and bottom edges where it can (a window shorter than
    the demonstration's: the recorded point may lie below it), a few pixels from its sides."""
    x, y, w, h = box
    top, bottom = y + min(margin, h // 2), y + h - 1 - min(margin, h // 2)
    return min(max(point[0], x + min(8, w // 2)), x + w - 1 - min(8, w // 2)), min(max(point[1], top), bottom)


class _Wheel:
    """The wheel turned at one point: where the content went, and the way back."""

    def __init__(self, port: ScrollPort, point: tuple[int, int], home: bytes, notches: int, *, checked: bool) -> None:
        self.port, self.point, self.home, self.notches, self.checked = port, point, home, notches, checked
        self.turns = 0  # every turn made, either way
        self.why: str | None = None  # why the wheel stopped short (an element it would turn)
        self.last: Located | None = None
        self.notch_px = AHEAD_PX  # how far the last notch moved the content

    def search(self, direction: Direction, turns: int, find: Callable[[bytes, int], Located]) -> Scrolled | None:
        """Turn up to `turns` times `direction`, looking after each; the found target, else None (back home)."""
        if self.why is not None:
            return None
        previous, made = self.home, 0  # made: the turns that moved the content
        shift: int | None = 0
        for _ in range(turns):
            frame = self.port.frame()
            if not self._may_turn(direction):
                break
            self.port.scroll(*self.point, direction, self.notches)
            made += 1
            self.turns += 1
            png = self.port.settled_png()
            if png == previous:  # the end of the content: nothing moved
                made -= 1
                break
            previous = png
            now = self.port.frame()
            moved = vertical_shift(frame, now) if frame is not None and now is not None else None
            shift = shift + moved if moved is not None and shift is not None else None
            self.notch_px = min(abs(moved), MAX_AHEAD_PX) if moved else MAX_AHEAD_PX
            found = find(png, shift or 0)
            self.last = found
            if found.found:
                return Scrolled(found, made, png, self.notches, direction, shift)
        self._back(direction, made)
        return None

    def _may_turn(self, direction: Direction) -> bool:
        """Whether the wheel may turn a notch `direction`: what is under the pointer, and what the notch brings
        under it (the content a notch's length beyond, the way it comes from), only scrolls."""
        if not self.checked:
            return True
        x, y = self.point
        sign = 1 if direction == "down" else -1  # down: the content below comes up under the pointer
        for k in range(self.notch_px // STRIDE_PX + 1):
            why = self.port.wheel_refusal(x, y + sign * k * STRIDE_PX)
            if why is not None:
                self.why = why if k == 0 else f"{why} (coming under the pointer)"
                return False
        return True

    def _back(self, direction: Direction, made: int) -> None:
        """Undo `made` turns `direction`: at once when unchecked, else notch by notch, each checked, until the
        screen is the first one again."""
        if not made:
            return
        back: Direction = "up" if direction == "down" else "down"
        if not self.checked:
            self.port.scroll(*self.point, back, self.notches * made)
            self.port.settled_png()
            return
        for _ in range(made):
            why = self.port.wheel_refusal(*self.point)
            if why is not None:
                self.why = f"{why} (left scrolled: not scrolled back over it)"
                return
            self.port.scroll(*self.point, back, self.notches)
            self.turns += 1
            if self.port.settled_png() == self.home:
                return

    def not_found(self, first: Located) -> Scrolled:
        last = self.last or first
        stopped = f"; stopped: {self.why}" if self.why else ""
        reason: str | None = f"{last.reason or 'not found'} (and not in view after {self.turns} turn(s){stopped})"
        if not self.turns:
            reason = f"{first.reason or 'not found'} (not scrolled for: {self.why})" if self.why else first.reason
        return Scrolled(Located(None, None, last.method, reason), self.turns, None, self.notches)
