"""Post-conditions: a step is SUCCESS only when what the demonstration showed after it is seen again.

The frames are drawn here: a form with a "Valider" button; after the click the application answers
with the banner the demonstration showed, its own error, or its own confirmation box.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rpa_mcp.validation import Expected, FailureCategory, Target, Validator, VerdictKind

W, H = 1280, 720
BUTTON = (560, 480, 140, 44)
VALIDER = Target("Valider", BUTTON)
SAVED = "Dispensation enregistree"
ERROR = "Champs obligatoires : conditionnement, double controle"


def _text(img: np.ndarray, text: str, x: int, y: int, color: tuple[int, int, int] = (30, 30, 30)) -> None:
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, color, 2, cv2.LINE_AA)


def form() -> np.ndarray:
    img = np.full((H, W, 3), 246, np.uint8)
    cv2.rectangle(img, (0, 0), (W, 56), (90, 60, 30), -1)
    _text(img, "Dispensation des ordonnances", 24, 38, (255, 255, 255))
    _text(img, "Quantite", 300, 220)
    cv2.rectangle(img, (480, 190), (900, 232), (160, 160, 160), 1)
    x, y, w, h = BUTTON
    cv2.rectangle(img, (x, y), (x + w, y + h), (150, 100, 20), -1)
    _text(img, "Valider", x + 20, y + 30, (255, 255, 255))
    return img


def banner(text: str, color: tuple[int, int, int]) -> np.ndarray:
    img = form()
    cv2.rectangle(img, (300, 90), (1000, 140), color, -1)
    _text(img, text, 320, 124, (255, 255, 255))
    return img


def confirmation_box() -> np.ndarray:
    """The application's own box over the button (no dimmed page around it)."""
    img = form()
    cv2.rectangle(img, (420, 360), (860, 600), (255, 255, 255), -1)
    cv2.rectangle(img, (420, 360), (860, 600), (90, 90, 90), 2)
    _text(img, "Confirmer la dispensation ?", 440, 420)
    for label, x in (("Oui", 520), ("Non", 680)):
        cv2.rectangle(img, (x, 520), (x + 90, 560), (200, 200, 200), -1)
        _text(img, label, x + 20, 548)
    return img


def pressed() -> np.ndarray:
    """The button changes colour under the click and nothing else happens."""
    img = form()
    x, y, w, h = BUTTON
    cv2.rectangle(img, (x, y), (x + w, y + h), (60, 40, 10), -1)
    _text(img, "Valider", x + 20, y + 30, (255, 255, 255))
    return img


def outcome(text: str = SAVED) -> Expected:
    return Expected(outcome_kind="message", outcome_text=text)


