"""Recognizer models made for the vision tests: a folder of their own per test module."""

from __future__ import annotations

from pathlib import Path

import pytest

from rpa_mcp.vision import int8


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def int8_model(models: Path) -> Path:
    model = int8.int8_recognizer(models)
    assert model is not None and model.is_file()
    return model
