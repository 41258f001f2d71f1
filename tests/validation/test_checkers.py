"""Checkers one by one, on synthetic frames and fakes (no OCR model)."""

from __future__ import annotations

import numpy as np
import pytest

from rpa_mcp.errors import InvalidInput
from rpa_mcp.testing import FakeDialogLocator, FakeJudge, FakeOcr
from rpa_mcp.validation import DialogHit, Expected, Observed, Target
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import CheckContext, DiffSettings
from rpa_mcp.validation.text import has_modified_marker, label_matches, says_saved
from rpa_mcp.vision.ocr import OcrLine


def frame(height: int = 1080, width: int = 1920) -> np.ndarray:
    return np.full((height, width, 3), 240, np.uint8)


def ctx(before: np.ndarray, after: np.ndarray, **kw: object) -> CheckContext:
    args: dict[str, object] = {"target": Target(), "expected": Expected(), "observed": Observed(), "ocr": FakeOcr()}
    args.update(kw)
    return CheckContext(action_type="click_anchor", before=before, after=after, **args)  # type: ignore[arg-type]


def check(name: str, c: CheckContext, **params: object):
    return ALL_CHECKERS[name].check(c, "s", params)


def test_pixel_diff_ignores_the_taskbar_clock_and_isolated_specks() -> None:
    before, after = frame(), frame()
    after[1045:1070, 1850:1900] = 0  # the clock ticks
    after[500, 700] = 0  # one pixel of noise
    result = check("PixelDiffChecker", ctx(before, after))
    assert result.score == 0.0 and "clock" in result.detail and "speck" in result.detail


def test_pixel_diff_sees_a_real_change_and_times_itself() -> None:
    before, after = frame(), frame()
    after[300:340, 400:700] = 20
    result = check("PixelDiffChecker", ctx(before, after))
    assert result.score == 1.0 and result.passed and result.duration_ms >= 0
    assert result.crop is not None and result.crop.bbox[0] <= 400


def test_json_schema_checker_scores_valid_and_invalid_output() -> None:
    schema = {"type": "object", "required": ["ipp"], "properties": {"ipp": {"type": "string"}}}
    ok = ctx(frame(8, 8), frame(8, 8), expected=Expected(json_schema=schema, output={"ipp": "1"}, has_output=True))
    bad = ctx(frame(8, 8), frame(8, 8), expected=Expected(json_schema=schema, output={"ipp": 1}, has_output=True))
    assert check("JsonSchemaChecker", ok).score == 1.0
    result = check("JsonSchemaChecker", bad)
    assert result.score == 0.0 and "ipp" in result.detail


def test_an_invalid_json_schema_is_invalid_input_naming_the_field() -> None:
    c = ctx(frame(8, 8), frame(8, 8), expected=Expected(json_schema={"type": 12}, output={}, has_output=True))
    with pytest.raises(InvalidInput) as err:
        check("JsonSchemaChecker", c)
    assert err.value.code == "invalid-input" and err.value.details["field"] == "expected.json_schema"


def test_the_judge_is_off_without_a_port_and_asked_with_one() -> None:
    assert check("LlmJudgeChecker", ctx(frame(8, 8), frame(8, 8))).score is None
    judge = FakeJudge(success=False, confidence=0.9)
    result = check("LlmJudgeChecker", ctx(frame(64, 64), frame(64, 64), judge=judge, target=Target("OK")))
    assert result.score == pytest.approx(0.1) and judge.questions and "'OK'" in judge.questions[0]


def test_dialog_presence_trusts_the_dialog_locator_and_ignores_skip_dialogs() -> None:
    toast = DialogHit((10, 10, 100, 40), "easily-toast-saved", "C", "skip", "Enregistré", 1.0)
    modal = DialogHit((10, 10, 100, 40), "easily-session-expired", "C", "pause", "Session expirée", 0.92)
    always = {"classifier": "always"}  # an action that may open a dialog: the classifier is always asked
    c = ctx(frame(), frame(), dialog_locator=FakeDialogLocator(after=toast))
    assert check("DialogPresenceChecker", c, **always).score == 0
    result = check(
        "DialogPresenceChecker", ctx(frame(), frame(), dialog_locator=FakeDialogLocator(after=modal)), **always
    )
    assert result.score == pytest.approx(0.92) and result.facts["dialog_id"] == "easily-session-expired"


