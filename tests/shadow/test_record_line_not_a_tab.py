"""A list's line that opens a record (the window's title then names the patient) is a record chosen by its
content, not a tab: the title naming what was clicked is no tab evidence when it names a person."""

from __future__ import annotations

from typing import Any

from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev
from tests.shadow.test_target_box import frame_b64

SEARCH = {"window_title": "Gestion des lits — Affectation", "app": "java", "locale": "fr-FR"}
OPENED = {"window_title": "Gestion des lits — GAUTHIER Édith", "app": "java", "locale": "fr-FR"}
SCREEN = {"screen_width": 960, "screen_height": 540, "screenshot": frame_b64()}


def clicked(make_service: Any, line: str, after: dict[str, str]) -> dict[str, Any]:
    # the crop kept around the click at (94, 126) starts at (0, 86): the line is read at (10, 30) in it
    service: ShadowService = make_service(ocr=FakeOcr(lines=[OcrLine(line, (10, 30, 106, 20), 0.99)]))
    service.ingest([ev("click", 1.0, x=94, y=126, **SEARCH, **SCREEN), ev("focus", 1.5, **after)])
    step: dict[str, Any] = service.understanding("s1")["steps"][0]
    return step


def test_a_line_naming_the_patient_the_title_then_names_is_a_record_click(make_service: Any) -> None:
    step = clicked(make_service, "GAUTHIER Édith", OPENED)
    assert step["action_type"] == "click_anchor", step["intent"]
    assert step["value"] == "GAUTHIER Édith" and step["identity"] == "GAUTHIER Édith"
    assert step["target"]["by_text"] == "GAUTHIER Édith"


def test_a_view_the_title_then_names_is_still_a_tab(make_service: Any) -> None:
    step = clicked(make_service, "Imagerie", {**OPENED, "window_title": "Gestion des lits — Imagerie"})
    assert step["action_type"] == "switch_tab"
