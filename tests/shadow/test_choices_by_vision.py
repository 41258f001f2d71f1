"""A drop-down learned from the screen alone (no accessibility tree): its list seen opening, its option read."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev
from tests.vision.test_popup import form, grey_form, with_grey_list, with_list

AT = {"window_title": "Dispensing desk", "locale": "en-GB", "screen_width": 960, "screen_height": 540}
ANCHOR_SHAPE = (80, 300)  # the crop kept around a click


@dataclass
class ScreenOcr:
    """What OCR reads in each region the learning looks at, told apart by their shapes."""

    calls: list[tuple[int, int]] = field(default_factory=list)

    def read(self, image: np.ndarray) -> list[OcrLine]:
        shape = image.shape[:2]
        self.calls.append(shape)
        if shape == ANCHOR_SHAPE:  # around a click at (150, 40): the drop-down shows "— choose —"
            return [OcrLine("— choose —", (85, 30, 80, 20), 0.95)]
        if shape[1] == 335:  # left of the drop-down's text, on its row
            return [OcrLine("Packaging :", (200, 20, 120, 20), 0.97)]
        return [  # the open list
            OcrLine("— choose —", (6, 5, 80, 20), 0.95),
            OcrLine("Box", (6, 30, 30, 20), 0.98),
            OcrLine("Vial", (6, 55, 30, 20), 0.98),
        ]

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        lines = self.read(image)
        return lines[0] if lines else None

    def read_lines(self, images: Any) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


def png(image: np.ndarray) -> str:
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


def steps_of(service: ShadowService, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    service.ingest(events[:1])
    service.start("s1")
    for event in events[1:]:
        service.ingest([event])
    return list(service.understanding("s1")["steps"])


def test_a_click_in_the_list_the_previous_click_opened_is_its_option(make_service) -> None:
    service = make_service(ocr=ScreenOcr())
    steps = steps_of(
        service,
        [
            ev("focus", 0.5, **AT),
            ev("click", 1.0, x=400, y=300, screenshot=png(form()), **AT),
            ev("click", 2.0, x=420, y=350, screenshot=png(with_list(form())), **AT),
        ],
    )
    assert [(s["action_type"], s["events"]) for s in steps] == [("select_option", [1, 2])]
    choice = steps[0]
    assert choice["params"] == {"option": "Box"} and choice["value"] == "Box"  # the row clicked, not the nearest text
    # the drop-down, read only by what it showed, is named by the label left of it and found from it at replay
    assert choice["target"]["by_text"] == "Packaging :" and choice["target"]["label_offset"]
    assert choice["post_conditions"][0] == {"kind": "option_shown", "text": "Box"}


def test_a_click_beside_a_list_that_opened_is_a_step_of_its_own(make_service) -> None:
    service = make_service(ocr=ScreenOcr())
    steps = steps_of(
        service,
        [
            ev("focus", 0.5, **AT),
            ev("click", 1.0, x=400, y=300, screenshot=png(form()), **AT),
            ev("click", 2.0, x=700, y=350, screenshot=png(with_list(form())), **AT),
        ],
    )
    assert [s["action_type"] for s in steps] == ["click_anchor", "click_anchor"]


def test_a_click_the_accessibility_tree_names_is_left_to_the_tree(make_service) -> None:
    service = make_service(ocr=ScreenOcr())
    button = {"name": "Save", "role": "Button"}
    steps = steps_of(
        service,
        [
            ev("focus", 0.5, **AT),
            ev("click", 1.0, x=400, y=300, screenshot=png(form()), **AT),
            ev("click", 2.0, x=420, y=350, screenshot=png(with_list(form())), element=button, **AT),
        ],
    )
    assert [s["action_type"] for s in steps] == ["click_anchor", "click_anchor"]


def test_a_list_drawn_with_divs_the_tree_names_by_their_text_is_read_on_the_screen(make_service) -> None:
    # a web page's drop-down drawn with divs: the tree names the div by what it shows, the option clicked
    # by the text of whatever it finds under the list; neither is a control it knows
    shown = {"name": "— choose —", "role": "Text", "bbox": [335, 292, 80, 16]}
    beneath = {"name": "dd/mm/yyyy", "role": "Section", "bbox": [330, 340, 300, 24]}
    service = make_service(ocr=ScreenOcr())
    steps = steps_of(
        service,
        [
            ev("focus", 0.5, **AT),
            ev("click", 1.0, x=400, y=300, screenshot=png(form()), element=shown, **AT),
            ev("click", 2.0, x=420, y=350, screenshot=png(with_list(form())), element=beneath, **AT),
        ],
    )
    assert [(s["action_type"], s["events"]) for s in steps] == [("select_option", [1, 2])]
    assert steps[0]["params"] == {"option": "Box"}
    # named by the label beside it, not by what it showed: found from that label at replay
    assert steps[0]["target"]["by_text"] == "Packaging :" and steps[0]["target"]["label_offset"]


def test_an_option_under_a_static_text_the_tree_names_is_still_read_on_the_screen(make_service) -> None:
    static = {"name": "Name", "role": "Text"}
    service = make_service(ocr=ScreenOcr())
    steps = steps_of(
        service,
        [
            ev("focus", 0.5, **AT),
            ev("click", 1.0, x=400, y=300, screenshot=png(form()), **AT),
            ev("click", 2.0, x=420, y=350, screenshot=png(with_list(form())), element=static, **AT),
        ],
    )
    assert [s["action_type"] for s in steps] == ["select_option"]


@dataclass
class GreyFormOcr:
    """What OCR reads on the grey form (`tests.vision.test_popup.grey_form`): the drop-down's text left of the
    click on it, the label left of the drop-down, the open list."""

    def read(self, image: np.ndarray) -> list[OcrLine]:
        shape = image.shape[:2]
        if shape == ANCHOR_SHAPE:  # around a click at (470, 300): "- choisir -" ends 50 px left of it
            return [OcrLine("- choisir -", (16, 30, 84, 20), 0.95)]
        if 320 <= shape[1] <= 332:  # left of the drop-down (the list's column), on its row
            return [OcrLine("Produit :", (shape[1] - 110, 24, 90, 20), 0.97)]
        return [OcrLine("- choisir -", (4, 2, 80, 16), 0.95), OcrLine("Globules rouges", (4, 21, 120, 16), 0.98)]

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        lines = self.read(image)
        return lines[0] if lines else None

    def read_lines(self, images: Any) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


def test_a_list_drawn_in_the_window_s_grey_makes_its_drop_down_one_step_named_by_its_label(make_service) -> None:
    # a Java Metal drop-down: its list in the panel's grey (few pixels change), clicked right of the text it shows
    service = make_service(ocr=GreyFormOcr())
    steps = steps_of(
        service,
        [
            ev("focus", 0.5, **AT),
            ev("click", 1.0, x=470, y=300, screenshot=png(grey_form()), **AT),
            ev("click", 2.0, x=420, y=340, screenshot=png(with_grey_list(grey_form())), **AT),
        ],
    )
    assert [(s["action_type"], s["events"]) for s in steps] == [("select_option", [1, 2])]
    assert steps[0]["params"] == {"option": "Globules rouges"}
    # named by the label left of the drop-down (the list's column), found from it at replay
    assert steps[0]["target"]["by_text"] == "Produit :" and steps[0]["target"]["label_offset"]
