"""What the observer of one session remembers between events (`ObserverState`), persisted after each one.

Plain data (`to_dict` / `from_dict`): the segments are stored one row each beside it, so a restart
resumes exactly where it was; fields added later default when an older state is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.shadow.segment import Context, Segment


@dataclass
class ObserverState:
    mode: str = "auto"  # auto (events came first) | observing (explicit start) | stopped | idle (after reset)
    start_idx: int = 0
    cursor: int = 0
    segments: list[Segment] = field(default_factory=list)
    ctx: Context = field(default_factory=Context)
    cancelled: bool = False
    locale: str | None = None
    last_shot: str | None = None
    ocr_pending: list[int] = field(default_factory=list)
    notifications: list[dict[str, Any]] = field(default_factory=list)
    version: int = 0
    secret_field: str | None = None  # label ("" if unknown) of the secret field holding the focus, if any
    language: str | None = None  # chosen at shadow_start: wins over the agent's locale and the screen's words
    ui_votes: dict[str, int] = field(default_factory=dict)  # language of the screen's words (shadow.language)

    @property
    def observing(self) -> bool:
        return self.mode in ("auto", "observing")

    def to_dict(self) -> dict[str, Any]:
        """Everything but the segments, which are stored one row each (see `_save`)."""
        data = {f: getattr(self, f) for f in _STATE_FIELDS if f != "segments"}
        data["ctx"] = self.ctx.to_dict()
        data["ocr_pending"] = list(self.ocr_pending)
        data["notifications"] = list(self.notifications)
        data["ui_votes"] = dict(self.ui_votes)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ObserverState:
        data = dict(data)
        data["segments"] = [Segment.from_dict(s) for s in data.get("segments", [])]
        data["ctx"] = Context.from_dict(data.get("ctx", {}))
        return cls(**{k: v for k, v in data.items() if k in _STATE_FIELDS})


_STATE_FIELDS = tuple(ObserverState.__dataclass_fields__)
