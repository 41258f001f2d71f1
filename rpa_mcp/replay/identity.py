"""Identity before selection: a record is chosen by who it is, not by where it was.

A step that selects a record (a row of a result list, a search result, a patient banner, a tab
naming a patient) carries in its target the identity text the person saw (``identity``, its
parameters already filled in by the planning) and the run's values that stand in it
(``identity_values``). Before the click, the text of the line at the resolved point is read and
compared: every run value must be there as whole words (another patient whose name merely
starts the same is not the one); an identity without parameters must be there entirely. A
mismatch, or a line that cannot be read, stops the step before any input (IDENTITY_MISMATCH).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from rpa_mcp.vision.images import clamp_bbox
from rpa_mcp.vision.ocr import OcrLine, normalize_text

ROW_HALF_WIDTH = 520  # px either side of the click read as the record's line
ROW_MIN_HALF_HEIGHT = 14
MISMATCH = "IDENTITY_MISMATCH"
_WORD = re.compile(r"[^\W_]+")


class LineReader(Protocol):
    def read(self, image: np.ndarray) -> list[OcrLine]: ...


@dataclass(frozen=True)
class IdentityCheck:
    ok: bool
    expected: str
    read: str
    reason: str = ""


def identity_of(spec: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    """(identity text, run values in it) of a record-selecting target; None for any other target."""
    identity = spec.get("identity")
    if not isinstance(identity, str) or not identity.strip():
        return None
    values = [str(v) for v in spec.get("identity_values") or [] if str(v).strip()]
    return identity, values


def words(text: str) -> list[str]:
    return _WORD.findall(normalize_text(text))


def matches(read: str, identity: str, values: Sequence[str]) -> bool:
    """Every run value (else every word of the identity) is a whole word sequence of the text read."""
    seen = f" {' '.join(words(read))} "
    if values:
        return all(bool(words(v)) and f" {' '.join(words(v))} " in seen for v in values)
    return _all_words(seen, identity)


def _all_words(seen: str, identity: str) -> bool:
    expected = words(identity)
    return bool(expected) and all(f" {w} " in seen for w in expected)


def row_text(ocr: LineReader, image: np.ndarray, x: int, y: int, *, height: int = 0) -> str:
    """The text of the line through (x, y): what a person reads on that row, left to right."""
    half = max(ROW_MIN_HALF_HEIGHT, height // 2 + 4)
    x0, y0, w, h = clamp_bbox((x - ROW_HALF_WIDTH, y - half, 2 * ROW_HALF_WIDTH, 2 * half), image.shape)
    if w <= 4 or h <= 4:
        return ""
    lines = [
        line
        for line in ocr.read(image[y0 : y0 + h, x0 : x0 + w])
        if line.bbox[1] <= (y - y0) <= line.bbox[1] + line.bbox[3] + 4 and line.text.strip()
    ]
    return " ".join(" ".join(line.text.split()) for line in sorted(lines, key=lambda ln: ln.bbox[0]))


def check(read: str, spec: Mapping[str, Any]) -> IdentityCheck:
    """Compare what was read at the target with the identity the person saw (after the planning filled it)."""
    found = identity_of(spec)
    if found is None:
        return IdentityCheck(True, "", read)
    identity, values = found
    if not read.strip():
        return IdentityCheck(
            False, identity, read, f"{MISMATCH}: the record's line could not be read; expected {identity!r}"
        )
    if matches(read, identity, values):
        return IdentityCheck(True, identity, read)
    return IdentityCheck(False, identity, read, f"{MISMATCH}: expected {identity!r}, the target reads {read!r}")
