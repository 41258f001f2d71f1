"""A click on a push button of an application without an accessibility tree: seen on the screenshot, its label is an
action even when it reads like a name; a list's line or a grid's row naming a patient stays a record."""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev
from tests.vision.test_push_button import centre, filled, grid, listing, metal, motif, outlined, windows_classic

AT = {"window_title": "Agenda — Consultations", "app": "java", "locale": "fr-FR"}


def clicked(make_service: Any, image: np.ndarray, text: BBox, label: str) -> dict[str, Any]:
    """The step learned from a click on `label`'s text (read there by OCR), no accessible element reported."""
    x, y = centre(text)
    line = (text[0] - (x - 150), text[1] - 2 - (y - 40), text[2], text[3] + 4)  # in the crop kept around the click
    service = make_service(ocr=FakeOcr(lines=[OcrLine(label, line, 0.97)]))
    height, width = image.shape[:2]
    shot = base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")
    service.ingest([ev("click", 1.0, x=x, y=y, screen_width=width, screen_height=height, screenshot=shot, **AT)])
    step: dict[str, Any] = service.understanding("s1")["steps"][0]
    return step


@pytest.mark.parametrize(
    ("draw", "label"),
    [
        (motif, "OK"),
        (windows_classic, "OK"),
        (metal, "Valider RDV"),
        (outlined, "Confirmer le RDV"),
        (filled, "Ajouter RDV"),
    ],
)
def test_a_button_seen_on_the_screen_whose_label_reads_like_a_name_is_an_action(
    make_service: Any, draw: Any, label: str
) -> None:
    image, text = draw(label)
    step = clicked(make_service, image, text, label)
    assert step["action_type"] == "click_anchor" and step["target"]["label"] == label
    assert step["identity"] is None


@pytest.mark.parametrize(
    "scene",
    [
        lambda: grid(),
        lambda: grid(name_fills_cell=True),
        lambda: listing(zebra=True, selected=None),
        lambda: listing(zebra=False, selected=2),
        lambda: listing(zebra=True, selected=2, border=False),
    ],
    ids=["grid", "grid-filled-cell", "zebra-list", "selected-line", "selected-zebra-no-border"],
)
def test_a_patient_s_row_or_list_line_stays_a_record(make_service: Any, scene: Any) -> None:
    image, text = scene()
    step = clicked(make_service, image, text, "LEGRAND Paul")
    assert step["identity"] == "LEGRAND Paul"


def test_a_button_chosen_by_a_parameter_is_a_record_still(make_service: Any) -> None:
    from rpa_mcp.shadow.postconditions import identity_of

    target = {"label": "OK", "element": None}
    assert identity_of("click_anchor", target, None, seen_button=True) is None
    assert identity_of("click_anchor", target, {"name": "patient"}, seen_button=True) == "OK"
    assert identity_of("click_anchor", target, None, seen_button=False) == "OK"  # unsure: judged by its words
