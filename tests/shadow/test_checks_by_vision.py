"""A check button of an application without an accessibility tree: a click after which its box flipped."""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np

from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev
from tests.vision.test_checkbox import small_box_in_its_line

AT = {"window_title": "Pharmacy", "screen_width": 640, "screen_height": 480, "locale": "en-GB"}


def png(image: np.ndarray) -> str:
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


def clicked_step(make_service: Any, after: np.ndarray, element: dict[str, Any] | None = None) -> dict[str, Any]:
    # the crop kept around the click (360, 308) starts at (210, 268): the line (300, 296, 140, 24) in the frame
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Urgent delivery", (90, 28, 140, 24), 0.97)]))
    named = {"element": element} if element else {}
    service.ingest(
        [
            ev("click", 1.0, x=360, y=308, screenshot=png(small_box_in_its_line(ticked=False)), **named, **AT),
            ev("click", 3.0, x=600, y=450, screenshot=png(after), **AT),  # the next step: its frame shows the box
        ]
    )
    return dict(service.understanding("s1")["steps"][0])


def test_a_click_after_which_the_box_beside_its_text_was_ticked_sets_it_checked(make_service: Any) -> None:
    step = clicked_step(make_service, small_box_in_its_line(ticked=True))
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}
    assert step["intent"] == "Tick 'Urgent delivery'"
    assert step["post_conditions"][0] == {"kind": "checked", "text": "checked"}
    assert step["step_class"] == "input"


def test_a_click_that_left_the_box_as_it_was_stays_a_click(make_service: Any) -> None:
    step = clicked_step(make_service, small_box_in_its_line(ticked=False))
    assert step["action_type"] == "click_anchor"


def test_a_box_drawn_with_divs_whose_text_the_tree_names_is_read_on_the_screen_too(make_service: Any) -> None:
    # a web page's check box drawn with divs: the tree names the span by its text, says nothing of a box
    text = {"name": "Urgent delivery", "role": "Text", "bbox": [300, 296, 140, 24]}
    step = clicked_step(make_service, small_box_in_its_line(ticked=True), element=text)
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}


def test_a_control_the_tree_names_is_left_to_the_tree(make_service: Any) -> None:
    button = {"name": "Urgent delivery", "role": "Button", "bbox": [300, 296, 140, 24]}
    step = clicked_step(make_service, small_box_in_its_line(ticked=True), element=button)
    assert step["action_type"] == "click_anchor"
