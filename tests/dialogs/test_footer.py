"""A dialog rebuilt from its footer: a dark `confirm()` whose top runs into a toolbar of its own grey."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs.locate import find_modal, iou
from rpa_mcp.dialogs.locate.edges import edge_map
from rpa_mcp.dialogs.locate.footer import box_above_footer

FACE, TOOLBAR, PAGE = 43, 28, 240
DIALOG = (500, 60, 450, 150)  # its top 50 px overlap the band of the face's grey
BUTTON = (840, 160, 80, 34)


def dark_confirm(*, band: int = FACE) -> np.ndarray:
    img = np.full((700, 1400, 3), PAGE, np.uint8)
    img[:60] = TOOLBAR  # the browser's toolbar
    img[60:110] = band  # the page's header, as grey as the dialog
    cv2.putText(img, "Dossier patient", (40, 92), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (200, 200, 200), 1, cv2.LINE_AA)
    x, y, w, h = DIALOG
    cv2.rectangle(img, (x, y), (x + w, y + h), (FACE, FACE, FACE), -1)
    for a, b in (((x, 110), (x, y + h)), ((x + w, 110), (x + w, y + h)), ((x, y + h), (x + w, y + h))):
        cv2.line(img, a, b, (70, 70, 70), 1)  # its border, seen over the light page only
    cv2.putText(img, "easily.local says", (x + 24, y + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (235, 235, 235), 1)
    cv2.putText(img, "Delete the draft?", (x + 24, y + 70), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (235, 235, 235), 1)
    bx, by, bw, bh = BUTTON
    cv2.rectangle(img, (bx, by), (bx + bw, by + bh), (250, 200, 160), -1)
    cv2.putText(img, "OK", (bx + 28, by + 23), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (40, 40, 40), 1)
    return img


def test_the_dialog_has_no_closed_outline_yet_is_found_from_its_footer():
    region = find_modal(dark_confirm())
    assert region is not None and "buttons" in region.evidence
    assert iou(region.bbox, DIALOG) >= 0.9  # the top comes from the face's grey, not from the sides


def test_the_face_is_followed_up_to_where_its_grey_ends():
    gray = cv2.cvtColor(dark_confirm(), cv2.COLOR_BGR2GRAY)
    found = box_above_footer(gray, edge_map(gray), BUTTON)
    assert found is not None and abs(found[1] - DIALOG[1]) <= 3  # the toolbar, not the header's bottom


def test_sides_that_meet_a_top_border_of_the_box_s_own_rebuild_nothing():
    # a box whose whole outline shows (a window half under another window has sides and a top too,
    # and no dialog in it): nothing for the footer to add
    img = np.full((700, 1400, 3), PAGE, np.uint8)
    x, y, w, h = 500, 200, 450, 150
    cv2.rectangle(img, (x, y), (x + w, y + h), (FACE, FACE, FACE), -1)
    bx, by, bw, bh = button = (840, 300, 80, 34)
    cv2.rectangle(img, (bx, by), (bx + bw, by + bh), (250, 200, 160), -1)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert box_above_footer(gray, edge_map(gray), button) is None


def hung_under_the_toolbar(*, page_line: bool = False) -> np.ndarray:
    """A dark `confirm()` hung from the toolbar's bottom edge, its top corners too faint to close its
    outline (the first rows beside it are as dark as its face: its shadow); with `page_line`, a line
    of the page runs on from its bottom border."""
    img = np.full((700, 1400, 3), PAGE, np.uint8)
    img[:60] = TOOLBAR
    x, y, w, h = DIALOG
    cv2.rectangle(img, (x, y), (x + w, y + h), (FACE, FACE, FACE), -1)
    img[60:66, x - 12 : x + w + 13] = FACE  # no side border in the first rows under the toolbar
    cv2.line(img, (x, y + h), (x + w, y + h), (70, 70, 70), 1)
    if page_line:
        cv2.line(img, (20, y + h), (x, y + h), (120, 120, 120), 1)  # a table's rule at the same height
        cv2.rectangle(img, (60, y + 60), (300, y + 130), (200, 200, 200), 1)  # a panel of the page beside it
    bx, by, bw, bh = BUTTON
    cv2.rectangle(img, (bx, by), (bx + bw, by + bh), (250, 200, 160), -1)
    cv2.putText(img, "OK", (bx + 28, by + 23), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (40, 40, 40), 1)
    return img


def test_a_dialog_hung_from_the_toolbar_s_edge_takes_that_edge_as_its_top():
    gray = cv2.cvtColor(hung_under_the_toolbar(), cv2.COLOR_BGR2GRAY)
    found = box_above_footer(gray, edge_map(gray), BUTTON)
    assert found is not None and iou(found, DIALOG) >= 0.9


def test_a_bottom_border_that_runs_on_along_the_page_gives_way_to_the_sides_nearest_the_button():
    gray = cv2.cvtColor(hung_under_the_toolbar(page_line=True), cv2.COLOR_BGR2GRAY)
    found = box_above_footer(gray, edge_map(gray), BUTTON)
    assert found is not None and iou(found, DIALOG) >= 0.9 and abs(found[0] - DIALOG[0]) <= 3


def test_a_button_with_no_border_under_it_rebuilds_nothing():
    img = np.full((700, 1400, 3), PAGE, np.uint8)
    cv2.rectangle(img, BUTTON[:2], (BUTTON[0] + BUTTON[2], BUTTON[1] + BUTTON[3]), (250, 200, 160), -1)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert box_above_footer(gray, edge_map(gray), BUTTON) is None
    assert find_modal(img) is None
