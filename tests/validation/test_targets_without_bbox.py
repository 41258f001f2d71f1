"""Targets recorded without a bbox (label + click point): the label is located by OCR near the click.

The integration incident: a box guessed around the click ([140, 4, 120, 40]) while the real
"Dossier patient" tab is [82, 8, 236, 32] made a CORRECT tab switch WRONG_APPLICATION although
the expected window title matched and the screen changed.
"""

from __future__ import annotations

import pytest
import yaml

from rpa_mcp.settings import shipped_dir
from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation import Expected, FailureCategory, Observed, Target, Validator, VerdictKind
from rpa_mcp.validation.locate import find_label, match_score
from rpa_mcp.validation.matrix import MATRIX_FILE, ValidatorMatrix
from rpa_mcp.vision.ocr import OcrLine, RapidOcrEngine
from tests.validation.helpers import load_pair, pair_ids

EDGE = Expected(window_title="Microsoft Edge")
ON_EDGE = Observed(
    window_title_before="Imagerie - Easily - Microsoft Edge",
    window_title_after="Dossier patient - Easily - Microsoft Edge",
)
GUESSED = (140, 4, 120, 40)  # what a 120x40 box around the click (200, 24) gives


@pytest.mark.parametrize("pair_id", pair_ids())
def test_each_fixture_pair_is_judged_right_without_its_bbox(validator: Validator, pair_id: str) -> None:
    p = load_pair(pair_id)
    verdict = validator.validate(p.action_type, p.before, p.after, p.target_without_bbox)
    got = (verdict.verdict.value, verdict.failure_category.value if verdict.failure_category else None)
    assert got == (p.expected_verdict, p.expected_category), verdict.reason
    assert verdict.evidence[0].checker == "TargetLocator"


def test_a_correct_tab_switch_with_only_a_click_point_is_a_success(validator: Validator) -> None:
    p = load_pair("p-tab-switch-ok")  # reversed: back from "Imagerie" to "Dossier patient"
    verdict = validator.validate(
        "switch_tab", p.after, p.before, Target("Dossier patient", None, (200, 24)), EDGE, ON_EDGE
    )
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason
    located = verdict.evidence[0]
    assert located.facts["bbox_source"] == "located"
    x, _y, w, _h = located.facts["label_bbox"]
    tx, _ty, tw, _th = p.truth.before.tab("Dossier patient").label_bbox
    assert abs(x - tx) <= 12 and abs((x + w) - (tx + tw)) <= 12  # the real label, not the guessed box


@pytest.mark.parametrize("observed", [ON_EDGE, Observed(window_title_after="Dossier patient - Microsoft Edge")])
def test_a_matching_expected_title_never_lets_a_guessed_box_say_wrong_application(
    validator: Validator, observed: Observed
) -> None:
    p = load_pair("p-tab-switch-ok")
    verdict = validator.validate("switch_tab", p.after, p.before, Target("Dossier patient", GUESSED), EDGE, observed)
    assert verdict.failure_category is not FailureCategory.WRONG_APPLICATION
    assert verdict.verdict is VerdictKind.SUCCESS and verdict.rule == "title-ok-label-active", verdict.reason


def test_a_box_the_caller_says_it_guessed_is_treated_as_a_click_point(validator: Validator) -> None:
    p = load_pair("p-tab-switch-ok")
    target = Target("Dossier patient", GUESSED, bbox_source="guessed")
    verdict = validator.validate("switch_tab", p.after, p.before, target, EDGE, ON_EDGE)
    assert verdict.verdict is VerdictKind.SUCCESS and verdict.rule == "tab-active", verdict.reason


