"""A target covered by another window is never clicked (failure category WINDOW_OCCLUDED).

The agent reports the windows on screen, top-most first, each with its box in screen pixels. The
target's point belongs to the target's window (its recorded title, templated with the run's
parameters). When the top-most window over that point is another one, the click would land in it:
the resolution is refused with `method=window_occluded`, naming the covering window, and the
replay pauses (a person, or a declared raise of the workflow's own window, brings it back).

A window without a title (a drop-down's list, a menu, a tooltip) never counts as covering: it is
the application's own pop-up. Without the target's window title, without boxes, or when no reported
window is the target's (its title changed), nothing is said.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rpa_mcp.replay.resolve import Resolution
from rpa_mcp.vision.text_match import title_matches

OCCLUDED = "WINDOW_OCCLUDED"
METHOD = "window_occluded"
NOT_FOUND = ("not_found", "ocr_not_found")  # what a search that saw no such label answers


@dataclass(frozen=True)
class StackedWindow:
    """A window as the agent reports it: title, process and box [x, y, w, h] (screen pixels)."""

    title: str | None
    process: str | None
    box: tuple[int, int, int, int] | None

    def holds(self, x: int, y: int) -> bool:
        if self.box is None:
            return False
        bx, by, bw, bh = self.box
        return bx <= x < bx + bw and by <= y < by + bh

    def named(self) -> str:
        title = (self.title or "").strip() or "?"
        return f"'{title}' ({self.process})" if self.process else f"'{title}'"


def covering(
    point: tuple[int, int], windows: Sequence[StackedWindow], target_title: str | None
) -> StackedWindow | None:
    """The window that covers the target's point, None when the target's own window is on top there (or
    when the target's window is not among those reported: then nothing can be said)."""
    if not target_title or not target_title.strip():
        return None
    own = [w for w in windows if w.title and title_matches(w.title, target_title)]
    if not any(w.holds(*point) for w in own):
        return None
    for window in windows:  # top-most first
        if not window.holds(*point) or not (window.title or "").strip():
            continue  # elsewhere, or a pop-up of the application itself (list, menu): not a window over it
        return None if window in own else window
    return None


def occlusion_reason(point: tuple[int, int], window: StackedWindow) -> str:
    return f"{OCCLUDED}: the target at {point} is covered by the window {window.named()}; it is not clicked"


def occluded(
    res: Resolution,
    windows: Sequence[StackedWindow],
    target_title: str | None,
    recorded: tuple[int, int] | None = None,
) -> Resolution:
    """A resolution whose point another window covers becomes `resolved=false, method=window_occluded`; so does
    a target found nowhere whose `recorded` point (in its window's frame now) another window covers: hidden under
    it, not missing."""
    if not windows:
        return res
    point = (res.x, res.y) if res.resolved and res.x is not None and res.y is not None else None
    if point is None and (res.resolved or recorded is None or not res.method.startswith(NOT_FOUND)):
        return res
    point = point or recorded
    assert point is not None
    window = covering(point, windows, target_title)
    if window is None:
        return res
    reason = occlusion_reason(point, window)
    tried = [*res.tried, {"method": METHOD, "x": point[0], "y": point[1], "accepted": False, "reason": reason}]
    return Resolution(False, None, None, METHOD, res.score, reason, res.from_memory, tried, res.elapsed_ms)
