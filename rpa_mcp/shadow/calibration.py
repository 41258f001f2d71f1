"""Confidence that means something: the share of such steps that were right in labelled demonstrations.

A step's *kind* is its action type, the evidence that named it (uia, ocr, window_title, raw)
and its shape (plain, collapsed noise, edited or inferred typing, detour...). The table
`catalog/shadow_confidence.yaml` gives, per kind, the confidence fitted on the tuning half
of the labelled demonstrations (`rpa-mcp bench segmentation --fit`): the observed share of
right steps, shrunk toward the evidence's prior by `PRIOR_WEIGHT` pseudo-steps so that a
kind seen twice does not claim certainty. A kind the table does not know keeps the prior.
The most specific known key wins: ``action|evidence|shape``, then ``action|evidence``, then
``*|evidence``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

PRIOR_WEIGHT = 4.0
ASK_BELOW = 0.8  # steps below this are the ones to ask the person about first


class Cell(BaseModel):
    model_config = ConfigDict(extra="forbid")

    confidence: float = Field(ge=0.0, le=1.0, description="Calibrated confidence of this kind of step.")
    n: int = Field(ge=0, description="Steps of this kind in the tuning demonstrations.")
    right: int = Field(ge=0, description="How many of them were right.")


class CalibrationFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = Field(1, ge=1, le=1)
    prior_weight: float = Field(PRIOR_WEIGHT, ge=0)
    tuning_demos: list[str] = Field(default_factory=list, description="Demonstrations the table was fitted on.")
    cells: dict[str, Cell] = Field(default_factory=dict)


@dataclass(frozen=True)
class Calibration:
    cells: Mapping[str, float] = field(default_factory=dict)

    def confidence(self, action_type: str, evidence: str, shape: str, prior: float) -> float:
        for key in keys(action_type, evidence, shape):
            if key in self.cells:
                return self.cells[key]
        return prior

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """Read and validate the table (a broken file is a start-up error, not a silent default)."""
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        parsed = CalibrationFile.model_validate(data)
        return cls({k: c.confidence for k, c in parsed.cells.items()})


def keys(action_type: str, evidence: str, shape: str) -> tuple[str, str, str]:
    return f"{action_type}|{evidence}|{shape}", f"{action_type}|{evidence}", f"*|{evidence}"


def fit(samples: Iterable[tuple[str, str, str, float, bool]], *, prior_weight: float = PRIOR_WEIGHT) -> dict[str, Cell]:
    """Cells from (action_type, evidence, shape, prior confidence, right) of the tuning steps."""
    groups: dict[str, list[tuple[float, bool]]] = {}
    for action_type, evidence, shape, prior, right in samples:
        for key in keys(action_type, evidence, shape):
            groups.setdefault(key, []).append((prior, right))
    cells = {}
    for key, items in sorted(groups.items()):
        n, good = len(items), sum(1 for _, r in items if r)
        prior = sum(p for p, _ in items) / n
        cells[key] = Cell(confidence=round((good + prior_weight * prior) / (n + prior_weight), 3), n=n, right=good)
    return cells


def dump(cells: Mapping[str, Cell], tuning_demos: Iterable[str], *, header: str) -> str:
    doc: dict[str, Any] = CalibrationFile(tuning_demos=sorted(tuning_demos), cells=dict(cells)).model_dump()
    return header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
