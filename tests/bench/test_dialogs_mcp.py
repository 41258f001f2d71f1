"""The classify_dialog latency bench measures the engines the server classifies with."""

from __future__ import annotations

from pathlib import Path

import pytest

from rpa_mcp.bench.dialogs_mcp import services_reading_afresh
from rpa_mcp.bootstrap import build_services
from rpa_mcp.settings import Settings
from rpa_mcp.vision.ocr import RapidOcrEngine


@pytest.mark.parametrize("int8", [True, False])
def test_the_bench_classifies_with_the_servers_dialog_engine_reading_every_crop_afresh(
    tmp_path: Path, int8: bool
) -> None:
    settings = Settings(data_dir=tmp_path, jwt_secret="b" * 48, dialog_ocr_int8=int8)
    served = build_services(settings).dialogs.classifier.ocr
    benched = services_reading_afresh(settings).dialogs.classifier.ocr
    assert isinstance(served, RapidOcrEngine) and isinstance(benched, RapidOcrEngine)
    # the same recognizer, input width and workers as the server's (nothing is loaded yet: both lazy)
    assert (benched.width, benched.workers, benched.threads) == (served.width, served.workers, served.threads)
    assert (benched._recognizer is None) == (served._recognizer is None)
    assert benched._cache_entries == 0 < served._cache_entries
