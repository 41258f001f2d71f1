"""A row of a list that is not in view is brought in by a bounded scroll, then resolved again.

Only a target chosen by its content in a list (a record: `identity` in its spec, or a recorded row,
list item or cell) is looked for this way, and only when the server found it nowhere on the screen
(`not_found`): a rejected hit is never scrolled away. The wheel turns at the recorded point (where
the list was), `STEP` notches at a time, at most `MAX_SCROLLS` times, and stops early at the end of
the list (the screen did not change). Found: the action goes on from the scrolled screen and its
result says how far it scrolled (`warning`). Not found: the list is scrolled back as it was and the
step is reported not resolved (the replay pauses); a scroll changes no record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from rpa_agent.core.locate import Located, recorded_point, selects_a_record, spec_of
from rpa_agent.core.wire import NextAction

MAX_SCROLLS = 4
STEP = 3  # wheel notches per scroll
LIST_ROLES = frozenset({"dataitem", "listitem", "treeitem", "row", "tablerow", "cell", "tablecell", "gridcell"})
NOT_FOUND = frozenset({"not_found", "ocr_not_found"})


class ScrollPort(Protocol):
    def scroll(self, x: int, y: int, direction: Literal["up", "down"], amount: int) -> None: ...

    def settled_png(self) -> bytes:
        """The screen once it stopped changing, as PNG."""
        ...


@dataclass(frozen=True)
class Scrolled:
    found: Located
    scrolls: int  # how many times the wheel turned (0: not tried)
    png: bytes | None  # the screen the action goes on from (None: unchanged)

    @property
    def note(self) -> str | None:
        return f"scrolled {self.scrolls * STEP} notch(es) down to bring the target into view" if self.scrolls else None


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
    find: Callable[[bytes], Located],
) -> Scrolled:
    """Scroll the list at the recorded point until `find` locates the target on the screen (bounded)."""
    point = recorded_point(action, size)
    spec = spec_of(action)
    if first.found or first.method not in NOT_FOUND or point is None or not in_a_list(spec):
        return Scrolled(first, 0, None)
    previous, found, scrolls = before, first, 0
    for _ in range(MAX_SCROLLS):
        port.scroll(*point, "down", STEP)
        scrolls += 1
        png = port.settled_png()
        if png == previous:  # the end of the list: nothing moved
            break
        previous = png
        found = find(png)
        if found.found:
            return Scrolled(found, scrolls, png)
    port.scroll(*point, "up", STEP * scrolls)  # as it was: the step is not resolved
    port.settled_png()
    reason = f"{found.reason or 'not found'} (and not in the {scrolls} screen(s) below it: scrolled back)"
    return Scrolled(Located(None, None, found.method, reason), scrolls, None)
