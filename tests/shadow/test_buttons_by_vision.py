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


class _ClickThenForm:
    """OCR of the demonstration: the clicked line in the crop around the click, the form's title elsewhere."""

    def __init__(self, label: str, line: BBox) -> None:
        self.label, self.line, self.calls = label, line, 0

    def read(self, image: np.ndarray) -> list[OcrLine]:
        self.calls += 1
        if image.shape[:2] == (80, 300):  # the crop kept around the click
            return [OcrLine(self.label, self.line, 0.97)]
        return [OcrLine("Nouvelle admission", (10, 8, 200, 24), 0.97)]

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        lines = self.read(image)
        return lines[0] if lines else None

    def read_lines(self, images: Any) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


def test_a_form_opened_by_a_button_seen_on_the_screen_is_the_step_s_outcome(make_service: Any) -> None:
    """No tree says the click pressed a button; the face seen around its text does: what opened is the outcome."""
    image, text = filled("Nouveau")
    after = image.copy()
    cv2.rectangle(after, (60, 200), (440, 380), (250, 250, 250), -1)  # the application's own form, over its window
    cv2.rectangle(after, (60, 200), (440, 380), (90, 90, 90), 2)
    x, y = centre(text)
    line = (text[0] - (x - 150), text[1] - 2 - (y - 40), text[2], text[3] + 4)
    service = make_service(ocr=_ClickThenForm("Nouveau", line))
    height, width = image.shape[:2]

    def png(frame: np.ndarray) -> str:
        return base64.b64encode(cv2.imencode(".png", frame)[1].tobytes()).decode("ascii")

    service.ingest(
        [
            ev("click", 1.0, x=x, y=y, screen_width=width, screen_height=height, screenshot=png(image), **AT),
            ev("screenshot", 2.0, screenshot=png(after), **AT),
        ]
    )
    step = service.understanding("s1")["steps"][0]
    assert step["identity"] is None
    assert {"kind": "dialog_opened", "text": "Nouvelle admission"} in step["post_conditions"]


def test_a_button_seen_on_the_screen_that_takes_the_person_back_answered_a_dialog(make_service: Any) -> None:
    image, text = filled("Valider")
    x, y = centre(text)
    line = (text[0] - (x - 150), text[1] - 2 - (y - 40), text[2], text[3] + 4)
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Valider", line, 0.97)]))
    height, width = image.shape[:2]
    shot = base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")
    size = {"screen_width": width, "screen_height": height, "app": "java", "locale": "fr-FR"}
    service.ingest(
        [
            ev(
                "click", 1.0, x=40, y=40, element={"name": "Supprimer", "role": "Button"}, **size, window_title="Agenda"
            ),
            ev("click", 3.0, x=x, y=y, screenshot=shot, window_title="Confirmation", **size),
            ev("screenshot", 4.0, screenshot=shot, window_title="Agenda", **size),
        ]
    )
    steps = service.understanding("s1")["steps"]
    assert {"kind": "dialog_closed", "text": "Confirmation"} in steps[-1]["post_conditions"]