@pytest.mark.parametrize(
    ("expected", "observed"),
    [
        (None, None),
        (
            None,
            Observed("Dossier patient - Easily - Microsoft Edge", "Visionneuse PACS — DURAND^ALICE — RX Thorax"),
        ),
        (None, Observed("Visionneuse PACS — DURAND^ALICE — RX Thorax", "Visionneuse PACS — DURAND^ALICE — RX Thorax")),
        (EDGE, Observed(window_title_after="Visionneuse PACS — DURAND^ALICE — RX Thorax")),
    ],
)
@pytest.mark.parametrize("with_bbox", [True, False])
def test_the_step_10_click_into_another_app_stays_wrong_application(
    validator: Validator, expected: Expected | None, observed: Observed | None, with_bbox: bool
) -> None:
    p = load_pair("p-wrong-application")
    target = p.target if with_bbox else p.target_without_bbox
    verdict = validator.validate("switch_tab", p.before, p.after, target, expected, observed)
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.WRONG_APPLICATION)


def test_without_the_label_near_the_click_the_guessed_box_lowers_the_confidence(matrix: ValidatorMatrix) -> None:
    import numpy as np

    before = np.full((200, 400, 3), 240, np.uint8)
    after = before.copy()
    after[120:180, 0:400] = 30  # something changed, far from any label
    verdict = Validator(matrix, FakeOcr()).validate("click_anchor", before, after, Target("Valider", None, (50, 20)))
    assert verdict.evidence[0].facts["bbox_source"] == "guessed"
    assert verdict.verdict is VerdictKind.FAILURE and verdict.confidence < 0.7  # target-elsewhere is 0.7 otherwise


def test_a_wrong_application_rule_is_overruled_by_a_matching_expected_title(tmp_path, matrix) -> None:
    import numpy as np

    raw = yaml.safe_load((shipped_dir("catalog") / MATRIX_FILE).read_text(encoding="utf-8"))
    rules = raw["actions"]["switch_tab"]["rules"]
    raw["actions"]["switch_tab"]["rules"] = [r for r in rules if not r["id"].startswith("title-ok")]
    (tmp_path / MATRIX_FILE).write_text(yaml.safe_dump(raw), encoding="utf-8")
    validator = Validator.from_catalog(tmp_path, FakeOcr())
    before = np.full((300, 800, 3), 240, np.uint8)
    after = before.copy()
    after[100:280, :] = 20
    verdict = validator.validate("switch_tab", before, after, Target("Imagerie", (318, 8, 236, 32)), EDGE, ON_EDGE)
    assert verdict.rule == "title-contradicts-wrong-application"
    assert verdict.verdict is VerdictKind.UNCERTAIN and verdict.failure_category is None
    assert "target-covered" in verdict.reason


@pytest.mark.parametrize(
    ("read", "label", "ok"),
    [
        ("Dossier patient", "Dossier patient", True),
        ("ssier patient", "Dossier patient", True),  # the favicon ate the first letters
        ("*CR_consultation_DURAND.txt - Bloc-notes", "CR_consultation_DURAND.txt - Bloc-notes", True),
        ("Imagerle", "Imagerie", True),
        ("Biologie", "Imagerie", False),
        ("ie", "Imagerie", False),
    ],
)
def test_label_location_matches_fuzzily(read: str, label: str, ok: bool) -> None:
    assert (match_score(read, label)[0] >= 0.78) is ok


def test_the_nearest_of_several_matching_lines_is_the_target() -> None:
    lines = [OcrLine("Imagerie", (10, 300, 60, 20), 1.0), OcrLine("Imagerie", (240, 10, 60, 20), 1.0)]
    hit = find_label(lines, (100, 0), "Imagerie", (360, 20))
    assert hit is not None and hit.bbox == (340, 10, 60, 20)