def test_a_box_s_changed_share_is_the_change_map_s_whether_the_map_is_made_or_not() -> None:
    before, after = frame(), frame()
    after[400:500, 600:1000] = 90  # a quarter of the box below
    box = (600, 400, 400, 400)
    alone = ctx(before, after).changed_share(box)
    with_map = ctx(before, after)
    with_map.change()
    assert alone == pytest.approx(0.25) and with_map.changed_share(box) == pytest.approx(0.25)


def test_a_dialog_drawn_where_the_page_was_is_judged_without_classifying_the_frame_before() -> None:
    modal = DialogHit((600, 400, 400, 200), "browser-js-alert", "B", "pause", "127.0.0.1 says", 0.9)
    before, after = frame(), frame()
    after[400:600, 600:1000] = 90  # a tenth of its box or more changed: not the dialog of before
    locator = FakeDialogLocator(before=modal, after=modal)
    result = check("DialogPresenceChecker", ctx(before, after, dialog_locator=locator), classifier="always")
    assert result.score >= 0.8 and "appeared" in result.detail
    assert locator.calls == 1  # the AFTER frame only


def test_a_dialog_unchanged_in_place_is_judged_on_its_pixels() -> None:
    modal = DialogHit((600, 400, 400, 200), "browser-leave-site", "B", "pause", "Leave site?", 0.95)
    locator = FakeDialogLocator(before=modal, after=modal)
    result = check("DialogPresenceChecker", ctx(frame(), frame(), dialog_locator=locator), classifier="always")
    assert result.score >= 0.9 and result.facts["blocking"] is True and "before the action" in result.detail
    assert locator.calls == 1  # its box did not change by a pixel: no need to classify the frame before


def test_a_dialog_whose_box_changed_a_little_is_compared_with_the_frame_before() -> None:
    modal = DialogHit((600, 400, 400, 200), "browser-leave-site", "B", "pause", "Leave site?", 0.95)
    before, after = frame(), frame()
    after[560:580, 880:980] = 90  # a button's hover: between a hundredth and a tenth of the box
    locator = FakeDialogLocator(before=modal, after=modal)
    result = check("DialogPresenceChecker", ctx(before, after, dialog_locator=locator), classifier="always")
    assert result.score >= 0.9 and result.facts["blocking"] is True
    assert locator.calls == 2


def test_a_click_inside_a_new_dialog_still_asks_whether_one_was_there_before() -> None:
    modal = DialogHit((600, 400, 400, 200), "browser-leave-site", "B", "pause", "Leave site?", 0.95)
    before, after = frame(), frame()
    after[400:600, 600:1000] = 90
    locator = FakeDialogLocator(before=None, after=modal)
    c = ctx(before, after, dialog_locator=locator, target=Target("Leave", (900, 560, 80, 24)))
    result = check("DialogPresenceChecker", c, classifier="always")
    assert result.score >= 0.8 and locator.calls == 2  # opened where the click landed: its effect


def test_dialog_presence_finds_a_modal_over_a_dimmed_page_without_a_locator() -> None:
    before = frame()
    after = (before * 0.6).astype(np.uint8)
    after[400:600, 700:1200] = 250  # the dialog is not dimmed
    result = check("DialogPresenceChecker", ctx(before, after))
    assert result.passed and result.facts["bbox"][0] == pytest.approx(700, abs=8)


def test_dialog_closed_uses_the_classifiers_box_when_given() -> None:
    box = DialogHit((600, 400, 400, 200), "notepad-save-changes", "D", "pause", "Notepad", 1.0)
    c = ctx(frame(), frame(), target=Target(None, (900, 560, 80, 24)), dialog_locator=FakeDialogLocator(box, box))
    result = check("DialogClosedChecker", c)
    assert result.score == 0.0 and "still" in result.detail


def answered_dialog() -> tuple[np.ndarray, np.ndarray, DialogHit, Target]:
    hit = DialogHit((600, 400, 400, 200), "easily-save-confirm", "C", "confirm", "Enregistrer ?", 0.95)
    before, after = frame(), frame()
    before[400:600, 600:1000] = 200  # the dialog, gone after
    before[560:584, 900:980] = 120  # its button
    return before, after, hit, Target("Enregistrer", (900, 560, 80, 24))


