"""Of two boxes with buttons that overlap, the one in front is the dialog: a question raised over the file
panel that asked it, wider than the panel, covers the panel's sides; a box built up from the panel's own
buttons reaches into the question, where its outline is not drawn. (GNUstep's overwrite question at
1600x900 in tests/dialogs/test_structure.py is the real case.)"""

from __future__ import annotations

import numpy as np

from rpa_mcp.dialogs.locate.candidates import BEHIND_PENALTY, ModalRegion, _demote_behind

QUESTION = (200, 200, 500, 160)
PANEL_PART = (300, 300, 300, 240)  # its top-left corner lies inside the question


def _outline(edges: np.ndarray, box: tuple[int, int, int, int], *, skip: tuple[int, int, int, int] | None = None):
    """Draw `box`'s outline, leaving out what lies inside `skip` (hidden under a box in front)."""
    x, y, w, h = box
    drawn = np.zeros_like(edges)
    drawn[y, x : x + w] = drawn[y + h - 1, x : x + w] = 255
    drawn[y : y + h, x] = drawn[y : y + h, x + w - 1] = 255
    if skip is not None:
        sx, sy, sw, sh = skip
        drawn[sy + 1 : sy + sh - 1, sx + 1 : sx + sw - 1] = 0
    edges |= drawn


def _regions() -> tuple[ModalRegion, ModalRegion]:
    question = ModalRegion(QUESTION, ((580, 320, 100, 28),), 2.7, ("buttons",))
    panel = ModalRegion(PANEL_PART, ((420, 500, 80, 28), (510, 500, 80, 28)), 2.9, ("buttons",))
    return question, panel


def test_the_box_whose_outline_stops_under_the_other_is_behind_it() -> None:
    edges = np.zeros((720, 960), np.uint8)
    _outline(edges, QUESTION)
    _outline(edges, PANEL_PART, skip=QUESTION)
    question, panel = _regions()
    ranked = _demote_behind([panel, question], edges)
    assert ranked[0].bbox == QUESTION
    assert next(m for m in ranked if m.bbox == PANEL_PART).score == panel.score - BEHIND_PENALTY


def test_the_same_boxes_the_other_way_round_demote_neither() -> None:
    # the panel in front: its outline runs across the question's, and none of the question's corners is under it
    edges = np.zeros((720, 960), np.uint8)
    _outline(edges, PANEL_PART)
    _outline(edges, QUESTION, skip=PANEL_PART)
    question, panel = _regions()
    assert [m.score for m in _demote_behind([panel, question], edges)] == [panel.score, question.score]


def test_both_outlines_drawn_demote_neither() -> None:
    edges = np.zeros((720, 960), np.uint8)
    _outline(edges, PANEL_PART)
    _outline(edges, QUESTION)
    question, panel = _regions()
    assert [m.score for m in _demote_behind([panel, question], edges)] == [panel.score, question.score]
