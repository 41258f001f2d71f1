"""A text field of an application without an accessibility tree: its own box, seen on the screen, is the target."""

from __future__ import annotations

import base64
from typing import Any

import cv2

from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev
from tests.vision.test_fields import form

FIELD = [440, 290, 261, 21]  # the field's inside in the frame (tests.vision.test_fields.form)


def typed_target(make_service: Any, x: int, y: int) -> dict[str, Any]:
    # the crop kept around the click starts 150 px left of it and 40 px above: the label line in frame pixels
    # is (340, 291, 90, 18), whatever the click
    line = (340 - (x - 150), 291 - (y - 40), 90, 18)
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Drug :", line, 0.97)]))
    shot = base64.b64encode(cv2.imencode(".png", form())[1].tobytes()).decode("ascii")
    at = {"window_title": "Pharmacy", "screen_width": 960, "screen_height": 540, "screenshot": shot}
    service.ingest([ev("click", 1.0, x=x, y=y, **at), ev("type", 2.0, text="Paracetamol", **at)])
    return dict(service.understanding("s1")["steps"][0]["target"])


def test_typing_into_a_field_beside_its_label_targets_the_field_box_and_its_inside(make_service: Any) -> None:
    target = typed_target(make_service, 452, 300)  # clicked 12 px inside the field's left edge
    assert target["bbox"] == FIELD  # the typed text is checked in the field, not at its label
    # clicked again 40 px inside the field, half way down, measured from the label line
    assert target["label_offset"] == [480 - 340, 300 - 291] and target["label_width"] == 90
    assert (target["x_pct"], target["y_pct"]) == (0.5, round(300 / 540, 4))


def test_a_click_on_the_window_beside_a_label_keeps_the_line_and_the_demonstrated_point(make_service: Any) -> None:
    target = typed_target(make_service, 435, 300)  # between the label and the field: no field there
    assert target["bbox"] == [340, 291, 90, 18] and target["label_offset"] == [95, 9]
