"""A click on a pop-up list's option is judged by what the drop-down shows after the list closed.

Seen on a Java Swing desk whose product drop-down was learned as two plain clicks ("choisir", then the
option): the option's click changed pixels around it (the list closing) and its label had been there before,
so the step was SUCCESS while the drop-down then showed another option ("Concentre plaquettaire" for
"Concentre de globules rouges"): the run reported completed with the wrong product saved.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.validation import Validator
from rpa_mcp.validation.model import Expected, Observed, Target

OPTIONS = (
    "-- choisir --",
    "Concentre de globules rouges",
    "Plasma frais congele",
    "Concentre plaquettaire",
    "Plasma lyophilise",
    "Cryoprecipite",
)
FIELD = (300, 100, 300, 26)  # the drop-down's field
ROW = 24  # px per row of its list, drawn right under the field
PANEL = 204  # the window's grey, which the list is drawn in too
TITLE = "Transfusion - Demande"


def _text(frame: np.ndarray, text: str, x: int, y: int) -> None:
    cv2.putText(frame, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 1, cv2.LINE_AA)


def _form(shown: str, *, open_list: bool) -> np.ndarray:
    frame = np.full((480, 900, 3), PANEL, np.uint8)
    _text(frame, "Produit :", 180, 118)
    _text(frame, "Nombre d'unites :", 120, 160)
    _text(frame, "Date de transfusion :", 100, 200)
    cv2.rectangle(frame, (420, 145), (480, 168), (255, 255, 255), -1)
    cv2.rectangle(frame, (420, 185), (560, 208), (255, 255, 255), -1)
    x, y, w, h = FIELD
    cv2.rectangle(frame, (x, y), (x + w, y + h), (90, 90, 120), 1)
    _text(frame, shown, x + 6, y + 18)
    if open_list:
        top = y + h + 1
        cv2.rectangle(frame, (x, top), (x + w, top + ROW * len(OPTIONS)), (PANEL, PANEL, PANEL), -1)
        cv2.rectangle(frame, (x, top), (x + w, top + ROW * len(OPTIONS)), (0, 0, 0), 1)
        for i, option in enumerate(OPTIONS):
            _text(frame, option, x + 4, top + ROW * i + 17)
    return frame


def _row(option: str) -> tuple[int, int, int, int]:
    x, y, w, h = FIELD
    return x + 2, y + h + 1 + ROW * OPTIONS.index(option), w - 4, ROW


def _click(validator: Validator, after: np.ndarray, option: str) -> tuple[str, str | None, list[str]]:
    box = _row(option)
    verdict = validator.validate(
        "click_anchor",
        _form(OPTIONS[0], open_list=True),
        after,
        Target(label=option, bbox=box, point=(box[0] + 60, box[1] + ROW // 2)),
        Expected(window_title=TITLE),
        Observed(window_title_before=TITLE, window_title_after=TITLE),
    )
    fired = [e.signal for e in verdict.evidence if e.checker == "OptionSetChecker"]
    return verdict.verdict, verdict.failure_category, fired


def test_an_option_clicked_while_another_one_is_set_is_not_a_success(validator: Validator) -> None:
    after = _form("Concentre plaquettaire", open_list=False)  # the list gone, another product shown
    verdict, category, fired = _click(validator, after, "Concentre de globules rouges")
    assert fired == ["option"]
    assert (verdict, category) == ("FAILURE", "TEXT_MISMATCH")


def test_an_option_clicked_that_set_nothing_is_not_a_success(validator: Validator) -> None:
    after = _form(OPTIONS[0], open_list=False)  # the list gone, the drop-down still on its placeholder
    verdict, category, _ = _click(validator, after, "Concentre de globules rouges")
    assert (verdict, category) == ("FAILURE", "TEXT_MISMATCH")


def test_the_option_clicked_shown_in_the_drop_down_is_a_success(validator: Validator) -> None:
    after = _form("Concentre de globules rouges", open_list=False)
    verdict, category, _ = _click(validator, after, "Concentre de globules rouges")
    assert (verdict, category) == ("SUCCESS", None)


def test_a_closing_menu_whose_texts_show_nowhere_else_keeps_the_click_rules(validator: Validator) -> None:
    after = _form(OPTIONS[0], open_list=False)  # nothing the list showed moved: like a menu closing
    after[FIELD[1] : FIELD[1] + FIELD[3] + 1, FIELD[0] : FIELD[0] + FIELD[2] + 1] = PANEL  # the "menu title" gone
    verdict, _, _ = _click(validator, after, "Concentre de globules rouges")
    assert verdict == "SUCCESS"
