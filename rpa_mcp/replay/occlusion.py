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


def occluded(res: Resolution, windows: Sequence[StackedWindow], target_title: str | None) -> Resolution:
    """A resolution whose point another window covers becomes `resolved=false, method=window_occluded`."""
    if not res.resolved or res.x is None or res.y is None or not windows:
        return res
    window = covering((res.x, res.y), windows, target_title)
    if window is None:
        return res
    reason = occlusion_reason((res.x, res.y), window)
    tried = [*res.tried, {"method": METHOD, "x": res.x, "y": res.y, "accepted": False, "reason": reason}]
    return Resolution(False, None, None, METHOD, res.score, reason, res.from_memory, tried, res.elapsed_ms)
