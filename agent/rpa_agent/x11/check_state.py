"""A check box's state around a click, read so that a late reading says it is late.

The recorder reads a check box under the pointer when the button goes down; the application flips
it when the button comes up. Under load the answer can come after the release, when the box shows
the state after the click. So a press on a check box is handed over only once its release is seen:
the press reading is `late` when its answer came after the release (or either moment is unknown),
and the box is read again `RECHECK_AFTER_S` after the release (`checked_after`). The server takes
two readings that differ as sure, and asks the person first about anything else
(rpa_mcp.shadow.elements.checked_state).
"""

from __future__ import annotations

from dataclasses import replace

from rpa_agent.port import Element

RECHECK_AFTER_S = 0.3  # the application has flipped the box this long after the release


def read_late(answered: float | None, released: float | None) -> bool:
    """The press reading may be the state after the click: its answer came after the release (both on
    time.monotonic(); the release's moment is the earliest the X server can have stamped it)."""
    return answered is None or released is None or answered > released


def with_second_reading(element: Element, again: Element | None, *, late: bool) -> Element:
    """`element` as read at the press, with what that reading is worth and the state read again (the
    same control only: same role and name)."""
    same = again is not None and again.checked is not None and (again.role, again.name) == (element.role, element.name)
    return replace(element, checked_late=late, checked_after=again.checked if same and again else None)


def wait_before_reading_again(released: float | None, now: float) -> float:
    """Seconds to wait before the second reading (the whole delay when the release's moment is unknown)."""
    return RECHECK_AFTER_S if released is None else max(0.0, released + RECHECK_AFTER_S - now)
