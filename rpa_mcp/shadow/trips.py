"""Detours: a trip away from a screen that comes back to it without changing anything (SPEC §3.2).

A trip starts when the application changes, or when the window does by a window switch
(Alt+Tab); typing, pasting, saving or deleting on the way makes it no detour. It is abandoned
when the person is back in the application on another screen, or when it grows past
`MAX_TRIP_STEPS`. On a clean return to the very screen it left, the trip's steps fold into one
step of kind ``detour`` (suggested for removal, see `rpa_mcp.shadow.suggestions`).
"""

from __future__ import annotations

from rpa_mcp.shadow.elements import app_key, screen_title
from rpa_mcp.shadow.events import TraceEvent, normalize_keys
from rpa_mcp.shadow.segment import Context, Segment

MAX_TRIP_STEPS = 8  # a longer trip elsewhere is not called a detour
SWITCH_KEYS = frozenset({"alt+tab", "alt+shift+tab", "shift+alt+tab", "win+tab", "super+tab", "alt+escape"})
# Keys that change something: a trip that uses one is not a mere detour.
DIRTY_KEYS = frozenset({"ctrl+v", "ctrl+x", "ctrl+c", "ctrl+s", "ctrl+z", "ctrl+y", "delete", "ctrl+enter"})


def dirty(event: TraceEvent) -> bool:
    if event.type == "type" or (event.type == "key" and event.masked):
        return True
    return event.type == "key" and normalize_keys(event.keys or "") in DIRTY_KEYS


def follow_trip(
    segments: list[Segment],
    ctx: Context,
    seg: Segment | None,
    idx: int,
    event: TraceEvent,
    prev_window: str | None,
    prev_app: str | None,
    shot: str | None,
) -> int | None:
    """Track a trip away from a screen; on a clean return, fold the trip into one detour step (its position)."""
    event_app = app_key(event.app)  # None: the agent does not know the process of this window
    new_title = event.window_title or prev_window
    trip = ctx.trip
    if trip is None:
        if seg is None or not prev_window or not segments:
            return None
        other_app = bool(prev_app and event_app and event_app != app_key(prev_app))
        by_switch = seg.kind == "key" and seg.keys in SWITCH_KEYS
        switched = event.type == "focus" and by_switch and screen_title(new_title) != screen_title(prev_window)
        if other_app or switched:
            pos = len(segments) - 1
            ctx.trip = {
                "title": prev_window,
                "screen": screen_title(prev_window),
                "app": app_key(prev_app),
                "pos": pos,
                "clean": not segments[pos].typed and not dirty(event),
                "visited": new_title,
                "visited_app": event.app or prev_app,
                "shot_before": segments[pos].shot or shot,
            }
        return None
    if dirty(event):
        trip["clean"] = False
    same_screen = screen_title(new_title) == trip["screen"] and event_app in (None, trip["app"])
    if not same_screen:
        back_elsewhere = event_app is not None and event_app == trip["app"] != app_key(trip["visited_app"])
        if back_elsewhere or len(segments) - int(trip["pos"]) > MAX_TRIP_STEPS:
            ctx.trip = None  # back in the application on another screen: the trip changed something
        return None
    ctx.trip = None
    pos = int(trip["pos"])
    opened_here = seg is not None and seg.events == [idx] and event.type != "focus"
    end = len(segments) - 1 if opened_here else len(segments)
    if not trip["clean"] or not 0 <= pos < end or end - pos > MAX_TRIP_STEPS:
        return None
    folded = segments[pos:end]
    detour = Segment(
        events=sorted(i for s in folded for i in s.events),
        kind="detour",
        first_type="focus",
        closed=True,
        last_ts=max(s.last_ts for s in folded),
        window=trip["title"],
        app=trip["app"],
        detour={
            "visited": trip["visited"],
            "visited_app": trip["visited_app"],
            "back_to": trip["title"],
            "shot_before": trip["shot_before"],
        },
    )
    segments[pos:end] = [detour]
    return pos
