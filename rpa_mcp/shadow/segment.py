"""A step in the making (`Segment`) and what the segmenter remembers between events (`Context`).

Both are plain data (`to_dict` / `from_dict`): the observer persists them after every event,
so a restart resumes exactly where it was; fields added later default when an older state is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Segment:
    """A step in the making: its events (session indexes), how they were grouped, what the person said."""

    events: list[int]
    kind: str  # click | type | key | scroll | focus | detour
    first_type: str = ""  # click steps: the effective click (click, double_click, right_click; "" = none left)
    closed: bool = False
    typed: bool = False
    effect: bool = False  # a window change was attached as this action's effect
    # a window change attached late (`shadow.window_effects`): {"event", "left", "at", "effect_before"}
    late_effect: dict[str, Any] | None = None
    status: str = "proposed"  # proposed | validated | corrected
    intent: str | None = None  # set by a correction
    last_ts: float = 0.0
    updated_at: float = 0.0
    element: str | None = None  # key of the element clicked (see elements.element_key)
    role: str = ""  # folded role of that element
    point: list[int] | None = None  # last click position, screen pixels
    window: str | None = None  # window title when the step began
    app: str | None = None  # its application (process key)
    into: str | None = None  # typing: key of the field typed into
    multiline: bool | None = None  # typing: the field holds several lines (None: unknown)
    base_type: str = ""  # click type before a context menu was opened on the element
    menu: bool = False  # a context menu this step opened is still open
    popup: bool = False  # a drop-down this step opened is still open: the next click chooses its option
    choice: int | None = None  # the click (or, `keyed`, the Enter) that chose the drop-down's option
    keyed: bool = False  # the open list was driven by the arrow keys
    nav: bool = False  # a key step made of Tab presses only (keyboard navigation)
    keys: str = ""  # key steps: the combo pressed
    came_from: str | None = None  # focus steps: the window title before the change
    shot: str | None = None  # the screenshot of the screen just before the step began
    enter: int | None = None  # an Enter not yet known to be a line break or a submit
    newlines: list[int] = field(default_factory=list)  # Enter keys that were line breaks
    submit: int | None = None  # the key event that submitted the typing
    submit_keys: str = ""  # ... and its keys (enter, tab)
    collapsed: int = 0  # events folded in as noise
    detour: dict[str, Any] | None = None  # {"visited", "visited_app", "back_to", "app", "shot_before"}
    parameter: dict[str, Any] | None = None  # {"name", "description"}: set by the parameterize feedback
    step_class: str | None = None  # navigation | input | irreversible: set by the set_class feedback
    uncheckable: bool = False  # a person declared its outcome cannot be checked on screen
    # the step's post-condition set by feedback: {"kind", "text", "source": "person"}; {} = none (cleared)
    outcome: dict[str, Any] | None = None
    retarget: dict[str, Any] | None = None  # another element a person named (shadow.retarget)
    value: dict[str, Any] | None = None  # {"text"|"option"|"checked": ...} set by the set_value feedback
    # a person validated this step by its index: a record it chooses by part of who it is is theirs to accept
    record_confirmed: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in _SEGMENT_FIELDS:
            value = getattr(self, f)
            out[f] = list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Segment:
        return cls(**{k: v for k, v in data.items() if k in _KNOWN_FIELDS})

    @property
    def typing(self) -> bool:
        return self.typed and self.kind in ("type", "click")


_SEGMENT_FIELDS = tuple(Segment.__dataclass_fields__)
_KNOWN_FIELDS = frozenset(_SEGMENT_FIELDS)


@dataclass
class Context:
    """What the segmenter remembers between events."""

    last_ts: float | None = None
    window: str | None = None
    app: str | None = None
    apps_seen: list[str] = field(default_factory=list)
    trip: dict[str, Any] | None = None  # a trip away from a screen: {"title", "app", "pos", "clean", ...}

    def to_dict(self) -> dict[str, Any]:
        return {
            "last_ts": self.last_ts,
            "window": self.window,
            "app": self.app,
            "apps_seen": list(self.apps_seen),
            "trip": dict(self.trip) if self.trip else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Context:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def close(seg: Segment) -> None:
    """Close a step; an Enter still undecided was its submit."""
    seg.closed = True
    if seg.enter is not None:
        seg.submit, seg.submit_keys, seg.enter = seg.enter, "enter", None
