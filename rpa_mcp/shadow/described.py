"""What a step is, as read from its evidence: `Described` (named by `rpa_mcp.shadow.intents`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Described:
    intent: str
    action_type: str
    confidence: float  # from the evidence alone, before calibration
    evidence: str
    target: dict[str, Any]
    params: dict[str, Any]
    value: str | None = None  # what the step typed, or the label of the item it chose
    pattern: str = "plain"  # plain | collapsed | edited | inferred | uncertain | detour | noise
    field_label: str | None = None  # typing: the field's label