def test_the_banner_the_demonstration_showed_makes_the_click_a_success(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("click_anchor", form(), banner(SAVED, (60, 140, 60)), VALIDER, outcome())
    assert (verdict.verdict, verdict.rule) == (VerdictKind.SUCCESS, "outcome-seen")


def test_an_error_banner_after_the_click_is_an_unexpected_outcome_with_its_text(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("click_anchor", form(), banner(ERROR, (40, 40, 190)), VALIDER, outcome())
    assert verdict.verdict is VerdictKind.FAILURE
    assert verdict.failure_category is FailureCategory.UNEXPECTED_OUTCOME
    unexpected = next(r for r in verdict.evidence if r.signal == "unexpected")
    assert "obligatoires" in unexpected.facts["message"].lower() and unexpected.facts["kind"] == "error"


def test_an_error_banner_fails_a_step_whose_demonstration_showed_nothing(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("click_anchor", form(), banner(ERROR, (40, 40, 190)), VALIDER)
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.UNEXPECTED_OUTCOME)


def test_the_applications_own_confirmation_box_is_not_a_success(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("click_anchor", form(), confirmation_box(), VALIDER, outcome())
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.UNEXPECTED_OUTCOME)
    assert any("Confirmer" in str(r.facts.get("message", "")) for r in verdict.evidence)


def test_a_change_of_pixels_is_never_enough_when_the_demonstration_showed_an_outcome(
    bare_validator: Validator,
) -> None:
    verdict = bare_validator.validate("click_anchor", form(), pressed(), VALIDER, outcome())
    assert (verdict.verdict, verdict.rule) == (VerdictKind.FAILURE, "outcome-missing")
    assert verdict.failure_category is FailureCategory.UNEXPECTED_OUTCOME


def test_without_an_outcome_a_reacting_element_is_still_a_success(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("click_anchor", form(), pressed(), VALIDER)
    assert verdict.verdict is VerdictKind.SUCCESS


def test_a_window_title_outcome_is_judged_on_the_title_the_agent_reported(bare_validator: Validator) -> None:
    from rpa_mcp.validation import Observed

    wanted = Expected(outcome_kind="window_title", outcome_text="Admission - MOREL")
    seen = Observed("Recherche - App", "Admission - MOREL Jean - App")
    other = Observed("Recherche - App", "Admission - FAURE Celine - App")
    ok = bare_validator.validate("click_anchor", form(), banner(SAVED, (60, 140, 60)), VALIDER, wanted, seen)
    ko = bare_validator.validate("click_anchor", form(), banner(SAVED, (60, 140, 60)), VALIDER, wanted, other)
    assert ok.verdict is VerdictKind.SUCCESS
    assert (ko.verdict, ko.rule) == (VerdictKind.FAILURE, "outcome-missing")


@pytest.mark.parametrize("action_type", ["save", "key_press"])
def test_keys_and_saves_check_the_outcome_too(bare_validator: Validator, action_type: str) -> None:
    verdict = bare_validator.validate(action_type, form(), banner(ERROR, (40, 40, 190)), VALIDER, outcome())
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.UNEXPECTED_OUTCOME)


def form_panel() -> np.ndarray:
    """A form the application opens by design: many lines, one of them a note on required fields."""
    img = form()
    cv2.rectangle(img, (300, 80), (1000, 460), (255, 255, 255), -1)
    for i, line in enumerate(["Nouvelle dispensation", "Patient", "Medicament", "Quantite", "Date"]):
        _text(img, line, 330, 130 + 50 * i)
    _text(img, "* Champs obligatoires", 330, 430)
    return img


def test_a_form_whose_note_names_required_fields_is_not_an_error(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("click_anchor", form(), form_panel(), VALIDER)
    unexpected = next(r for r in verdict.evidence if r.signal == "unexpected")
    assert unexpected.score == 0.0 and verdict.verdict is VerdictKind.SUCCESS


def test_a_form_the_demonstration_showed_is_the_steps_outcome(bare_validator: Validator) -> None:
    wanted = Expected(outcome_kind="dialog", outcome_text="Nouvelle dispensation")
    verdict = bare_validator.validate("click_anchor", form(), form_panel(), VALIDER, wanted)
    assert (verdict.verdict, verdict.rule) == (VerdictKind.SUCCESS, "expected-dialog")


def record_page(error: bool, message: str = ERROR) -> np.ndarray:
    """A form over its history: the heading 'Observations enregistrees' and four saved notes below the button.
    With `error`, the application's banner (`message`) comes in under the button and pushes them down."""
    img = form()
    top = 560 + (50 if error else 0)
    if error:
        cv2.rectangle(img, (300, 532), (1000, 572), (232, 232, 253), -1)  # light red, dark red words
        cv2.rectangle(img, (300, 532), (1000, 572), (28, 28, 155), 1)
        _text(img, message, 320, 560, (28, 28, 155))
    _text(img, "Observations enregistrees", 300, top)
    for n, note in enumerate(("Patient calme, douleur 2/10", "Pansement refait", "Leve au fauteuil", "Tension 12/8")):
        cv2.putText(img, note, (330, top + 28 + 24 * n), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
    return img


def test_content_pushed_down_by_an_error_banner_is_not_a_form_and_the_error_is_seen(
    bare_validator: Validator,
) -> None:
    verdict = bare_validator.validate(
        "click_anchor", record_page(False), record_page(True), VALIDER, outcome("Enregistre")
    )
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.UNEXPECTED_OUTCOME)
    unexpected = next(r for r in verdict.evidence if r.signal == "unexpected")
    assert unexpected.score == 1.0 and "obligatoires" in unexpected.facts["message"].lower(), unexpected


def test_an_outcome_is_never_the_start_of_another_word_nor_a_line_that_only_moved(
    bare_validator: Validator,
) -> None:
    after = record_page(True, "Patient transfere en cardiologie")  # a notice, neither error nor confirmation
    verdict = bare_validator.validate("click_anchor", record_page(False), after, VALIDER, outcome("Enregistre"))
    assert (verdict.verdict, verdict.rule) == (VerdictKind.FAILURE, "outcome-missing")
    seen = next(r for r in verdict.evidence if r.signal == "outcome")
    assert seen.score == 0.0, seen  # "Observations enregistrees" moved: it is neither new nor the word


def test_words_written_keeps_word_boundaries_and_tolerates_lost_spaces() -> None:
    from rpa_mcp.validation.text import words_written

    assert words_written("Toast: Enregistré.", "Enregistré")
    assert words_written("Observationenregistrée", "Observation enregistrée")
    assert not words_written("Observations enregistrées", "Enregistré")
    assert not words_written(None, "Enregistré")
