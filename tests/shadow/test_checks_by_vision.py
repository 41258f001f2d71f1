"""A check button of an application without an accessibility tree: a click on the line beside its box.

The box seen flipping over the click gives the state the step leaves; a box no frame showed flipping
(the frame after taken before the repaint, a box whose state is not read, one toggled twice) on a
screen that otherwise stayed the same makes a `set_checked` step whose state is assumed, asked first; a
line with no box, or a click after which another screen showed, stays a click.
"""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.shadow.calibration import ASK_BELOW
from rpa_mcp.shadow.doubts import DOUBTED
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev
from tests.vision.test_checkbox import small_box_in_its_line
from tests.vision.test_radio import small_radio_in_its_line

AT = {"window_title": "Pharmacy", "screen_width": 640, "screen_height": 480, "locale": "en-GB"}


def png(image: np.ndarray) -> str:
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


def clicked(
    make_service: Any,
    after: np.ndarray,
    element: dict[str, Any] | None = None,
    before: np.ndarray | None = None,
) -> ShadowService:
    """A click on the line "Urgent delivery" of `before` (a blank box beside it unless said), then the next
    step's click, whose frame is `after`."""
    # the crop kept around the click (360, 308) starts at (210, 268): the line (300, 296, 140, 24) in the frame
    service: ShadowService = make_service(ocr=FakeOcr(lines=[OcrLine("Urgent delivery", (90, 28, 140, 24), 0.97)]))
    named = {"element": element} if element else {}
    shown = small_box_in_its_line(ticked=False) if before is None else before
    service.ingest(
        [
            ev("click", 1.0, x=360, y=308, screenshot=png(shown), **named, **AT),
            ev("click", 3.0, x=600, y=450, screenshot=png(after), **AT),  # the next step: its frame shows the box
        ]
    )
    return service


def clicked_step(
    make_service: Any,
    after: np.ndarray,
    element: dict[str, Any] | None = None,
    before: np.ndarray | None = None,
) -> dict[str, Any]:
    return dict(clicked(make_service, after, element, before).understanding("s1")["steps"][0])


def asked_first(service: ShadowService) -> dict[str, Any]:
    understanding = service.understanding("s1")
    step = dict(understanding["steps"][0])
    assert step["confidence"] < ASK_BELOW and step["index"] in understanding["review"]["ask_first"]
    return step


def label_alone(*, elsewhere: bool = False) -> np.ndarray:
    """The line "Urgent delivery" with no box beside it; `elsewhere`: a few pixels changed elsewhere (the same
    screen, but for a click that did something small)."""
    img = np.full((480, 640, 3), 214, np.uint8)
    cv2.putText(img, "Urgent delivery", (322, 313), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    if elsewhere:
        cv2.rectangle(img, (20, 20), (60, 60), (255, 255, 255), -1)
    return img


def unread_box() -> np.ndarray:
    """A box whose inside says neither ticked nor blank (a grey fill: a style the state is not read in)."""
    img = small_box_in_its_line(ticked=False)
    cv2.rectangle(img, (307, 304), (315, 312), (150, 150, 150), -1)
    return img


def test_a_click_after_which_the_box_beside_its_text_was_ticked_sets_it_checked(make_service: Any) -> None:
    step = clicked_step(make_service, small_box_in_its_line(ticked=True))
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}
    assert step["intent"] == "Tick 'Urgent delivery'"
    assert step["post_conditions"][0] == {"kind": "checked", "text": "checked"}
    assert step["step_class"] == "input"


@pytest.mark.parametrize("ticked", [False, True])
def test_a_click_beside_a_box_no_frame_showed_flipping_is_a_check_box_step_asked_first(
    make_service: Any, ticked: bool
) -> None:
    # the frame after taken before the repaint, or the box toggled twice: the same box before and after
    box = small_box_in_its_line(ticked=ticked)
    step = asked_first(clicked(make_service, box, before=box))
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}  # assumed: ticked
    assert step["shape"] == "uncertain" and step["doubts"] == ["control_value_not_captured"]
    assert step["intent"] == "Tick 'Urgent delivery'"


def test_a_box_whose_state_is_not_read_is_a_check_box_step_asked_first(make_service: Any) -> None:
    step = asked_first(clicked(make_service, small_box_in_its_line(ticked=True), before=unread_box()))
    assert step["action_type"] == "set_checked" and step["doubts"] == ["control_value_not_captured"]


