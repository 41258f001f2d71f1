"""Dialogs of tuning programs drawn at 125 % display scaling (tests/fixtures/real_programs/*@125): the same
scenes as at 100 %, text (GTK 3) or text and widgets (Qt, Wine) drawn larger. Every frame gets the id
its 100 % scene wrote and pauses, on the frame alone and with the window the capture reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import pytest

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real_programs"
# frames reproduced but not fixed yet (strict xfail: a fix makes them fail until removed here), with why
SCALED_OPEN: dict[str, str] = {}


def _scaled_frames() -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for manifest in sorted(REAL.glob("*@*/manifest.json")):
        raw = json.loads(manifest.read_text(encoding="utf-8"))
        assert raw["split"] == "tuning" and raw["program"] == manifest.parent.name
        found += [(manifest.parent, frame) for frame in raw["frames"]]
    return found


SCALED = _scaled_frames()


def test_three_toolkits_are_drawn_scaled_in_both_languages() -> None:
    assert {folder.name for folder, _ in SCALED} == {"gedit@125", "kwrite@125", "notepad@125"}
    assert all(frame["scale"] == 125 and frame["size"] == [1920, 1080] for _, frame in SCALED)
    assert {frame["lang"] for _, frame in SCALED} == {"fr", "en"}


@pytest.mark.parametrize(
    ("folder", "frame"),
    [
        pytest.param(
            folder,
            frame,
            id=frame["file"],
            marks=[pytest.mark.xfail(strict=True, reason=SCALED_OPEN[frame["file"]])]
            if frame["file"] in SCALED_OPEN
            else [],
        )
        for folder, frame in SCALED
    ],
)
def test_a_scaled_dialog_gets_its_id_and_pauses(real_service, folder: Path, frame: dict[str, Any]) -> None:
    image = cv2.imread(str(folder / frame["file"]))
    for reported in ({}, {"window_title": frame["window_title"], "process": frame["process"]}):
        decided = real_service.resolve(image, thorough=True, **reported)
        assert (decided.dialog_id, decided.decision) == (frame["expected_id"], "pause"), decided.classification.notes
