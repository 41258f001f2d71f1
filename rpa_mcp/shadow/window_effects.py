"""What a window change belongs to: the action before it, the click after it, or a step of its own.

- A focus change within `FOCUS_EFFECT_S` of a click or key is what that action did (its window
  after), not a step.
- So is a later change of a window of the same application, up to `LATE_EFFECT_S` after the
  action, with no input in between: a slow application opens or retitles its window while the
  person waits. Only the application can have changed it — a person's own window switch comes
  with a click or a key —, but not while a field is still being typed in (nothing was asked yet).
- A change reported up to `EARLY_EFFECT_S` *before* a click made in the window it left is that
  click's (a recorder that looks the clicked element up before sending the click sends the
  window change first); a late change given to the action before is taken back for it.
"""

from __future__ import annotations

from rpa_mcp.shadow.elements import app_key
from rpa_mcp.shadow.events import TraceEvent
from rpa_mcp.shadow.segment import Context, Segment, close

FOCUS_EFFECT_S = 2.5
LATE_EFFECT_S = 10.0  # as long as a person waits before a step is over (the segmenter's idle gap)
EARLY_EFFECT_S = 2.0  # a recorder may send a window change before the click that caused it (looked up slowly)


def effect_of(last: Segment, event: TraceEvent, ctx: Context) -> bool:
    """This window change is what the last action did: at once, or late in the same application."""
    if last.kind not in ("click", "key", "type") or ctx.last_ts is None:
        return False
    waited = event.ts - ctx.last_ts
    if not last.effect and waited <= FOCUS_EFFECT_S:
        return True
    if last.typing and last.submit is None and last.enter is None:
        return False  # a field still being typed in: nothing was asked of the application yet
    same_app = app_key(event.app) is not None and app_key(event.app) == app_key(ctx.app)
    return same_app and waited <= LATE_EFFECT_S


def attach_effect(last: Segment, idx: int, event: TraceEvent, ctx: Context) -> None:
    """Event `idx`, a window change, becomes the last action's effect; a late one stays claimable."""
    late = last.effect or event.ts - (ctx.last_ts or event.ts) > FOCUS_EFFECT_S
    late_effect = {"event": idx, "left": ctx.window, "at": event.ts, "effect_before": last.effect}
    last.late_effect = late_effect if late else None
    last.events.append(idx)
    last.effect = True
    close(last)


def early_effect(last: Segment | None, event: TraceEvent, ctx: Context) -> bool:
    """The focus step just before this click is the click's own effect, reported first."""
    return (
        last is not None
        and last.kind == "focus"
        and last.came_from is not None
        and event.window_title is not None
        and event.window_title == last.came_from
        and event.ts - last.last_ts <= EARLY_EFFECT_S
    )


def claims_late_effect(last: Segment, event: TraceEvent) -> bool:
    """This click, made in the window a late window change left, is what made that change (reported first)."""
    late = last.late_effect
    if late is None or not last.events or last.events[-1] != late["event"]:
        return False
    return (
        event.window_title is not None
        and event.window_title == late["left"]
        and event.ts - late["at"] <= EARLY_EFFECT_S
    )


def given_back(segments: list[Segment], last: Segment, ctx: Context) -> Segment:
    """Take the late window change back from the step it was given to: a focus step of its own again."""
    assert last.late_effect is not None
    late = last.late_effect
    last.events.pop()
    last.effect, last.late_effect = late["effect_before"], None
    seg = Segment(
        events=[late["event"]], kind="focus", first_type="focus", closed=True, window=ctx.window, app=last.app
    )
    seg.came_from, seg.last_ts = late["left"], late["at"]
    segments.append(seg)
    return seg
