"""Detours: a trip away from a screen that comes back to it without changing anything.

A trip starts when the application changes, or when the window does by a window switch
(Alt+Tab); typing, pasting, saving or deleting on the way makes it no detour. It is abandoned
when the person is back in the application on another screen, or when it grows past
`MAX_TRIP_STEPS`. On a clean return to the very screen it left, the trip's steps fold into one
step of kind ``detour`` (suggested for removal, see `rpa_mcp.shadow.suggestions`).

A change to another window of the same application (another tab of a browser, a window the
application opened) is a trip only if the person comes back by a window switch: Alt+Tab, or a click
on what names the window left (a browser's tab, a taskbar button: its title, or the title's start
before the application's own name). Coming back any other way (a dialog closed by its button, a
page's own link) is the application's doing, never suggested for removal.
"""

from __future__ import annotations

from rpa_mcp.shadow.elements import app_key, screen_title
from rpa_mcp.shadow.events import TraceEvent, normalize_keys
from rpa_mcp.shadow.segment import Context, Segment

MAX_TRIP_STEPS = 8  # a longer trip elsewhere is not called a detour
SWITCH_KEYS = frozenset({"alt+tab", "alt+shift+tab", "shift+alt+tab", "win+tab", "super+tab", "alt+escape"})
# Keys that change something: a trip that uses one is not a mere detour.
DIRTY_KEYS = frozenset({"ctrl+v", "ctrl+x", "ctrl+c", "ctrl+s", "ctrl+z", "ctrl+y", "delete", "ctrl+enter"})
TITLE_SEPARATORS = (" - ", " — ", " – ", " | ")  # between a window's own title and its application's name


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
    start = _start(segments, seg, event, prev_window, prev_app) if trip is None or trip.get("switch_back") else None
    if trip is not None and start == "window":
        start = None  # on from one window of the application to another: the same trip, maybe coming back
    if start is not None:  # a trip elsewhere replaces one within the application not yet known to be a trip
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
            "switch_back": start == "window",
        }
        return None
    if trip is None:
        return None
    if dirty(event):
        if trip.get("switch_back"):
            ctx.trip = None  # changed something in the application: no detour to wait for
            return None
        trip["clean"] = False
    same_screen = screen_title(new_title) == trip["screen"] and event_app in (None, trip["app"])
    if not same_screen:
        back_elsewhere = event_app is not None and event_app == trip["app"] != app_key(trip["visited_app"])
        if back_elsewhere or len(segments) - int(trip["pos"]) > MAX_TRIP_STEPS:
            ctx.trip = None  # back in the application on another screen: the trip changed something
        return None
    ctx.trip = None
    if trip.get("switch_back") and not switched_back(seg, str(trip["screen"])):
        return None  # back by the application's doing (a dialog closed, a link): its steps are the task's
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


def _start(
    segments: list[Segment], seg: Segment | None, event: TraceEvent, prev_window: str | None, prev_app: str | None
) -> str | None:
    """What starts a trip at this event: "app" (another application), "switch" (Alt+Tab to another window),
    "window" (another window of the same application: a trip only if the person switches back); else None."""
    if seg is None or not prev_window or not segments:
        return None
    event_app = app_key(event.app)
    if prev_app and event_app and event_app != app_key(prev_app):
        return "app"
    new_title = event.window_title or prev_window
    if event.type != "focus" or screen_title(new_title) == screen_title(prev_window):
        return None
    return "switch" if seg.kind == "key" and seg.keys in SWITCH_KEYS else "window"


def switched_back(seg: Segment | None, screen: str) -> bool:
    """The step that brought `screen` (a folded window title) back is a window switch: Alt+Tab, or a click on
    what names that window: its title, or the title's start before the application's name ("Dossier" of
    "Dossier - Navigateur")."""
    if seg is None:
        return False
    if seg.kind == "key":
        return seg.keys in SWITCH_KEYS
    if seg.kind != "click" or not seg.element:
        return False
    name = seg.element.split("|", 2)[2]
    return bool(name) and (screen == name or any(screen.startswith(name + sep) for sep in TITLE_SEPARATORS))
