"""A record the run's values name only in part (a surname, the first name unchecked) is never placed unattended."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.replay import identity
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.service.supervision import never_clicked


def one_row(*cells: str) -> np.ndarray:
    img = np.full((720, 1280, 3), 250, np.uint8)
    for x, cell in zip((100, 330, 520), cells, strict=False):
        cv2.putText(img, cell, (x, 200), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 30), 2, cv2.LINE_AA)
    return img


SPEC = {"label": "GAUTHIER", "resolve_order": ["ocr"], "identity": "GAUTHIER {{*}}", "identity_values": ["GAUTHIER"]}


def test_the_only_gauthier_shown_is_not_taken_for_the_demonstrated_one(resolver: TargetResolver) -> None:
    res = resolver.resolve(one_row("GAUTHIER", "Marcel", "48213"), {**SPEC, "identity_partial": ["Edith"]})
    assert not res.resolved and res.x is None and res.method == "identity_partial"
    assert identity.PARTIAL in (res.reason or "")
    assert never_clicked(res.reason)["failure_category"] == identity.PARTIAL


def test_a_confirmed_partly_named_record_is_still_found_by_the_runs_value(resolver: TargetResolver) -> None:
    res = resolver.resolve(one_row("GAUTHIER", "Marcel", "48213"), SPEC)
    assert res.resolved  # the person accepted any GAUTHIER: the identity check reads the surname


def test_any_identity_check_refuses_a_record_named_in_part_whatever_the_line_reads() -> None:
    """The reference agent's own check (and the resolver's) never accepts it, even on the right row."""
    seen = identity.check("GAUTHIER Edith 12/03/1950", {**SPEC, "identity_partial": ["Edith"]})
    assert not seen.ok and identity.PARTIAL in seen.reason
    assert identity.check("GAUTHIER Edith 12/03/1950", SPEC).ok
