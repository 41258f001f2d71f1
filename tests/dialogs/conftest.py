"""Shared fixtures: the shipped catalog, ONE real OCR engine for the session, the fixture corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from rpa_mcp.dialogs import DialogCatalog, DialogService, load_dialog_catalog
from rpa_mcp.settings import shipped_dir
from rpa_mcp.vision.ocr import RapidOcrEngine


def fixtures_dir() -> Path | None:
    candidates = [
        os.environ.get("RPA_FIXTURES_DIR"),
        "/work/shared/fixtures",
        str(Path(__file__).resolve().parents[3] / "shared" / "fixtures"),
    ]
    for c in candidates:
        if c and (Path(c) / "manifest.json").is_file():
            return Path(c)
    return None


@pytest.fixture(scope="session")
def catalog() -> DialogCatalog:
    return load_dialog_catalog(shipped_dir("catalog") / "dialogs.yaml")


@pytest.fixture(scope="session")
def real_service(catalog: DialogCatalog, shared_ocr: RapidOcrEngine) -> DialogService:
    """The real classifier on the session's one RapidOcrEngine (tests/conftest.py: shared_ocr)."""
    return DialogService(catalog, shared_ocr)


@pytest.fixture(scope="session")
def corpus() -> tuple[Path, list[dict[str, Any]]]:
    root = fixtures_dir()
    if root is None:
        pytest.skip("fixture corpus not found (set RPA_FIXTURES_DIR)")
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    return root, manifest["images"]
