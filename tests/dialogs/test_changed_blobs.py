"""The boxes of the regions that changed are those of connectedComponentsWithStats, found by
tracing the components' borders (much cheaper on a whole frame)."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rpa_mcp.dialogs.locate.candidates import _changed_blobs, _component_boxes, _trim
from rpa_mcp.dialogs.locate.geometry import area


def labelled_boxes(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    count, _, stats, _ = cv2.connectedComponentsWithStats((mask > 0).astype(np.uint8), connectivity=8)
    return [(int(x), int(y), int(w), int(h)) for x, y, w, h, _ in stats[1:count]]


def labelled_blobs(changed: np.ndarray, limit: int = 3) -> list[tuple[int, int, int, int]]:
    """The reference: every pixel labelled, largest dialog-sized boxes first (ties in label order)."""
    joined = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((41, 41), np.uint8))
    blobs = [_trim(changed, b) for b in labelled_boxes(joined)]
    sized = [b for b in blobs if b[2] >= 120 and b[3] >= 50]
    return sorted(sized, key=area, reverse=True)[:limit]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.90, 0.995))
def test_component_boxes_are_the_labelled_ones(seed: int, empty: float) -> None:
    mask = (np.random.default_rng(seed).random((60, 90)) > empty).astype(np.uint8) * 255
    assert sorted(_component_boxes(mask)) == sorted(labelled_boxes(mask))


def test_a_component_inside_a_hole_of_another_has_its_own_box() -> None:
    mask = np.zeros((100, 100), np.uint8)
    cv2.rectangle(mask, (10, 10), (90, 90), 255, 3)  # a ring ...
    mask[40:60, 40:60] = 255  # ... with a block in its hole
    mask[45:50, 45:50] = 0  # which has a hole of its own
    assert sorted(_component_boxes(mask)) == sorted(labelled_boxes(mask)) and len(_component_boxes(mask)) == 2


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_changed_regions_are_those_of_the_labelled_mask(seed: int) -> None:
    rng = np.random.default_rng(seed)
    changed = np.zeros((540, 960), np.uint8)
    for _ in range(int(rng.integers(1, 9))):
        x, y = int(rng.integers(0, 900)), int(rng.integers(0, 500))
        w, h = int(rng.integers(20, 400)), int(rng.integers(10, 200))
        changed[y : y + h, x : x + w] = 255
    assert set(_changed_blobs(changed)) == set(labelled_blobs(changed))


def test_a_tie_at_the_cut_keeps_the_labelled_order() -> None:
    changed = np.zeros((600, 1400), np.uint8)
    for x in (20, 320, 620, 920):  # four regions of one size: which three are kept is decided by order
        changed[100:300, x : x + 200] = 255
    assert _changed_blobs(changed) == labelled_blobs(changed)
