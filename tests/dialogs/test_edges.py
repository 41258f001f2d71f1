"""`edges.run` (following a border through an edge map) is the pixel walk it replaces, in one array operation."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rpa_mcp.dialogs.locate.edges import run, runs_on


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


def _titled(extra_above: bool) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """An edge map: a box (100..500 x 200..500) under its own title bar (166..199: sides and a top line
    across), and, with `extra_above`, its sides running on higher up (a band of a panel, not a window)."""
    edges = np.zeros((700, 700), np.uint8)
    edges[200, 100:501] = edges[500, 100:501] = 255
    edges[200:501, 100] = edges[200:501, 500] = 255
    edges[166, 100:501] = 255  # the title bar's top, across the whole width
    edges[166:200, 100] = edges[166:200, 500] = 255  # its sides: the box's own columns
    if extra_above:
        edges[100:166, 100] = edges[100:166, 500] = 255
    return edges, (100, 200, 401, 301)


def test_a_box_under_its_own_title_bar_is_no_band_of_a_panel() -> None:
    # fails on the old code: the title bar's sides were read as the box's borders running on above it
    edges, box = _titled(extra_above=False)
    assert runs_on(edges, box)  # without the title bar taken into account
    assert not runs_on(edges, box, title_bar=True)
    edges, box = _titled(extra_above=True)
    assert runs_on(edges, box, title_bar=True)  # the sides run on past the line: a panel's band still
