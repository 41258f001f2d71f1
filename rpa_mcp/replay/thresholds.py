"""The resolver's thresholds (catalog/thresholds.yaml): minimum score per method, the drift guard,
the search regions and when the target memory is trusted; validated at load."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from rpa_mcp.errors import InternalError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DriftGuard(_Strict):
    max_fraction: float = Field(0.2, gt=0, le=1)
    placeholders: list[tuple[float, float]] = Field(default_factory=lambda: [(0.5, 0.5), (0.0, 0.0)])


class SearchConfig(_Strict):
    ocr_region: tuple[int, int] = (640, 320)
    ocr_first_look: tuple[int, int] = (360, 120)  # read first around the point (and its label): see _near
    template_local_factor: int = Field(3, ge=1)
    template_wide_factor: int = Field(10, ge=1)


class MemoryConfig(_Strict):
    trusted_after: int = Field(2, ge=1)
    min_reliability: float = Field(0.6, ge=0, le=1)
    same_spot_px: int = Field(25, ge=0)


class Thresholds(_Strict):
    """catalog/thresholds.yaml, validated at load."""

    version: int = 1
    min_scores: dict[str, float | None]
    drift: DriftGuard = Field(default_factory=DriftGuard)
    search: SearchConfig = Field(default_factory=SearchConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)

    def min_score(self, method: str) -> tuple[bool, float | None]:
        """(known, minimum) for a method; exact key first, then the longest matching pattern."""
        if method in self.min_scores:
            return True, self.min_scores[method]
        patterns = sorted((k for k in self.min_scores if "*" in k), key=len, reverse=True)
        for pattern in patterns:
            if fnmatch.fnmatchcase(method, pattern):
                return True, self.min_scores[pattern]
        return False, None


DEFAULT_THRESHOLDS = Thresholds(
    min_scores={
        "hybrid_text_direct": 0.80,
        "som_*_match": 0.75,
        "template_matching": 0.85,
        "vlm_*": 0.60,
        "grounding*": 0.60,
        "uia": 0.90,
        "v4_uia_local": 0.90,
        "memory*": None,
    }
)


def load_thresholds(path: Path | None) -> Thresholds:
    if path is None or not path.is_file():
        return DEFAULT_THRESHOLDS
    try:
        return Thresholds.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValueError) as exc:
        raise InternalError(f"catalog {path.name} is invalid: {exc}") from exc
