"""A click-like step records the clicked element's box in the frame before it (target.bbox) and its label."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.errors import InvalidInput
from rpa_mcp.shadow.boxes import element_box, iou
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine
from tests.screens import ASSETS
from tests.shadow.conftest import ev, play

DEMOS = Path(__file__).resolve().parents[1] / "fixtures" / "demos"


def true_tab_label_box(frame: str, label: str, frame_size: list[int]) -> list[float]:
    """The label box measured from the DOM (the demo's record.png is the desktop's dossier frame)."""
    truth = ASSETS.frame(frame)
    sx, sy = frame_size[0] / truth.size[0], frame_size[1] / truth.size[1]
    x, y, w, h = truth.tab(label).label_bbox
    return [x * sx, y * sy, w * sx, h * sy]


def frame_b64(width: int = 960, height: int = 540) -> str:
    image = np.full((height, width, 3), 235, np.uint8)
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


def tab_step(service: ShadowService) -> dict[str, Any]:
    sid, _ = play(service, "open_record_imagerie")
    step = service.understanding(sid)["steps"][-1]
    assert step["action_type"] == "switch_tab"
    return step


def test_the_imagerie_tab_gets_the_box_of_its_label_as_ocr_reads_it(make_service, shared_ocr) -> None:
    service = make_service(ocr=shared_ocr)
    target = tab_step(service)["target"]
    assert target["frame_size"] == [1920, 1080]  # record.png is sent at screen size
    truth = true_tab_label_box("dossier", "Imagerie", target["frame_size"])
    assert iou(target["bbox"], truth) >= 0.5, (target["bbox"], truth)
    assert target["label"] == "Imagerie"


def test_the_ocr_line_box_is_converted_from_the_crop_to_the_frame(make_service) -> None:
    # The crop kept around the click at (436, 24) starts at (286, 0); "Imagerie" is read at (64, 17) in it.
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Imagerie", (64, 17, 57, 17), 0.99)]))
    target = tab_step(service)["target"]
    assert target["bbox"] == [350, 17, 57, 17]
    assert target["label"] == "Imagerie" and target["by_text"] == "Imagerie"
    truth = true_tab_label_box("dossier", "Imagerie", target["frame_size"])
    assert iou(target["bbox"], truth) >= 0.5


def test_the_box_goes_into_the_workflow_ir(make_service) -> None:
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Imagerie", (64, 17, 57, 17), 0.99)]))
    sid, _ = play(service, "open_record_imagerie")
    ir = service.build(sid, "Imagerie")["workflow_ir"]
    tab = ir["steps"][-1]["target"]
    assert tab["bbox"] == [350, 17, 57, 17] and tab["label"] == "Imagerie" and tab["frame_size"] == [1920, 1080]
    assert "bbox" not in ir["steps"][0]["target"]  # a focus step has no clicked element


def test_an_ocr_line_too_far_from_the_click_names_the_step_but_gives_no_box(make_service) -> None:
    # 50 px to the right of the click (150, 24 in the crop): close enough to name it, too far to be its box.
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Biologie", (200, 17, 45, 17), 0.99)]))
    target = tab_step(service)["target"]
    assert target["by_text"] == "Biologie" and target["label"] == "Biologie"
    assert "bbox" not in target and "frame_size" not in target


def test_the_uia_rectangle_of_the_notepad_editor_is_mapped_to_the_half_size_frame(shadow: ShadowService, ocr) -> None:
    sid, _ = play(shadow, "type_observation_save")
    typing = shadow.understanding(sid)["steps"][0]
    target = typing["target"]
    # rect {262, 122, 1541, 906} on a 1920x1080 screen, screenshots sent at 960x540: enclosing box
    assert target["bbox"] == [131, 61, 640, 392] and target["frame_size"] == [960, 540]
    assert target["label"] == "Éditeur de texte"
    # UIA gave the name and the box: one read only, of the field's left edge, for a label beside it (none here)
    assert ocr.calls == 1 and "label_offset" not in target
    ir = shadow.build(sid, "Observation")["workflow_ir"]
    assert ir["steps"][0]["target"]["bbox"] == [131, 61, 640, 392]


def shot_then(shadow: ShadowService, click: dict[str, Any]) -> dict[str, Any]:
    shadow.ingest(
        [
            ev("screenshot", 1.0, screenshot=frame_b64(), screen_width=1920, screen_height=1080),
            ev("click", 2.0, screen_width=1920, screen_height=1080, **click),
        ]
    )
    step = shadow.understanding("s1")["steps"][0]
    target: dict[str, Any] = step["target"]
    return target


def test_an_element_bbox_in_screen_pixels_is_scaled_like_the_click(shadow: ShadowService) -> None:
    target = shot_then(shadow, {"x": 110, "y": 50, "element": {"name": "Valider", "bbox": [100, 40, 81, 21]}})
    assert target["bbox"] == [50, 20, 41, 11]  # x 100..181 -> 50..90.5, enclosing
    assert target["label"] == "Valider" and target["element"]["bbox"] == [100, 40, 81, 21]


def test_a_uia_rectangle_that_does_not_hold_the_click_is_not_the_target(make_service) -> None:
    service = make_service(ocr=FakeOcr(lines=[]))
    target = shot_then(
        service,
        {"x": 600, "y": 400, "element": {"name": "OK", "rect": {"left": 0, "top": 0, "right": 50, "bottom": 20}}},
    )
    assert "bbox" not in target and target["label"] == "OK"


def test_without_a_uia_rectangle_an_ocr_line_reading_the_uia_name_gives_the_box(make_service) -> None:
    # click at (600, 400) on screen -> (300, 200) in the frame; the crop starts at (150, 160), click at (150, 40) in it
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Enregistrer", (120, 30, 70, 18), 0.95)]))
    target = shot_then(service, {"x": 600, "y": 400, "element": {"name": "Enregistrer", "role": "Button"}})
    assert target["bbox"] == [270, 190, 70, 18] and target["label"] == "Enregistrer"


def test_the_ocr_line_reading_the_uia_name_wins_over_a_nearer_one(make_service) -> None:
    lines = [OcrLine("Annuler", (140, 32, 40, 18), 0.95), OcrLine("Enregistrer", (60, 30, 70, 18), 0.95)]
    service = make_service(ocr=FakeOcr(lines=lines))
    target = shot_then(service, {"x": 600, "y": 400, "element": {"name": "Enregistrer", "role": "Button"}})
    assert target["bbox"] == [210, 190, 70, 18] and target["label"] == "Enregistrer"


def test_an_ocr_line_reading_something_else_than_the_uia_name_gives_no_box(make_service) -> None:
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Annuler", (120, 30, 70, 18), 0.95)]))
    target = shot_then(service, {"x": 600, "y": 400, "element": {"name": "Enregistrer", "role": "Button"}})
    assert "bbox" not in target and target["label"] == "Enregistrer" and target["by_text"] == "Enregistrer"


def test_a_click_without_a_screenshot_before_it_gets_no_box(shadow: ShadowService) -> None:
    shadow.ingest([ev("click", 1.0, x=10, y=10, element={"name": "OK", "bbox": [0, 0, 40, 20]})])
    target = shadow.understanding("s1")["steps"][0]["target"]
    assert "bbox" not in target and target["label"] == "OK"


def test_an_empty_uia_rectangle_is_accepted_and_ignored(shadow: ShadowService) -> None:
    empty = {"left": float("inf"), "top": float("inf"), "right": float("-inf"), "bottom": float("-inf")}
    target = shot_then(shadow, {"x": 600, "y": 400, "element": {"name": "Zone", "rect": empty}})
    assert "bbox" not in target and "rect" not in target["element"]
    assert element_box({"bbox": [5, 5, 0, 10]}, point=(5, 5), screen=(100, 100), frame=(100, 100)) is None


def test_a_malformed_uia_rectangle_is_invalid_input_naming_the_field(shadow: ShadowService) -> None:
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([ev("click", 1.0, x=1, y=1, element={"rect": {"left": "a", "top": 0, "right": 1, "bottom": 1}})])
    assert err.value.code == "invalid-input" and err.value.details["field"] == "events[0].element.rect.left"
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([ev("click", 1.0, x=1, y=1, element={"bbox": [1, 2, 3]})])
    assert err.value.details["field"] == "events[0].element.bbox"


@pytest.mark.parametrize(
    ("read", "named"), [("/", False), ("- -", False), ("jj/mm/aaaa", False), ("ij/mm/aaaa", False), ("OK", True)]
)
def test_ocr_text_names_a_clicked_field_only_when_it_holds_two_letters_or_digits_and_is_no_format_mask(
    make_service, read: str, named: bool
) -> None:
    # A date field without an accessible name: OCR near the click reads what is there.
    service = make_service(ocr=FakeOcr(lines=[OcrLine(read, (140, 30, 40, 18), 0.97)]))
    at = {"window_title": "Prélèvement", "app": "chromium", "locale": "fr-FR"}
    service.ingest(
        [
            ev("screenshot", 0.5, screenshot=frame_b64(), screen_width=960, screen_height=540, **at),
            ev("click", 1.0, x=400, y=300, element={"role": "Edit"}, **at),
            ev("type", 2.0, text="12/03/2026", **at),
        ]
    )
    step = service.understanding("s1")["steps"][-1]
    assert step["action_type"] == "type_text"
    if named:
        assert step["target"]["by_text"] == read
    else:  # the placeholder (its fragment, its mask) is not the field's name, and the step is asked about first
        assert step["target"]["by_text"] != read and step["confidence"] < 0.8, step


def test_a_field_named_by_a_label_beside_it_keeps_where_the_label_was_read(make_service: Any) -> None:
    # the region read runs from 400 px left of the field: the label is read at (250, 105) in it
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Motif d'admission", (250, 105, 140, 24), 0.99)]))
    field = {"name": "Motif d'admission", "role": "Edit", "bbox": [600, 200, 216, 34]}
    at = {"window_title": "Admission", "screen_width": 960, "screen_height": 540, "screenshot": frame_b64()}
    service.ingest([ev("click", 1.0, x=700, y=217, element=field, **at), ev("type", 2.0, text="Chute", **at)])
    target = service.understanding("s1")["steps"][0]["target"]
    # the label read at [450, 205, 140, 24]: the field is 150 + 40 px right of its line, 12 px down
    assert target["bbox"] == [600, 200, 216, 34] and target["label_offset"] == [190, 12]


def test_a_field_that_shows_its_own_label_keeps_no_label_box(make_service: Any) -> None:
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Motif d'admission", (410, 105, 140, 24), 0.99)]))
    field = {"name": "Motif d'admission", "role": "Edit", "bbox": [600, 200, 216, 34]}  # read inside it
    at = {"window_title": "Admission", "screen_width": 960, "screen_height": 540, "screenshot": frame_b64()}
    service.ingest([ev("click", 1.0, x=700, y=217, element=field, **at), ev("type", 2.0, text="Chute", **at)])
    assert "label_offset" not in service.understanding("s1")["steps"][0]["target"]


@pytest.mark.parametrize(
    ("line", "offset"),
    [
        ((40, 31, 96, 18), [110, 9]),  # a field right of its label: the click 14 px past the line's end
        ((165, 31, 120, 18), [-15, 9]),  # a check box left of its text: the click on the box
        ((100, 31, 120, 18), None),  # the click on the line: it is what was clicked
    ],
)
def test_a_click_only_the_screen_named_by_a_line_beside_it_keeps_where_it_was_from_the_line(
    make_service: Any, line: tuple[int, int, int, int], offset: list[int] | None
) -> None:
    # no accessibility tree (a Tk form): the crop kept around the click (400, 300) starts at (250, 260)
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Médicament :", line, 0.97)]))
    at = {"window_title": "Pharmacie", "screen_width": 960, "screen_height": 540, "screenshot": frame_b64()}
    service.ingest([ev("click", 1.0, x=400, y=300, **at), ev("type", 2.0, text="Paracétamol", **at)])
    target = service.understanding("s1")["steps"][0]["target"]
    assert target["by_text"] == "Médicament :" and target.get("label_offset") == offset
    assert target.get("label_width") == (line[2] if offset else None)  # the replay measures from the nearer end
