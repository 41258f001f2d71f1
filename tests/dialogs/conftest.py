"""Shared fixtures: the shipped catalog, ONE real OCR engine for the session, the committed screens."""

from __future__ import annotations

import pytest

from rpa_mcp.bench.cases import FrameCase, frame_cases
from rpa_mcp.dialogs import DialogCatalog, DialogService, load_dialog_catalog
from rpa_mcp.settings import shipped_dir
from rpa_mcp.vision.ocr import RapidOcrEngine
from tests.screens import SCREENS


@pytest.fixture(scope="session")
def catalog() -> DialogCatalog:
    return load_dialog_catalog(shipped_dir("catalog") / "dialogs.yaml")


@pytest.fixture(scope="session")
def real_service(catalog: DialogCatalog, shared_ocr: RapidOcrEngine) -> DialogService:
    """The real classifier on the session's one RapidOcrEngine (tests/conftest.py: shared_ocr)."""
    return DialogService(catalog, shared_ocr)


@pytest.fixture(scope="session")
def corpus() -> list[FrameCase]:
    """Every committed frame once, with the frame before it when it ends a pair."""
    return frame_cases(SCREENS)
