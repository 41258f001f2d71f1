"""Identity before selection: a record is chosen by who it is, not by where it was.

A step that selects a record (a row of a result list, a search result, a patient banner, a tab
naming a patient) carries in its target the identity text the person saw (``identity``, its
parameters already filled in by the planning) and the run's values that stand in it
(``identity_values``). Before the click, the text of the line at the resolved point is read and
compared: every run value must be there as whole words (another patient whose name merely
starts the same is not the one); an identity without parameters must be there entirely. A
mismatch, or a line that cannot be read, stops the step before any input (IDENTITY_MISMATCH).

The run's value was often typed into a search field first: that field then shows it too. The target
carries the labels of those fields (``typed_fields``); a line that reads one of them is that field,
never the record (a search field "Nom du patient: MOREL" is not the row of MOREL).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from rpa_mcp.validation.text import text_line_boxes
from rpa_mcp.vision.images import clamp_bbox
from rpa_mcp.vision.ocr import OcrLine, normalize_text

# px read as the record's line, left and right of the click: a row's action (Open, Select) is usually
# at its end, the name and identifier that say whose row it is at its start
ROW_LEFT_REACH = 960
ROW_RIGHT_REACH = 520
ROW_MIN_HALF_HEIGHT = 14
MAX_RUNS = 12  # text runs of the band (cells of a grid row) recognised at most
STACK_REACH = 8  # px: runs this close to the point, one above the other, are two rows at the point
MISMATCH = "IDENTITY_MISMATCH"
AMBIGUOUS = "IDENTITY_AMBIGUOUS"  # more than one row reads the record: a person chooses
PARTIAL = "IDENTITY_PARTIAL"  # the run's values name the record only in part, no person accepted it: a person chooses
_WORD = re.compile(r"[^\W_]+")


class LineReader(Protocol):
    def read_line(self, image: np.ndarray) -> OcrLine | None:
        """Recognition only, on one line's crop."""
        ...


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


def partial(spec: Mapping[str, Any]) -> str | None:
    """Why a record target is never placed unattended: the demonstrated record's words the run cannot check
    (``identity_partial``, set by the planning when no person validated the step); None otherwise."""
    unchecked = [str(w) for w in spec.get("identity_partial") or [] if str(w).strip()]
    if not unchecked or identity_of(spec) is None:
        return None
    return (
        f"{PARTIAL}: the record {spec.get('identity')!r} is named by the run's values only in part "
        f"({' '.join(unchecked)!r} of the demonstrated record is not checked) and no person validated that: "
        "a person chooses the record"
    )


def typed_field(read: str, spec: Mapping[str, Any]) -> str | None:
    """The label of a field this run typed the record's value into, when the line reads it."""
    seen = f" {' '.join(words(read))} "
    for label in spec.get("typed_fields") or []:
        expected = words(str(label))
        if expected and f" {' '.join(expected)} " in seen:
            return str(label)
    return None


def words(text: str) -> list[str]:
    return _WORD.findall(normalize_text(text))


def matches(read: str, identity: str, values: Sequence[str]) -> bool:
    """Every run value (else every word of the identity) is a whole word sequence of the text read, its
    words and the value's cut the same way where OCR ran them together."""
    seen = f" {' '.join(words(run_apart(read)))} "
    if values:
        return all(bool(words(v)) and f" {' '.join(words(run_apart(v)))} " in seen for v in values)
    return _all_words(seen, run_apart(identity))


def run_apart(text: str) -> str:
    """Text whose words OCR ran together (the cells of a dense grid row: '500334MOREAUKévinOrthopédie')
    cut where a word plainly begins: a capital after a small letter, the capital of a capitalised word
    after capitals, digits against letters. Capitals run together stay one word ('PETITBERNARD')."""
    out: list[str] = []
    for i, c in enumerate(text):
        before, after = text[i - 1] if i else "", text[i + 1] if i + 1 < len(text) else ""
        if before and (
            (before.islower() and c.isupper())
            or (before.isupper() and c.isupper() and after.islower())
            or (before.isdigit() and c.isalpha())
            or (before.isalpha() and c.isdigit())
        ):
            out.append(" ")
        out.append(c)
    return "".join(out)


def _all_words(seen: str, identity: str) -> bool:
    expected = words(identity)
    return bool(expected) and all(f" {w} " in seen for w in expected)


def row_text(ocr: LineReader, image: np.ndarray, x: int, y: int, *, height: int = 0) -> str:
    """The text of the line through (x, y): what a person reads on that row, left to right.

    The band through the point is cut into its text runs (cells, words apart) by their ink, without
    OCR; only the runs the point's line crosses are recognised, each on its own crop. A point between two
    rows (two runs one above the other where the point is, both within reach: a dense grid's two rows read
    as one line) reads nothing: the two rows' cells would read as one record, and a click there may select
    either. Two lines of something beside the row (a form's fields next to a grid) are read as before.
    """
    half = max(ROW_MIN_HALF_HEIGHT, height // 2 + 4)
    x0, y0, w, h = clamp_bbox((x - ROW_LEFT_REACH, y - half, ROW_LEFT_REACH + ROW_RIGHT_REACH, 2 * half), image.shape)
    if w <= 4 or h <= 4:
        return ""
    band = image[y0 : y0 + h, x0 : x0 + w]
    found = text_line_boxes(band, max_lines=4 * MAX_RUNS, across=True)
    runs = [b for b in found if b[1] - 4 <= y - y0 <= b[1] + b[3] + 4][:MAX_RUNS]
    if _stacked([b for b in runs if b[0] - STACK_REACH <= x - x0 <= b[0] + b[2] + STACK_REACH]):
        return ""
    texts = []
    for bx, by, bw, bh in sorted(runs):
        cx, cy, cw, ch = clamp_bbox((bx - 3, by - 3, bw + 6, bh + 6), band.shape)
        line = ocr.read_line(band[cy : cy + ch, cx : cx + cw])
        if line is not None and line.text.strip():
            texts.append(" ".join(line.text.split()))
    return " ".join(texts)


def _stacked(runs: Sequence[tuple[int, int, int, int]]) -> bool:
    """Two runs one above the other (their columns overlap): text of two rows, not one."""
    return any(a[0] < b[0] + b[2] and b[0] < a[0] + a[2] for i, a in enumerate(runs) for b in runs[i + 1 :])


def check(read: str, spec: Mapping[str, Any]) -> IdentityCheck:
    """Compare what was read at the target with the identity the person saw (after the planning filled it)."""
    found = identity_of(spec)
    if found is None:
        return IdentityCheck(True, "", read)
    identity, values = found
    if (why := partial(spec)) is not None:  # whatever the line reads: a person chooses that record
        return IdentityCheck(False, identity, read, why)
    if not read.strip():
        return IdentityCheck(
            False, identity, read, f"{MISMATCH}: the record's line could not be read; expected {identity!r}"
        )
    field = typed_field(read, spec)
    if field is not None:
        return IdentityCheck(
            False,
            identity,
            read,
            f"{MISMATCH}: the line is the field {field!r} the value was typed into, not the record "
            f"(it reads {read!r}; expected {identity!r})",
        )
    if matches(read, identity, values):
        return IdentityCheck(True, identity, read)
    return IdentityCheck(False, identity, read, f"{MISMATCH}: expected {identity!r}, the target reads {read!r}")
