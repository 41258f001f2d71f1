"""Incremental segmentation of a session's events into steps (SPEC §3.2).

A new step begins at a focus change to another window/app, at a click (so a click after
typing too), at Enter/Tab that submits typed text, at a command such as ``ctrl+s``, and
after an idle gap. A focus change that follows a click or a key within a moment is that
action's effect (its window after), not a step of its own. A click followed by typing
is one "type text in <field>" step; so are masked keystrokes (see `rpa_mcp.shadow.masking`).

The state is plain data (`Segment.to_dict`) so the observer can persist it after every
event: a restart resumes exactly where it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.shadow.events import CLICK_TYPES, TraceEvent, normalize_keys

IDLE_GAP_S = 10.0
FOCUS_EFFECT_S = 2.5
SUBMIT_KEYS = frozenset({"enter", "tab", "shift+tab", "numpadenter"})
EDIT_KEYS = frozenset(
    {"backspace", "delete", "left", "right", "up", "down", "home", "end", "space", "shift", "capslock"}
    | {"shift+left", "shift+right", "shift+home", "shift+end", "ctrl+left", "ctrl+right", "ctrl+backspace"}
)


@dataclass
class Segment:
    """A step in the making: its events (session indexes) and what the person said about it."""

    events: list[int]
    kind: str  # click | type | key | scroll | focus
    first_type: str = ""  # the event type that opened it (click, double_click, right_click, ...)
    closed: bool = False
    typed: bool = False
    effect: bool = False  # a window change was attached as this action's effect
    status: str = "proposed"  # proposed | validated | corrected
    intent: str | None = None  # set by a correction
    last_ts: float = 0.0
    updated_at: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {f: (list(v) if isinstance(v := getattr(self, f), list) else v) for f in _SEGMENT_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Segment:
        return cls(**data)


_SEGMENT_FIELDS = tuple(Segment.__dataclass_fields__)


@dataclass
class Context:
    """What the segmenter remembers between events."""

    last_ts: float | None = None
    window: str | None = None
    app: str | None = None
    apps_seen: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"last_ts": self.last_ts, "window": self.window, "app": self.app, "apps_seen": list(self.apps_seen)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Context:
        return cls(**data)


def place(
    segments: list[Segment], ctx: Context, idx: int, event: TraceEvent, *, now: float, idle_gap_s: float = IDLE_GAP_S
) -> Segment | None:
    """Put event `idx` into the segments; returns the segment it went to (None: not a step event)."""
    last = segments[-1] if segments else None
    current = last if last is not None and not last.closed else None
    if current is not None and ctx.last_ts is not None and event.ts - ctx.last_ts > idle_gap_s:
        current.closed = True
        current = None
    seg = _place(segments, ctx, last, current, idx, event)
    if seg is not None:
        seg.last_ts = event.ts
        seg.updated_at = now
    if event.type != "screenshot":
        ctx.last_ts = event.ts
    if event.window_title is not None or event.app is not None:
        ctx.window = event.window_title if event.window_title is not None else ctx.window
        ctx.app = event.app if event.app is not None else ctx.app
        if event.app and _app_key(event.app) not in ctx.apps_seen:
            ctx.apps_seen.append(_app_key(event.app))
    return seg


def _new(
    segments: list[Segment], current: Segment | None, idx: int, event: TraceEvent, kind: str, *, closed: bool = False
) -> Segment:
    if current is not None:
        current.closed = True
    seg = Segment(events=[idx], kind=kind, first_type=event.type, closed=closed)
    segments.append(seg)
    return seg


def _place(
    segments: list[Segment], ctx: Context, last: Segment | None, current: Segment | None, idx: int, event: TraceEvent
) -> Segment | None:
    kind = "type" if event.type == "key" and event.masked else event.type  # a masked keystroke types a character
    if kind == "screenshot":
        return None
    if kind == "focus":
        same = (event.window_title or ctx.window) == ctx.window and (event.app or ctx.app) == ctx.app
        if same:
            if current is not None:
                current.events.append(idx)
            return current
        if (
            last is not None
            and last.kind in ("click", "key", "type")
            and not last.effect
            and ctx.last_ts is not None
            and event.ts - ctx.last_ts <= FOCUS_EFFECT_S
        ):
            last.events.append(idx)  # the window change is what the action did
            last.effect = True
            last.closed = True
            return last
        return _new(segments, current, idx, event, "focus")
    if kind in CLICK_TYPES:
        return _new(segments, current, idx, event, "click")
    if kind == "type":
        if current is not None and (current.kind == "type" or (current.kind == "click" and _single_click(current))):
            current.events.append(idx)
            current.typed = True
            return current
        seg = _new(segments, current, idx, event, "type")
        seg.typed = True
        return seg
    if kind == "key":
        keys = normalize_keys(event.keys or "")
        typing = current is not None and current.typed
        if keys in SUBMIT_KEYS:
            if typing and current is not None:
                current.events.append(idx)
                current.closed = True
                return current
            return _new(segments, current, idx, event, "key", closed=True)
        if typing and current is not None and (keys in EDIT_KEYS or (len(keys) == 1)):
            current.events.append(idx)
            return current
        return _new(segments, current, idx, event, "key", closed=True)
    if kind == "scroll":
        if current is not None and current.kind == "scroll":
            current.events.append(idx)
            return current
        return _new(segments, current, idx, event, "scroll")
    return None  # pragma: no cover - EventType is closed


def _single_click(seg: Segment) -> bool:
    """Typing after a plain click goes into the clicked field (not after a right/double click)."""
    return seg.kind == "click" and not seg.effect and seg.first_type == "click"


def _app_key(app: str) -> str:
    name = app.strip().lower().rsplit("\\", 1)[-1]
    return name[:-4] if name.endswith(".exe") else name
