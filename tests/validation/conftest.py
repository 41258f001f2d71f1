"""Shared, session-scoped: one OCR engine, the shipped matrix, a validator."""

from __future__ import annotations

import numpy as np
import pytest

from rpa_mcp.bootstrap import REC_MODEL
from rpa_mcp.dialogs.service import DialogService
from rpa_mcp.settings import shipped_dir
from rpa_mcp.validation import Validator, load_validator_matrix
from rpa_mcp.validation.matrix import MATRIX_FILE, ValidatorMatrix
from rpa_mcp.validation_adapters import DialogServiceLocator
from rpa_mcp.vision.int8 import wheel_model
from rpa_mcp.vision.latin_head import latin_recognizer
from rpa_mcp.vision.ocr import RapidOcrEngine


@pytest.fixture(scope="session")
def matrix() -> ValidatorMatrix:
    return load_validator_matrix(shipped_dir("catalog") / MATRIX_FILE)


@pytest.fixture(scope="session")
def ocr_engine(shared_ocr: RapidOcrEngine) -> RapidOcrEngine:
    engine = shared_ocr  # the suite's one engine (tests/conftest.py)
    engine.read_line(np.full((24, 80, 3), 255, np.uint8))  # build the engine once for the session
    return engine


@pytest.fixture(scope="session")
def validator(matrix: ValidatorMatrix, ocr_engine: RapidOcrEngine) -> Validator:
    """As the server wires it: the dialogs classifier is the validator's dialog locator."""
    dialogs = DialogService.from_catalog_dir(shipped_dir("catalog"), ocr_engine)
    v = Validator(matrix, ocr_engine, dialog_locator=DialogServiceLocator(dialogs))
    v.warm_up()
    return v


@pytest.fixture(scope="session")
def bare_validator(matrix: ValidatorMatrix, ocr_engine: RapidOcrEngine) -> Validator:
    """No dialogs classifier: only the dimmed-page heuristic sees a modal."""
    return Validator(matrix, ocr_engine)


@pytest.fixture(scope="session", params=["plain", "latin"])
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> RapidOcrEngine:
    """The recognizer as shipped, and as the server reads with it: cut to its Latin head."""
    if request.param == "plain":
        plain: RapidOcrEngine = request.getfixturevalue("ocr_engine")
        return plain
    models = tmp_path_factory.mktemp("models")
    return RapidOcrEngine(recognizer=lambda: latin_recognizer(wheel_model(REC_MODEL), models))
