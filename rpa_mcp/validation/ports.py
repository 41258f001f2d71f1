"""Small ports the validator calls; adapters live outside the domain (rpa_mcp/validation_adapters.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from rpa_mcp.vision.images import BBox


@dataclass(frozen=True)
class DialogHit:
    """A dialog found on a frame by the dialogs area's classifier."""

    bbox: BBox
    dialog_id: str | None = None
    category: str | None = None
    policy: str | None = None  # auto | pause | skip
    title: str | None = None
    confidence: float = 0.0
    raw: dict[str, Any] = field(default_factory=dict)
    buttons: tuple[tuple[str, BBox], ...] = ()  # its buttons as read: (label, box in frame coordinates)


ReportedWindows = Sequence[tuple[str | None, str | None]]
"""(title, process) of the windows the desktop agent reported in front of a frame."""


class DialogLocator(Protocol):
    def locate(
        self, image: np.ndarray, *, previous: np.ndarray | None = None, windows: ReportedWindows = ()
    ) -> DialogHit | None:
        """The modal dialog visible on `image` (None when there is none). `windows`: what the agent
        reported (they confirm which application shows a dialog, never name it)."""
        ...


@dataclass(frozen=True)
class JudgeAnswer:
    success: bool
    confidence: float
    explanation: str


class JudgePort(Protocol):
    def judge(self, *, action_type: str, question: str, before_png: bytes, after_png: bytes) -> JudgeAnswer:
        """Ask a judge model whether the action happened (slow, optional, off by default)."""
        ...