def test_only_lines_of_the_band_around_the_click_are_read(matrix: ValidatorMatrix, ocr_engine: RapidOcrEngine) -> None:
    class Spy:
        def __init__(self) -> None:
            self.detected: list[tuple[int, ...]] = []
            self.recognised: list[tuple[int, ...]] = []

        def read(self, image):  # type: ignore[no-untyped-def]
            self.detected.append(image.shape)
            return ocr_engine.read(image)

        def read_line(self, image):  # type: ignore[no-untyped-def]
            self.recognised.append(image.shape)
            return ocr_engine.read_line(image)

        def read_lines(self, images):  # type: ignore[no-untyped-def]
            self.recognised.extend(image.shape for image in images)
            return ocr_engine.read_lines(images)

    spy = Spy()
    p = load_pair("p-tab-closed")
    verdict = Validator(matrix, spy).validate(p.action_type, p.before, p.after, p.target_without_bbox)
    assert verdict.verdict is VerdictKind.SUCCESS
    assert spy.detected == []  # no text detector: lines are found with morphology, then recognised
    assert spy.recognised and all(h <= 120 and w <= 600 for h, w, _ in spy.recognised)


def _tab_label_box(pair_id: str) -> tuple[int, int, int, int]:
    truth = load_pair(pair_id).truth
    box = truth.before.tab(truth.action.label or "").label_bbox
    return box


@pytest.mark.parametrize(
    "pair_id",
    ["p-tab-switch-ok", "p-wrong-application", "p-tab-closed", "p-clock-only",
     "p-tab-switch-dark-1440-chrome", "p-wrong-tab"],
)  # fmt: skip
def test_a_tab_given_by_its_label_box_is_judged_on_the_tab_drawn_around_it(validator: Validator, pair_id: str) -> None:
    """The shadow area records the clicked label's own box: a 17-px-high box is a label, not a tab."""
    p = load_pair(pair_id)
    verdict = validator.validate(p.action_type, p.before, p.after, Target(p.target.label, _tab_label_box(pair_id)))
    got = (verdict.verdict.value, verdict.failure_category.value if verdict.failure_category else None)
    assert got == (p.expected_verdict, p.expected_category), verdict.reason


def test_typed_text_is_found_in_the_region_that_changed_beside_a_guessed_box(
    matrix: ValidatorMatrix, ocr_engine: RapidOcrEngine
) -> None:
    import cv2
    import numpy as np

    before = np.full((400, 1000, 3), 250, np.uint8)
    after = before.copy()
    cv2.putText(after, "Patient calme, douleur 2/10", (120, 230), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2)
    box = (560, 110, 120, 40)  # guessed around the click on the field's label, the text lands below-left
    validator = Validator(matrix, ocr_engine)
    ok = validator.validate(
        "type_text", before, after, Target("Texte", box), Expected(text="Patient calme, douleur 2/10")
    )
    assert ok.verdict is VerdictKind.SUCCESS, ok.reason
    wrong = validator.validate("type_text", before, after, Target("Texte", box), Expected(text="Patient agité"))
    assert wrong.failure_category is FailureCategory.TEXT_MISMATCH


def test_a_dialog_the_classifier_no_longer_sees_is_closed() -> None:
    import numpy as np

    from rpa_mcp.testing import FakeDialogLocator
    from rpa_mcp.validation import DialogHit
    from rpa_mcp.validation.checkers import ALL_CHECKERS
    from rpa_mcp.validation.context import CheckContext

    before = np.full((1080, 1920, 3), 250, np.uint8)
    after = before.copy()
    after[440:470, 700:900] = 120  # little changed inside the dialog box (white dialog on a white page)
    hit = DialogHit((700, 360, 444, 200), "easily-save-confirm", "C", "auto", "Confirmer l'enregistrement", 1.0)
    c = CheckContext(
        "dialog_button", before, after, Target("Confirmer", (1084, 499, 120, 40)), Expected(), Observed(),
        FakeOcr(), dialog_locator=FakeDialogLocator(before=hit, after=None),
    )  # fmt: skip
    result = ALL_CHECKERS["DialogClosedChecker"].check(c, "closed", {})
    assert result.score == pytest.approx(0.9) and "no dialog after" in result.detail
