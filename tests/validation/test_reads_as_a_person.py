"""Checks read as a person reads: a control's own decoration does not make its label a mismatch.

Seen on a web form: "Conditionnement" read as "Conditionnement-choisir—" (the drop-down's empty choice).
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation.checkers.text import OcrRoiChecker
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import Expected, Observed, Target
from rpa_mcp.validation.text import label_matches, text_begins, text_equals
from rpa_mcp.vision.ocr import OcrLine


def test_a_drop_down_empty_choice_beside_its_label_is_not_a_mismatch() -> None:
    assert label_matches("Conditionnement-choisir—", "Conditionnement")
    assert label_matches("Conditionnement — Sélectionner —", "Conditionnement")
    assert label_matches("Service -- select --", "Service")


def test_a_checkbox_box_before_its_label_is_not_a_mismatch() -> None:
    assert label_matches("☐ Urgent", "Urgent") and label_matches("[x] Urgent", "Urgent")


def test_another_word_beside_the_label_is_still_a_mismatch() -> None:
    assert not label_matches("Conditionnement Boîte", "Conditionnement")
    assert not label_matches("Urgentissime", "Urgent")
    assert not label_matches("choisir", "Conditionnement")


def test_the_label_check_reads_the_drop_down_label_with_its_empty_choice() -> None:
    frame = np.full((120, 400, 3), 255, np.uint8)
    ctx = CheckContext(
        "click_anchor",
        frame,
        frame.copy(),
        Target("Conditionnement", (20, 40, 300, 30)),
        Expected(),
        Observed(),
        FakeOcr([OcrLine("Conditionnement-choisir—", (0, 0, 10, 10), 0.98)]),
    )
    assert OcrRoiChecker().run(ctx, "label", {"frame": "after", "what": "target_label"}).score == 1.0


def test_the_caret_after_text_just_typed_is_not_part_of_what_the_field_holds() -> None:
    assert text_equals("Chute à domicilel", "Chute à domicile", caret=True)  # the cursor read as an l
    assert text_equals("Chute à domicile|", "Chute à domicile", caret=True)
    assert not text_equals("Chute à domicilel", "Chute à domicile")  # anywhere else, a letter is a letter
    assert not text_equals("PETITBERNARD", "BERNARD", caret=True) and not text_equals("BERNARDO", "BERNARD", caret=True)


def test_a_field_still_drawing_the_text_typed_reads_a_strict_beginning_of_it() -> None:
    assert text_begins("BOYE", "BOYER") and text_begins("RENAU", "RENAUD") and text_begins("B", "BOYER")
    assert text_begins("BOYE|", "BOYER") and text_begins("Douleur thor", "Douleur thoracique")  # a caret after it
    assert text_begins("BER", "BERNARD")  # cut between the r and n read together as an m elsewhere
    assert not text_begins("BOYER", "BOYER") and not text_begins("BOYERS", "BOYER")  # whole, or an extra letter
    assert not text_begins("BOYEZ", "BOYER") and not text_begins("OYER", "BOYER")  # a wrong letter, not its start
    assert not text_begins("", "BOYER") and not text_begins(None, "BOYER")  # an empty field says nothing


def test_the_typed_check_reads_a_field_with_its_caret_as_the_text_typed() -> None:
    before, after = np.full((120, 400, 3), 255, np.uint8), np.full((120, 400, 3), 255, np.uint8)
    after[50:60, 40:200] = 0  # the text appeared
    ctx = CheckContext(
        "type_text",
        before,
        after,
        Target("Motif d'admission", (20, 40, 300, 30)),
        Expected(text="Chute à domicile"),
        Observed(),
        FakeOcr([OcrLine("Chute à domicilel", (0, 0, 10, 10), 0.98)]),
    )
    params = {"frame": "after", "what": "expected_text", "match": "whole"}
    assert OcrRoiChecker().run(ctx, "typed", params).score == 1.0
