"""A target recorded in its window follows that window when it moved or was resized on replay.

The demonstration keeps, beside a click's position (a fraction of the screen), the box of the window
it was made in (`window_box`, screen pixels) and the screen's size (`screen`). At replay the agent
reports its windows with their boxes; when the target's window (found by its title) now stands
elsewhere or has another size, the recorded position is carried into its new frame before the
search: kept at the same distance from the nearest edge of the window (a toolbar on the left, an OK
button on the right, a status bar at the bottom stay where the layout keeps them). The search regions
and the drift guard then work around that point instead of where the window used to be. A layout that
shares the window out instead (columns in proportion, a form centred) moves its controls in proportion
to the window's size: that point is kept too (`SCALED_KEY`), and the small first read looks there as well. A
page or a form laid out from the top left (a web page in a narrower, shorter window) keeps its controls at
their distance from the window's top-left corner whatever their place: in a resized window that point is kept
as well (`ANCHORED_KEY`); the searches look around it and the drift guard accepts a hit near either point.
A target with no recorded point (a record chosen by who it is, never where it was) is looked for in its
window's current frame (`WINDOW_KEY`), not across the whole screen. A page its agent scrolled to bring the target
into view moved its content by a measured number of pixels (`scrolled`): the points moved with it are looked at
as well (`SCROLLED_KEY`), beside the recorded ones (the page may have stood scrolled otherwise than in the
demonstration: the scroll then brought the target back to its recorded place).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rpa_mcp.replay.occlusion import StackedWindow
from rpa_mcp.replay.search_regions import ANCHORED_KEY, SCALED_KEY, SCROLLED_KEY, WINDOW_KEY
from rpa_mcp.vision.text_match import title_matches


def _box(value: Any) -> tuple[int, int, int, int] | None:
    if isinstance(value, list | tuple) and len(value) == 4 and all(isinstance(v, int | float) for v in value):
        x, y, w, h = (int(v) for v in value)
        return (x, y, w, h) if w > 0 and h > 0 else None
    return None


def _fraction(spec: Mapping[str, Any], *keys: str) -> float | None:
    for key in keys:
        value = spec.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value) / 100.0 if value > 1.0 else float(value)
    return None


def _along(offset: float, old: int, new: int) -> float:
    """An offset within a window's side of length `old`, kept from the nearest edge in a side of `new`."""
    offset = min(max(offset, 0.0), old - 1.0)
    return offset if offset <= old / 2 else new - (old - offset)


def in_window_frame(
    spec: Mapping[str, Any], windows: Sequence[StackedWindow], screen: tuple[int, int], scrolled: int = 0
) -> dict[str, Any]:
    """The spec with its recorded position moved into its window's current frame (unchanged when the
    window is not reported, did not move, or the demonstration did not say where it was); after its agent
    scrolled the content by `scrolled` pixels of this screen (down; up when negative), the points moved with it
    as well (`SCROLLED_KEY`)."""
    out = dict(spec)
    title = spec.get("window_title")
    now = (
        next((w.box for w in windows if w.box and w.title and title_matches(w.title, title)), None)
        if isinstance(title, str) and title
        else None
    )
    if now is None:
        return _scrolled(out, [], scrolled, screen)
    out[WINDOW_KEY] = list(now)
    size = spec.get("screen")
    recorded, then = _box(spec.get("window_box")), _box([0, 0, *size[:2]] if isinstance(size, list) else None)
    rx, ry = _fraction(spec, "rel_x", "x_pct"), _fraction(spec, "rel_y", "y_pct")
    if recorded is None or then is None or rx is None or ry is None or now == recorded:
        return _scrolled(out, [], scrolled, screen)
    px, py = rx * then[2], ry * then[3]
    wx, wy, ww, wh = recorded
    cx, cy, cw, ch = now
    nx, ny = cx + _along(px - wx, ww, cw), cy + _along(py - wy, wh, ch)
    width, height = screen
    out["rel_x"] = round(min(max(nx / width, 0.0), 1.0), 4)
    out["rel_y"] = round(min(max(ny / height, 0.0), 1.0), 4)
    sx, sy = cx + (px - wx) * cw / ww, cy + (py - wy) * ch / wh
    out[SCALED_KEY] = [round(min(max(sx / width, 0.0), 1.0), 4), round(min(max(sy / height, 0.0), 1.0), 4)]
    moved: list[tuple[float, float]] = []  # the top-left-anchored point, where a scroll took it
    if (cw, ch) != (ww, wh):  # resized: a page or a form laid out from the top left keeps its offsets there
        tx, ty = cx + min(max(px - wx, 0.0), cw - 1.0), cy + min(max(py - wy, 0.0), ch - 1.0)
        out[ANCHORED_KEY] = [round(min(max(tx / width, 0.0), 1.0), 4), round(min(max(ty / height, 0.0), 1.0), 4)]
        # after a scroll: moved with the content before it is kept inside the window (a control below a
        # shorter window's edge comes in where the scroll brought it)
        moved.append((tx, cy + min(max(py - wy + scrolled, 0.0), ch - 1.0)))
    out.pop("x_pct", None)
    out.pop("y_pct", None)
    out.pop("bbox", None)  # the recorded box is where the window used to be
    return _scrolled(out, moved, scrolled, screen)


def _scrolled(
    out: dict[str, Any], moved: list[tuple[float, float]], scrolled: int, screen: tuple[int, int]
) -> dict[str, Any]:
    """`out` with the points where the content its agent scrolled by `scrolled` pixels took the recorded point,
    and `moved` (pixels, already moved by it), added as `SCROLLED_KEY`; the recorded point stays (the page may have
    stood scrolled otherwise than in the demonstration)."""
    rx, ry = _fraction(out, "rel_x", "x_pct"), _fraction(out, "rel_y", "y_pct")
    if not scrolled or rx is None or ry is None:
        return out
    width, height = screen
    points = [(rx * width, ry * height + scrolled), *moved]
    out[SCROLLED_KEY] = [
        [round(min(max(x / width, 0.0), 1.0), 4), round(min(max(y / height, 0.0), 1.0), 4)] for x, y in points
    ]
    return out
