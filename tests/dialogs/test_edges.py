"""`edges.run` (following a border through an edge map) is the pixel walk it replaces, in one array operation."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rpa_mcp.dialogs.locate.edges import run


def walk(mask: np.ndarray, fixed: int, start: int, step: int, axis: int, gap: int = 3) -> int:
    """The reference: one pixel at a time, stop after more than `gap` pixels without an edge."""
    limit = mask.shape[1] if axis == 1 else mask.shape[0]
    pos, last, missing = start, start, 0
    while 0 <= pos < limit:
        lo, hi = max(0, fixed - 2), fixed + 3
        on = mask[lo:hi, pos].any() if axis == 1 else mask[pos, lo:hi].any()
        if on:
            last, missing = pos, 0
        else:
            missing += 1
            if missing > gap:
                break
        pos += step
    return last


@settings(max_examples=400, deadline=None)
@given(
    mask=arrays(np.bool_, st.tuples(st.integers(1, 24), st.integers(1, 24))),
    fixed=st.integers(-4, 28),
    start=st.integers(-2, 26),
    step=st.sampled_from([-1, 1]),
    axis=st.sampled_from([0, 1]),
    gap=st.integers(0, 4),
)
def test_run_ends_where_the_pixel_walk_ends(
    mask: np.ndarray, fixed: int, start: int, step: int, axis: int, gap: int
) -> None:
    assert run(mask, fixed, start, step, axis, gap) == walk(mask, fixed, start, step, axis, gap)


def test_run_bridges_small_gaps_and_stops_at_a_long_one() -> None:
    mask = np.zeros((5, 40), np.bool_)
    mask[2, 0:10] = True
    mask[2, 13:20] = True  # a 3-pixel gap: bridged
    mask[2, 25:30] = True  # a 5-pixel gap: the border ends at 19
    assert run(mask, 2, 0, +1, axis=1) == 19
    assert run(mask, 2, 29, -1, axis=1) == 25
