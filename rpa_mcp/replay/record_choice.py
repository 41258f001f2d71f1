"""Which row of a window is the record the person chose: read by who it is, on every row that could be it.

Among the lines that show a record-selecting target's label (`resolve` reads them on the record's whole
window), the one whose row reads the record's identity is the record; the field the run typed the value
into is never it (`typed_fields`). Every other row that reads the record too — or reads it but for one
letter (`near_records`) — is a rival: the resolver then clicks none of them (`identity_ambiguous`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from rpa_mcp.replay import identity, near_records
from rpa_mcp.replay.candidates import Candidate
from rpa_mcp.vision.ocr import OcrLine


class RecordChoice:
    """Reads a candidate's row (`identity.row_text`, recognition only) and judges it against the record."""

    def __init__(self, ocr: identity.LineReader) -> None:
        self.ocr = ocr

    def identity_at(self, image: np.ndarray, spec: Mapping[str, Any], cand: Candidate) -> identity.IdentityCheck:
        """The record's line at the candidate, read and compared with the identity the person saw."""
        height = cand.line_box[3] if cand.line_box is not None else 0
        return identity.check(identity.row_text(self.ocr, image, cand.x, cand.y, height=height), spec)

    def same_record(self, image: np.ndarray, spec: Mapping[str, Any], cand: Candidate) -> bool:
        """The candidate's line reads the record the person chose (any candidate, for a target that is no record)."""
        return identity.identity_of(spec) is None or self.identity_at(image, spec, cand).ok

    def choose(
        self,
        image: np.ndarray,
        spec: Mapping[str, Any],
        found: list[Candidate],
        wanted: str,
        lines: list[OcrLine],
        origin: tuple[int, int],
    ) -> Candidate | None:
        """Among `found` (lines of a region at `origin` showing the label `wanted`; `lines`: all the region's
        lines), the record the person chose, clicked on its cell, with every other row that reads it — exactly
        or but for one letter — as its `rivals`; None when no row reads it."""
        if spec.get("typed_fields"):
            found = [c for c in found if identity.typed_field(self.identity_at(image, spec, c).read, spec) is None]
        chosen = [c for c in found if self.same_record(image, spec, c)]
        if not chosen:
            return None
        record = chosen[0]
        rivals = [(c.x, c.y) for c in chosen[1:] if not same_row(c, record)]
        rivals += self._near_rivals(image, spec, record, wanted, lines, origin, rivals)
        # a row reads with its other cells: its identity read the words whole
        return replace(
            record, click_x=record.label_x, score=max(record.score, record.read_score or 0.0), rivals=tuple(rivals)
        )

    def _near_rivals(
        self,
        image: np.ndarray,
        spec: Mapping[str, Any],
        record: Candidate,
        wanted: str,
        lines: list[OcrLine],
        origin: tuple[int, int],
        known: list[tuple[int, int]],
    ) -> list[tuple[int, int]]:
        """The rows, other than the record's and the `known` rivals', that read the record but for one letter."""
        found = identity.identity_of(spec)
        if found is None:
            return []
        near: list[tuple[int, int]] = []
        x0, y0 = origin
        for line in lines:
            if not near_records.nearly_shows(line.text, wanted):
                continue
            bx, by, bw, bh = line.bbox
            row = Candidate(
                x0 + bx + bw // 2,
                y0 + by + bh // 2,
                float(line.score),
                "hybrid_text_direct",
                (x0 + bx, y0 + by, bw, bh),
            )
            if same_row(row, record) or any(same_row(row, replace(row, x=x, y=y)) for x, y in [*known, *near]):
                continue
            read = self.identity_at(image, spec, row).read
            if identity.typed_field(read, spec) is None and near_records.nearly_reads(read, *found):
                near.append((row.x, row.y))
        return near


def ambiguity(spec: Mapping[str, Any], cand: Candidate) -> str:
    """Why a record whose rows are more than one is not clicked, naming where they are."""
    found = identity.identity_of(spec)
    at = ", ".join(f"({x}, {y})" for x, y in ((cand.x, cand.y), *cand.rivals))
    return (
        f"{identity.AMBIGUOUS}: {1 + len(cand.rivals)} rows read the record {found[0] if found else ''!r} "
        f"(at {at}): the run's values do not tell them apart; a person chooses"
    )


def same_row(a: Candidate, b: Candidate) -> bool:
    """Two lines showing the label on one row (the label twice in a record's cells): one record, not two."""
    height = max(
        a.line_box[3] if a.line_box else 0, b.line_box[3] if b.line_box else 0, 2 * identity.ROW_MIN_HALF_HEIGHT
    )
    return abs(a.y - b.y) < height / 2
