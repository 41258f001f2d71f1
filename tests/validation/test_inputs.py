"""Malformed inputs get clear error codes naming the field."""

from __future__ import annotations

import numpy as np
import pytest

from rpa_mcp.errors import InvalidInput
from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation import Target, Validator, VerdictKind
from rpa_mcp.validation.matrix import ValidatorMatrix


@pytest.fixture
def cheap(matrix: ValidatorMatrix) -> Validator:
    return Validator(matrix, FakeOcr())


def frame(h: int = 100, w: int = 200) -> np.ndarray:
    return np.zeros((h, w, 3), np.uint8)


def field_of(exc: pytest.ExceptionInfo[InvalidInput]) -> str:
    assert exc.value.code == "invalid-input"
    return str(exc.value.details["field"])


def test_frames_of_different_sizes_are_refused_naming_after(cheap: Validator) -> None:
    with pytest.raises(InvalidInput) as exc:
        cheap.validate("scroll", frame(), frame(120, 200))
    assert field_of(exc) == "after" and exc.value.details["before_size"] == [200, 100]


def test_an_unknown_action_type_is_refused(cheap: Validator) -> None:
    with pytest.raises(InvalidInput) as exc:
        cheap.validate("teleport", frame(), frame())
    assert field_of(exc) == "action_type"


def test_a_missing_required_expected_field_is_named(cheap: Validator) -> None:
    with pytest.raises(InvalidInput) as exc:
        cheap.validate("type_text", frame(), frame(), Target(None, (1, 1, 10, 10)))
    assert field_of(exc) == "expected.text"
    with pytest.raises(InvalidInput) as exc:
        cheap.validate("switch_tab", frame(), frame(), Target(None, (1, 1, 10, 10)))
    assert field_of(exc) == "target.label"


def test_a_target_box_outside_the_frame_is_refused(cheap: Validator) -> None:
    with pytest.raises(InvalidInput) as exc:
        cheap.validate("switch_tab", frame(), frame(), Target("Imagerie", (500, 500, 10, 10)))
    assert field_of(exc) == "target.bbox"


def test_a_non_image_frame_is_refused(cheap: Validator) -> None:
    with pytest.raises(InvalidInput) as exc:
        cheap.validate("scroll", np.zeros((10, 10), np.uint8), frame())
    assert field_of(exc) == "before"


def test_a_switched_off_validator_never_guesses(matrix: ValidatorMatrix) -> None:
    verdict = Validator(matrix, FakeOcr(), enabled=False).validate("scroll", frame(), frame())
    assert verdict.verdict is VerdictKind.UNCERTAIN and verdict.rule == "validator-disabled"


def test_pause_for_human_is_never_decided_by_the_validator(cheap: Validator) -> None:
    assert cheap.validate("pause_for_human", frame(), frame()).verdict is VerdictKind.UNCERTAIN
