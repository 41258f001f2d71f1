"""Events streamed by the desktop agent, validated into `TraceEvent`.

Unknown fields are kept (an agent newer than this server may send more); known fields are
checked and a bad one is refused with `InvalidInput` naming it (``events[2].x``).

`ts` is accepted as epoch seconds, epoch milliseconds or an ISO-8601 string with a zone
(``2026-11-29T22:09:56.806Z``, what a JavaScript or .NET agent sends) and stored as epoch
seconds; NaN, infinities, a string without a zone and dates outside 2000–2100 are refused.

Typing into a password field (or one flagged secret) is masked before it is stored: see
`rpa_mcp.shadow.masking` for the rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from rpa_mcp.errors import InvalidInput

EventType = Literal["click", "double_click", "right_click", "key", "type", "scroll", "focus", "screenshot"]
CLICK_TYPES = frozenset({"click", "double_click", "right_click"})
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$"
MAX_BATCH = 500
TS_MIN = 946_684_800.0  # 2000-01-01T00:00:00Z
TS_MAX = 4_102_444_800.0  # 2100-01-01T00:00:00Z


def epoch_seconds(value: Any) -> float:
    """An event time as epoch seconds: epoch seconds, epoch milliseconds, or ISO-8601 with a zone.

    Seconds and milliseconds are told apart by magnitude: within 2000–2100 the two ranges do
    not overlap (seconds are below 4.2e9, milliseconds above 9.4e11).
    """
    if isinstance(value, bool):
        raise ValueError("ts must be a number (epoch seconds or milliseconds) or an ISO-8601 string with a zone")
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is None:
            try:
                parsed = datetime.fromisoformat(text)
            except ValueError:
                raise ValueError(
                    f"ts {value[:40]!r} is neither a number nor an ISO-8601 date (e.g. 2026-11-29T22:09:56.806Z)"
                ) from None
            if parsed.tzinfo is None or parsed.utcoffset() is None:
                raise ValueError(f"ts {value[:40]!r} has no zone: add Z or an offset such as +01:00")
            number = parsed.timestamp()
        value = number
    if not isinstance(value, int | float):
        raise ValueError("ts must be a number (epoch seconds or milliseconds) or an ISO-8601 string with a zone")
    try:
        seconds = float(value)
    except OverflowError:  # an integer of hundreds of digits
        seconds = math.inf if value > 0 else -math.inf
    if math.isinf(seconds) and isinstance(value, int):
        raise ValueError("ts is outside 2000–2100: send epoch seconds, epoch milliseconds or ISO-8601 with a zone")
    if not math.isfinite(seconds):
        raise ValueError("ts must be a finite number, not NaN or an infinity")
    if seconds >= TS_MIN * 1000:
        seconds /= 1000.0  # epoch milliseconds
    if not TS_MIN <= seconds < TS_MAX:
        raise ValueError("ts is outside 2000–2100: send epoch seconds, epoch milliseconds or ISO-8601 with a zone")
    return seconds


EventTime = Annotated[float, BeforeValidator(epoch_seconds)]


class ElementRect(BaseModel):
    """A UIA BoundingRectangle as edges, in screen pixels."""

    model_config = ConfigDict(extra="ignore")

    left: float = Field(description="Left edge, screen pixels.")
    top: float = Field(description="Top edge, screen pixels.")
    right: float = Field(description="Right edge, screen pixels.")
    bottom: float = Field(description="Bottom edge, screen pixels.")


class UiElement(BaseModel):
    """What UI Automation reported under the pointer or in focus.

    The element's rectangle may come as `bbox` [x, y, w, h] or `rect` {left, top, right,
    bottom}, in screen pixels. Their shape is checked here; an empty or non-finite
    rectangle (UIA's answer for an off-screen element) is kept but never used as a box.
    """

    model_config = ConfigDict(extra="ignore")

    name: str | None = Field(None, max_length=500, description="UIA Name (the element's label).")
    role: str | None = Field(None, max_length=100, description="UIA control type (Button, TabItem, Edit, ...).")
    automation_id: str | None = Field(None, max_length=300, description="UIA AutomationId.")
    is_password: bool | None = Field(None, description="UIA IsPassword: a password box (its input is masked).")
    bbox: list[float] | None = Field(
        None, min_length=4, max_length=4, description="Bounding rectangle [x, y, w, h] in screen pixels."
    )
    rect: ElementRect | None = Field(None, description="Bounding rectangle {left, top, right, bottom}, screen pixels.")
    multiline: bool | None = Field(None, description="The field holds several lines (Enter types a line break).")
    states: list[Annotated[str, StringConstraints(max_length=40)]] | None = Field(
        None, max_length=40, description="Accessibility states as reported (AT-SPI: 'multi-line', 'focused', ...)."
    )
    checked_late: bool | None = Field(
        None, description="The check box's state in `states` was read after the button's release (it may have flipped)."
    )
    checked_after: bool | None = Field(None, description="The check box's state read again once the release was done.")

    @model_validator(mode="after")
    def _finite_rectangles(self) -> UiElement:
        # .NET's Rect.Empty is (inf, inf, -inf, -inf): "no rectangle", not a reason to lose the event.
        if self.bbox is not None and not all(math.isfinite(v) for v in self.bbox):
            self.bbox = None
        if self.rect is not None and not all(
            math.isfinite(v) for v in (self.rect.left, self.rect.top, self.rect.right, self.rect.bottom)
        ):
            self.rect = None
        return self


class TraceEvent(BaseModel):
    """One UI event; unknown fields are kept as they came."""

    model_config = ConfigDict(extra="allow")

    session_id: str = Field(pattern=ID_PATTERN, description="The agent's recording session.")
    machine_id: str = Field(pattern=ID_PATTERN, description="The workstation that streams.")
    ts: EventTime = Field(
        description="Event time (agent clock): epoch seconds, epoch milliseconds or ISO-8601 with a zone; "
        "stored as epoch seconds."
    )
    type: EventType = Field(description="What happened.")
    x: int | None = Field(None, ge=-100_000, le=100_000, description="Pointer x in screen pixels.")
    y: int | None = Field(None, ge=-100_000, le=100_000, description="Pointer y in screen pixels.")
    button: str | None = Field(None, max_length=20, description="Mouse button.")
    text: str | None = Field(None, max_length=20_000, description="Typed text (type events).")
    keys: str | None = Field(None, max_length=100, description="Key or combo, e.g. 'ctrl+s', 'enter'.")
    window_title: str | None = Field(None, max_length=1000, description="Title of the foreground window.")
    app: str | None = Field(None, max_length=260, description="Process name of the foreground window.")
    element: UiElement | None = Field(None, description="UI Automation element.")
    screenshot: str | None = Field(None, description="Base64 PNG/JPEG of the screen at this event.")
    screenshot_ref: str | None = Field(None, max_length=200, description="A screenshot uploaded earlier.")
    locale: str | None = Field(None, max_length=20, description="Session locale (fr/en), e.g. 'fr-FR'.")
    event_id: str | None = Field(None, max_length=128, description="Agent-side id; a resent event is ignored.")
    secret: bool | None = Field(None, description="The agent says this input (or the focused field) is secret.")
    is_password: bool | None = Field(None, description="The focused field is a password box (input is masked).")
    masked: bool | None = Field(None, description="Set by the server: the typed text/keys were replaced by a mask.")
    masked_field: str | None = Field(None, max_length=100, description="Set by the server: the masked field's label.")

    @model_validator(mode="after")
    def _fields_for_type(self) -> TraceEvent:
        if self.type in CLICK_TYPES and (self.x is None or self.y is None):
            raise _Missing("x" if self.x is None else "y", f"a {self.type} event needs x and y")
        if self.type == "key" and not (self.keys or "").strip():
            raise _Missing("keys", "a key event needs keys (e.g. 'ctrl+s')")
        if self.type == "type" and self.text is None:
            raise _Missing("text", "a type event needs text")
        if self.type == "focus" and not (self.window_title or self.app):
            raise _Missing("window_title", "a focus event needs window_title or app")
        if self.type == "screenshot" and not (self.screenshot or self.screenshot_ref):
            raise _Missing("screenshot", "a screenshot event needs screenshot or screenshot_ref")
        if self.screenshot and self.screenshot_ref:
            raise _Missing("screenshot_ref", "give screenshot or screenshot_ref, not both")
        return self

    @property
    def extras(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})


class _Missing(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def parse_events(raw: Sequence[Any], *, prefix: str = "events") -> list[TraceEvent]:
    """Validate a batch; the first bad event is refused with the field that is wrong."""
    if len(raw) == 0:
        raise InvalidInput("no event given", field=prefix)
    if len(raw) > MAX_BATCH:
        raise InvalidInput(f"a batch holds at most {MAX_BATCH} events, got {len(raw)}", field=prefix)
    out = []
    for i, item in enumerate(raw):
        where = f"{prefix}[{i}]" if prefix else ""
        out.append(parse_event(item, where=where))
    return out


def parse_event(item: Any, *, where: str = "") -> TraceEvent:
    def name(field: str) -> str:
        return f"{where}.{field}" if where else field

    if not isinstance(item, dict):
        raise InvalidInput(f"{where or 'event'}: an event is a JSON object", field=where or "event")
    try:
        return TraceEvent.model_validate(item)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, _Missing):
            raise InvalidInput(f"{name(cause.field)}: {cause}", field=name(cause.field)) from exc
        loc = ".".join(str(p) for p in err["loc"]) or "event"
        raise InvalidInput(f"{name(loc)}: {err['msg']}", field=name(loc), problem=err["msg"]) from exc


def normalize_keys(keys: str) -> str:
    """'Ctrl + S' -> 'ctrl+s'; 'Return' -> 'enter'."""
    aliases = {"return": "enter", "control": "ctrl", "esc": "escape", "del": "delete", "cmd": "win", "meta": "win"}
    parts = [p.strip().lower() for p in keys.replace(" ", "").split("+") if p.strip()]
    return "+".join(aliases.get(p, p) for p in parts)


def normalize_locale(value: str | None) -> str | None:
    if not value:
        return None
    lang = value.strip().lower().replace("_", "-").split("-")[0]
    return lang if lang in ("fr", "en") else None
