"""A text field named as a person names it: by the label beside it, read whole, never by its placeholder;
and a replay of the step types in the field, never on the label (a web form's label in a table cell
gives no field the keyboard)."""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from rpa_mcp.shadow.field_labels import is_format_mask, label_line
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.shadow.targets import click_evidence
from rpa_mcp.vision.ocr import OcrLine, normalize_text
from tests.shadow.conftest import ev

W, H = 1280, 720
FONT = cv2.FONT_HERSHEY_SIMPLEX
NAME_FIELD = (250, 140, 220, 30)  # x, y, w, h: right of "Patient name :"
DATE_FIELD = (250, 240, 220, 30)  # right of "Sampling date :", showing its placeholder
WARD_FIELD = (250, 340, 220, 30)  # right of "Ward :", a short label the region around the click reads whole
CLICK = (262, 155)  # 12 px inside the name field, as a person clicks where they will type


def form(dx: int = 0, dy: int = 0, *, name_label: str = "Patient name :") -> np.ndarray:
    img = np.full((H, W, 3), 236, np.uint8)
    cv2.putText(img, name_label, (30 + dx, 162 + dy), FONT, 0.8, (20, 20, 20), 2)
    cv2.putText(img, "Sampling date :", (30 + dx, 262 + dy), FONT, 0.8, (20, 20, 20), 2)
    cv2.putText(img, "Ward :", (150 + dx, 362 + dy), FONT, 0.8, (20, 20, 20), 2)
    for x, y, w, h in (NAME_FIELD, DATE_FIELD, WARD_FIELD):
        cv2.rectangle(img, (x + dx, y + dy), (x + w + dx, y + h + dy), (255, 255, 255), -1)
        cv2.rectangle(img, (x + dx, y + dy), (x + w + dx, y + h + dy), (110, 110, 110), 1)
    cv2.putText(img, "dd/mm/yyyy", (258 + dx, 262 + dy), FONT, 0.7, (150, 150, 150), 2)
    return img


def png64(image: np.ndarray) -> str:
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


def typed_step(
    service: ShadowService, click: tuple[int, int], element: dict[str, Any] | None, screen: np.ndarray | None = None
) -> dict[str, Any]:
    at = {"window_title": "Lab orders", "app": "chromium", "screen_width": W, "screen_height": H}
    found = {"element": element} if element is not None else {}
    service.ingest(
        [
            ev("screenshot", 0.5, screenshot=png64(form() if screen is None else screen), **at),
            ev("click", 1.0, x=click[0], y=click[1], **found, **at),
            ev("type", 2.0, text="DUPONT", **at),
        ]
    )
    step: dict[str, Any] = service.understanding("s1")["steps"][-1]
    assert step["action_type"] == "type_text"
    return step


def resolver(ocr: Any) -> TargetResolver:
    thresholds = load_thresholds(shipped_dir("catalog") / "thresholds.yaml")
    return TargetResolver(ocr=ocr, memory=None, thresholds=thresholds, vlm=NoVlmLocator())


def inside(box: tuple[int, int, int, int], x: int | None, y: int | None, dx: int = 0, dy: int = 0) -> bool:
    bx, by, bw, bh = box
    return x is not None and y is not None and bx + dx < x < bx + bw + dx and by + dy < y < by + bh + dy


def test_a_field_with_no_accessible_name_is_named_by_the_label_beside_it_and_replayed_inside_it(
    make_service: Any, shared_ocr: Any
) -> None:
    # an <input> whose label is a table cell with no `for`: AT-SPI gives its box, no name
    field = {"name": "", "role": "Edit", "bbox": list(NAME_FIELD)}
    target = typed_step(make_service(ocr=shared_ocr), CLICK, field)["target"]
    assert normalize_text(target["by_text"]) == "patient name :", target
    assert target["bbox"] == list(NAME_FIELD) and target["in_field"] is True
    spec = {**target, "resolve_order": ["ocr"]}
    spec.pop("bbox")  # a moved window's spec has no box
    res = resolver(shared_ocr).resolve(form(dx=60, dy=40), spec)
    assert res.resolved, res
    assert inside(NAME_FIELD, res.x, res.y, 60, 40), (res.x, res.y)  # in the field, not on "Patient name :"
    assert res.x is not None and abs(res.x - (CLICK[0] + 60)) <= 6  # where the person clicked in it


