"""A tab strip whose inactive tabs are filled darker than a strip the active tab shares (Qt's
Fusion style, KDE programs): one frame cannot tell which tab is active; the two frames can."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.validation import Target, Validator, VerdictKind
from rpa_mcp.validation.checkers.text import _before_trailing_glyph

STRIP, ACTIVE, INACTIVE, PAGE = (241, 240, 239), (244, 243, 242), (223, 222, 221), (248, 247, 246)
TABS = {"bilan.txt": (60, 150), "courrier.txt": (214, 170)}  # x, width
TOP, HEIGHT = 60, 40


def frame(active: str, page_text: str) -> np.ndarray:
    image = np.full((700, 1200, 3), STRIP, np.uint8)
    image[TOP + HEIGHT :] = PAGE
    for name, (x, w) in TABS.items():
        image[TOP : TOP + HEIGHT, x : x + w] = ACTIVE if name == active else INACTIVE
        cv2.putText(image, name, (x + 12, TOP + 27), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
    cv2.putText(image, page_text, (20, 160), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
    return image


def target(name: str) -> Target:
    x, w = TABS[name]
    return Target(name, (x, TOP, w, HEIGHT), (x + w // 2, TOP + HEIGHT // 2))


def test_a_clicked_tab_that_took_its_neighbours_background_is_the_active_one(validator: Validator) -> None:
    before, after = frame("courrier.txt", "Courrier au medecin"), frame("bilan.txt", "Bilan sanguin du 12/03")
    verdict = validator.validate("switch_tab", before, after, target("bilan.txt"))
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason


def test_a_tab_whose_background_did_not_change_is_not_made_active_by_a_neighbours_change(
    validator: Validator,
) -> None:
    # the page changed and the other tab's look changed, the clicked tab's did not: no swap
    before = frame("courrier.txt", "Courrier au medecin")
    after = before.copy()
    x, w = TABS["courrier.txt"]
    after[TOP : TOP + HEIGHT, x : x + w] = INACTIVE
    cv2.putText(after, "courrier.txt", (x + 12, TOP + 27), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
    verdict = validator.validate("switch_tab", before, after, target("bilan.txt"))
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason


def test_a_tabs_close_cross_after_a_gap_is_left_out_of_its_label() -> None:
    image = np.full((60, 200, 3), 244, np.uint8)
    image[5, :] = image[54, :] = 170  # the tab's outline
    cv2.putText(image, "bilan.txt", (8, 36), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
    cv2.line(image, (112, 24), (122, 34), (30, 30, 30), 2)  # the close cross, 14 px after the label
    cv2.line(image, (112, 34), (122, 24), (30, 30, 30), 2)
    bare = _before_trailing_glyph(image, (0, 0, 200, 60))
    assert bare is not None
    x, y, w, h = bare
    assert 60 <= x + w < 112 and y > 5 and y + h < 54  # the letters only: no cross, no outline


def wide(active: int) -> np.ndarray:
    """Two document tabs, each half the strip (GTK 3's notebook in an editor), the active one
    underlined in the accent colour across its whole width: half the row."""
    image = np.full((700, 1200, 3), (235, 235, 235), np.uint8)
    image[TOP + HEIGHT :] = (255, 255, 255)
    for i, name in enumerate(("bilan.txt", "courrier.txt")):
        x = 4 + i * 596
        cv2.putText(image, name, (x + 250, TOP + 27), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
        if i == active:
            image[TOP + HEIGHT - 4 : TOP + HEIGHT, x : x + 592] = (228, 132, 53)
    return image


def test_an_underline_as_wide_as_half_the_strip_that_moved_under_the_clicked_tab(validator: Validator) -> None:
    label = Target("courrier.txt", (842, TOP + 4, 120, 32), (902, TOP + 20))
    verdict = validator.validate("switch_tab", wide(0), wide(1), label)
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason
    # the underline stayed under the other tab: the click did not select this one
    verdict = validator.validate("switch_tab", wide(0), _with_page_change(wide(0)), label)
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason


def _with_page_change(image: np.ndarray) -> np.ndarray:
    changed = image.copy()
    cv2.putText(changed, "Courrier au medecin", (20, 200), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
    return changed