def test_a_click_beside_a_box_after_which_another_screen_showed_stays_a_click(make_service: Any) -> None:
    # a button that opened a page (at a small scale, its first letter may look like a box): not a check box
    opened = small_box_in_its_line(ticked=False)
    opened[60:420, 40:600] = 255
    step = clicked_step(make_service, opened)
    assert step["action_type"] == "click_anchor" and step["doubts"] == []


def test_the_person_says_the_state_of_a_box_no_frame_showed(make_service: Any) -> None:
    box = small_box_in_its_line(ticked=False)
    service = clicked(make_service, box, before=box)
    step = service.feedback("s1", "set_value", step_index=1, checked=False)["steps"][0]
    assert step["params"] == {"checked": False} and step["doubts"] == []
    assert {"kind": "checked", "text": "unchecked"} in step["post_conditions"]


def test_a_click_on_a_line_with_no_box_beside_it_stays_a_sure_click(make_service: Any) -> None:
    step = clicked_step(make_service, label_alone(elsewhere=True), before=label_alone())
    assert step["action_type"] == "click_anchor" and step["shape"] == "plain"
    assert step["doubts"] == [] and step["confidence"] > DOUBTED  # as sure as a click named by OCR is


def test_a_box_drawn_with_divs_whose_text_the_tree_names_is_read_on_the_screen_too(make_service: Any) -> None:
    # a web page's check box drawn with divs: the tree names the span by its text, says nothing of a box
    text = {"name": "Urgent delivery", "role": "Text", "bbox": [300, 296, 140, 24]}
    step = clicked_step(make_service, small_box_in_its_line(ticked=True), element=text)
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}


@pytest.mark.parametrize("ticked_after", [True, False])
def test_a_control_the_tree_names_is_left_to_the_tree(make_service: Any, ticked_after: bool) -> None:
    button = {"name": "Urgent delivery", "role": "Button", "bbox": [300, 296, 140, 24]}
    step = clicked_step(make_service, small_box_in_its_line(ticked=ticked_after), element=button)
    assert step["action_type"] == "click_anchor" and step["doubts"] == []


def test_a_check_box_the_tree_names_keeps_the_state_it_reported(make_service: Any) -> None:
    # no flip on the screen (the frame after came before the repaint): the tree's reading is the state
    box = {"name": "Urgent delivery", "role": "check box", "states": ["checkable"], "bbox": [300, 296, 140, 24]}
    step = clicked_step(make_service, small_box_in_its_line(ticked=False), element=box)
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}
    assert step["shape"] == "plain" and step["doubts"] == [] and step["confidence"] >= ASK_BELOW


def test_a_click_after_which_the_radio_beside_its_text_was_selected_sets_it(make_service: Any) -> None:
    # a radio button with no accessibility tree (Tk, Swing without its bridge, a page drawn with divs)
    before, after = small_radio_in_its_line(selected=False), small_radio_in_its_line(selected=True)
    step = clicked_step(make_service, after, before=before)
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}
    assert step["intent"] == "Tick 'Urgent delivery'" and step["doubts"] == []
    assert step["post_conditions"][0] == {"kind": "checked", "text": "checked"}


def test_a_click_on_a_radio_already_selected_is_a_radio_step_asked_first(make_service: Any) -> None:
    radio = small_radio_in_its_line(selected=True)
    step = asked_first(clicked(make_service, radio, before=radio))
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}
    assert step["doubts"] == ["control_value_not_captured"]


def test_a_radio_seen_cleared_after_a_click_is_never_a_step_that_clears_it(make_service: Any) -> None:
    # a click does not clear a radio button: the one seen cleared was cleared by another's selection
    before, after = small_radio_in_its_line(selected=True), small_radio_in_its_line(selected=False)
    step = clicked_step(make_service, after, before=before)
    assert step["params"] != {"checked": False}
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}
    assert step["doubts"] == ["control_value_not_captured"]


def test_a_step_learned_from_the_box_beside_its_text_keeps_that_box_and_its_place(make_service: Any) -> None:
    # at replay, the mark read beside the label must be this one: a box on the left, as far and as large
    step = clicked_step(make_service, small_box_in_its_line(ticked=True))
    mark = step["target"]["mark"]
    assert mark["kind"] == "box" and mark["side"] == "left"
    assert 0 <= mark["gap"] < 1.5 and 0.7 <= mark["size"] <= 2.5


def test_a_step_learned_from_a_radio_keeps_the_radio_even_when_asked_first(make_service: Any) -> None:
    radio = small_radio_in_its_line(selected=True)
    step = asked_first(clicked(make_service, radio, before=radio))
    assert step["target"]["mark"]["kind"] == "radio" and step["target"]["mark"]["side"] == "left"