def test_a_dialog_gone_with_its_button_is_closed_without_classifying_the_frame_before() -> None:
    before, after, hit, button = answered_dialog()
    locator = FakeDialogLocator(before=hit, after=None)
    result = check("DialogClosedChecker", ctx(before, after, target=button, dialog_locator=locator))
    assert result.score == 1.0 and "no dialog after" in result.detail
    assert locator.calls == 1  # the AFTER frame only


def test_a_button_still_written_sends_the_checker_to_the_dialog_of_before() -> None:
    before, after, hit, button = answered_dialog()
    after[:] = before  # nothing closed
    locator = FakeDialogLocator(before=hit, after=None)  # the classifier missed it after
    ocr = FakeOcr([OcrLine("Enregistrer", (0, 0, 80, 24), 0.99)])
    result = check("DialogClosedChecker", ctx(before, after, target=button, dialog_locator=locator, ocr=ocr))
    assert result.score == 0.0 and "still on screen" in result.detail and locator.calls == 2


def test_a_button_gone_from_surroundings_that_hardly_changed_is_judged_on_the_dialog_of_before() -> None:
    before, after, hit, button = answered_dialog()
    after[:] = before
    after[560:584, 900:980] = 200  # only the button went (a redraw): its surroundings did not close
    locator = FakeDialogLocator(before=hit, after=None)
    result = check("DialogClosedChecker", ctx(before, after, target=button, dialog_locator=locator))
    assert locator.calls == 2 and "no dialog after, button" not in result.detail


def test_title_bar_compares_the_observed_application() -> None:
    moved = Observed("Dossier - MédiDossier - Microsoft Edge", "Visionneuse PACS — DURAND — RX", "pacs.exe")
    same = Observed("Dossier - MédiDossier - Microsoft Edge", "Imagerie - MédiDossier - Microsoft Edge")
    assert check("TitleBarChecker", ctx(frame(8, 8), frame(8, 8), observed=moved)).score == 0.0
    assert check("TitleBarChecker", ctx(frame(8, 8), frame(8, 8), observed=same)).score == 1.0
    assert check("TitleBarChecker", ctx(frame(8, 8), frame(8, 8))).score is None


def test_ocr_roi_reads_only_the_target_box() -> None:
    ocr = FakeOcr([OcrLine("Imagerie", (0, 0, 10, 10), 0.99)])
    c = ctx(frame(), frame(), ocr=ocr, target=Target("imagerie", (318, 8, 236, 32)))
    assert check("OcrRoiChecker", c, frame="after", box="tab").score == 1.0
    assert ocr.calls == 1


@pytest.mark.parametrize(
    ("read", "label", "ok"),
    [
        ("Imageriex", "Imagerie", True),  # close cross read as 'x'
        ("+ Imagerie", "Imagerie", True),
        ("Biologle", "Biologie", True),  # l/i confusion folded
        ("Don'tSave", "Don't Save", True),
        ("Imagerie", "Image", False),
        ("Biologie", "Imagerie", False),
        ("", "Imagerie", False),
    ],
)
def test_label_matching_is_exact_up_to_accents_case_spaces_and_decorations(read: str, label: str, ok: bool) -> None:
    assert label_matches(read, label) is ok


def test_saved_and_unsaved_wording_is_told_apart() -> None:
    assert says_saved("Enregistré") and says_saved("All changes saved")
    assert not says_saved("Modifications non enregistrées")
    assert has_modified_marker("*CR.txt - Bloc-notes") and not has_modified_marker("CR.txt - Bloc-notes")


def test_default_diff_settings_match_the_matrix(matrix) -> None:
    assert matrix.defaults.diff.settings() == DiffSettings()


def test_the_dialog_locator_gets_the_window_the_agent_reported_in_front_of_each_frame() -> None:
    locator = FakeDialogLocator()
    observed = Observed(window_title_before="Notes", window_title_after="Error", process_after="wish")
    c = ctx(frame(), frame(), dialog_locator=locator, observed=observed)
    c.dialog("after")
    c.dialog("before")
    assert locator.windows == [(("Error", "wish"),), (("Notes", None),)]


def test_the_dialog_locator_gets_no_window_when_the_agent_reported_none() -> None:
    locator = FakeDialogLocator()
    ctx(frame(), frame(), dialog_locator=locator).dialog("after")
    assert locator.windows == [()]
