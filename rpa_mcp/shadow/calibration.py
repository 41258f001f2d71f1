"""Confidence that means something: the share of such steps that were right in labelled demonstrations.

A step's *kind* is its action type, the evidence that named it (uia, ocr, window_title, raw)
and its shape (plain, collapsed noise, edited or inferred typing, detour...). The table
`catalog/shadow_confidence.yaml` counts, per kind, the steps of the tuning half of the
labelled demonstrations and how many were right (`rpa-mcp bench segmentation --fit`). A
step's confidence is that share of right steps, shrunk toward the step's own prior (what its
evidence alone says) by `PRIOR_WEIGHT` pseudo-steps, so that a kind seen twice does not claim
certainty: ``(right + w * prior) / (n + w)``. The most specific known key wins:
``action|evidence|shape``, then ``action|evidence``; a kind the table does not know keeps its
prior. (Each cell's `confidence` in the file is that formula at the cell's mean prior, to read.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

FILE_NAME = "shadow_confidence.yaml"
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
    cells: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # key -> (steps, right)
    prior_weight: float = PRIOR_WEIGHT

    def confidence(self, action_type: str, evidence: str, shape: str, prior: float) -> float:
        for key in keys(action_type, evidence, shape):
            if key in self.cells:
                n, right = self.cells[key]
                return (right + self.prior_weight * prior) / (n + self.prior_weight)
        return prior

    @classmethod
    def from_catalog(cls, catalog_dir: Path) -> Calibration:
        """The catalog's table; a catalog folder without one keeps the evidence priors."""
        path = catalog_dir / FILE_NAME
        return cls.load(path) if path.is_file() else cls()

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """Read and validate the table (a broken file is a start-up error, not a silent default)."""
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        parsed = CalibrationFile.model_validate(data)
        for key, cell in parsed.cells.items():
            if cell.right > cell.n:
                raise ValueError(f"cell {key!r}: right ({cell.right}) cannot exceed n ({cell.n})")
        return cls({k: (c.n, c.right) for k, c in parsed.cells.items()}, parsed.prior_weight)


def keys(action_type: str, evidence: str, shape: str) -> tuple[str, str]:
    return f"{action_type}|{evidence}|{shape}", f"{action_type}|{evidence}"


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
