"""Before/after pairs of the committed screens, decoded once per test session."""

from __future__ import annotations

from functools import cache

from rpa_mcp.screens.truth import PairTruth
from rpa_mcp.validation import Target
from tests.screens import SCREENS


class Pair:
    def __init__(self, truth: PairTruth) -> None:
        self.truth = truth
        self.id = truth.id
        self.before = SCREENS.image(truth.before.file)
        self.after = SCREENS.image(truth.after.file)
        action = truth.action
        self.action_type = action.type
        self.target = Target(action.label, action.bbox)
        # As the shadow area records it: the label and the click point, no box.
        self.target_without_bbox = Target(action.label, None, action.point)
        self.expected_verdict = truth.verdict
        self.expected_category = truth.failure_category
        self.png_before = SCREENS.png(truth.before.file)
        self.png_after = SCREENS.png(truth.after.file)


def pair_ids() -> list[str]:
    return sorted(p.id for p in SCREENS.pairs)


@cache
def load_pair(pair_id: str) -> Pair:
    return Pair(SCREENS.pair(pair_id))