def test_a_field_named_by_its_label_is_found_from_it_when_the_screen_drops_the_space_before_the_colon(
    make_service: Any, shared_ocr: Any
) -> None:
    # a native form's field named by its label widget ("Examen :"), read "Examen:" on the screen: the label's
    # place was not kept and the replay clicked the label (a drop-down stays closed)
    field = {"name": "Patient name :", "role": "Edit", "bbox": list(NAME_FIELD)}
    screen = form(name_label="Patient name:")
    target = typed_step(make_service(ocr=shared_ocr), CLICK, field, screen)["target"]
    assert target.get("in_field") is True and target.get("label_offset"), target
    spec = {**target, "resolve_order": ["ocr"]}
    spec.pop("bbox")
    res = resolver(shared_ocr).resolve(form(dx=60, dy=40, name_label="Patient name:"), spec)
    assert res.resolved and inside(NAME_FIELD, res.x, res.y, 60, 40), (res.x, res.y)


def test_the_step_typing_in_a_field_named_by_a_nearby_label_is_replayed_inside_the_field(
    make_service: Any, shared_ocr: Any
) -> None:
    # the label is read whole around the click: the field's own box was recorded, its place from the label was
    # not, and the replay clicked the label's middle (the keyboard went nowhere)
    field = {"name": "", "role": "Edit", "bbox": list(WARD_FIELD)}
    target = typed_step(make_service(ocr=shared_ocr), (262, 355), field)["target"]
    assert normalize_text(target["by_text"]) == "ward :", target
    assert target["label_offset"] == target["label_click"]  # clicked 12 px inside the field: typed there again
    for dx, dy in ((0, 0), (60, 40), (-20, 90)):
        spec = {**target, "resolve_order": ["ocr"]}
        if (dx, dy) != (0, 0):
            spec.pop("bbox")
        res = resolver(shared_ocr).resolve(form(dx=dx, dy=dy), spec)
        assert res.resolved, res
        assert inside(WARD_FIELD, res.x, res.y, dx, dy), (dx, dy, res.x, res.y)


def test_a_field_named_by_its_placeholder_is_named_by_the_label_beside_it(make_service: Any, shared_ocr: Any) -> None:
    # Chromium names a field without a label by its placeholder
    field = {"name": "dd/mm/yyyy", "role": "Edit", "bbox": list(DATE_FIELD)}
    step = typed_step(make_service(ocr=shared_ocr), (262, 255), field)
    target = step["target"]
    assert normalize_text(target["by_text"]) == "sampling date :", target
    assert normalize_text(target["label"]) == "sampling date :"
    assert "dd/mm" not in step["intent"], step["intent"]
    assert target.get("label_offset") is not None and target["in_field"] is True


def test_a_label_the_region_read_cut_at_its_left_is_read_whole(make_service: Any, shared_ocr: Any) -> None:
    # no accessibility tree (a Tk form): the 300 px region kept around the click starts inside "Patient"
    step = typed_step(make_service(ocr=shared_ocr), CLICK, None)
    assert normalize_text(step["target"]["by_text"]) == "patient name :", step["target"]


@pytest.mark.parametrize(
    ("text", "mask"),
    [("jj/mm/aaaa", True), ("dd-mm-yyyy", True), ("hh:mm", True), ("JJ/MM/AAAA", True), ("12/03/2026", False),
     ("Date :", False), ("Nom/prénom", False), ("ij/mm/aaaa", True), ("__/__/____", True), ("TT.MM.JJJJ", True),
     ("mm/dd/yy", True), ("jj / mm / aaaa", True), ("N/A", False), ("km/h", False), ("E/S", False)],
)  # fmt: skip
def test_a_format_mask_is_told_from_a_label(text: str, mask: bool) -> None:
    assert is_format_mask(text) is mask


def test_the_label_on_the_fields_row_wins_and_text_inside_the_field_never_names_it() -> None:
    field = (200, 100, 200, 24)
    lines = [
        OcrLine("dd/mm/yyyy", (206, 104, 90, 16), 0.95),  # its placeholder, inside it
        OcrLine("Other field :", (200, 60, 100, 16), 0.95),  # the row above, over the field
        OcrLine("Far label :", (10, 104, 80, 16), 0.95),
        OcrLine("Date :", (120, 104, 60, 16), 0.95),
    ]
    found = label_line(lines, field)
    assert found is not None and found.text == "Date :"
    above = label_line(lines[:2], field)
    assert above is not None and above.text == "Other field :"
    assert label_line(lines[:1], field) is None


def test_a_format_mask_never_names_a_click_as_the_tree_says_it_or_as_it_is_misread() -> None:
    masked = {"element": {"name": "jj/mm/aaaa", "role": "Edit"}, "window_title": "Orders"}
    assert click_evidence(masked, {"ocr": {"text": "ij/mm/aaaa"}}).source == "window_title"
    unnamed = {"element": None, "window_title": "Orders"}
    assert click_evidence(unnamed, {"ocr": {"text": "ij/mm/aaaa"}}).label == "Orders"
