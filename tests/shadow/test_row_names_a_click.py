"""A click on no text, with no accessibility tree, is named by the text on its own row before any text above it.

Drawn frames: a result grid whose first-name cell is clicked in its blank right part (the name at the cell's
start, the column header above it), a field with its label on its left and a patient banner above it, and a
field whose only label stands above it. What OCR reads is what the frame shows in each region read: the
region is found in the frame, and each line drawn there is read where it stands (cut at the region's edge).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev

W, H = 960, 540
FONT = cv2.FONT_HERSHEY_SIMPLEX
SCALE = 0.45
AT = {"window_title": "Transfusion", "locale": "fr-FR", "screen_width": W, "screen_height": H}


@dataclass
class Drawn:
    """A frame and the lines of text drawn on it (frame pixels)."""

    image: np.ndarray = field(default_factory=lambda: np.full((H, W, 3), 200, np.uint8))
    lines: list[tuple[str, tuple[int, int, int, int]]] = field(default_factory=list)

    def text(self, text: str, x: int, middle: int) -> tuple[int, int, int, int]:
        (w, h), base = cv2.getTextSize(text, FONT, SCALE, 1)
        cv2.putText(self.image, text, (x, middle + h // 2), FONT, SCALE, (20, 20, 20), 1, cv2.LINE_AA)
        box = (x, middle - h // 2 - 1, w, h + base)
        self.lines.append((text, box))
        return box

    def box(self, x: int, y: int, w: int, h: int, *, fill: int = 255, border: int = 120) -> None:
        cv2.rectangle(self.image, (x, y), (x + w - 1, y + h - 1), (fill, fill, fill), -1)
        cv2.rectangle(self.image, (x, y), (x + w - 1, y + h - 1), (border, border, border), 1)


@dataclass
class FrameOcr:
    """Reads the lines drawn on a frame in whatever region of it the learning reads."""

    drawn: Drawn

    def read(self, image: np.ndarray) -> list[OcrLine]:
        frame = self.drawn.image
        if image.shape[0] > frame.shape[0] or image.shape[1] > frame.shape[1]:
            return []
        found = cv2.matchTemplate(frame, image, cv2.TM_SQDIFF)
        at = np.argwhere(found <= found.min() + 1e-3)
        if len(at) != 1:  # a blank region seen in many places holds no text
            return []
        ry, rx = (int(v) for v in at[0])
        rh, rw = image.shape[:2]
        out = []
        for text, (x, y, w, h) in self.drawn.lines:
            left, right = max(x, rx), min(x + w, rx + rw)
            if right - left < 8 or not (ry <= y + h / 2 <= ry + rh):
                continue
            shown = text[round((left - x) / w * len(text)) : round((right - x) / w * len(text))]
            out.append(OcrLine(shown, (left - rx, y - ry, right - left, h), 0.97))
        return out

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        lines = self.read(image)
        return lines[0] if lines else None

    def read_lines(self, images: Any) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


def png(image: np.ndarray) -> str:
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


CELL = (320, 160, 240, 22)  # the first row's first-name cell: wide, the name at its start


def grid() -> Drawn:
    """A result grid: a header row ("IPP", "Nom", "Prenom"), two patients named ROCHE."""
    drawn = Drawn()
    columns = ((100, 100, "IPP"), (200, 120, "Nom"), (320, 240, "Prenom"))
    for x, w, title in columns:
        drawn.box(x, 138, w, 22, fill=225)
        size = cv2.getTextSize(title, FONT, SCALE, 1)[0][0]
        drawn.text(title, x + (w - size) // 2, 149)  # a header's title is centred over its column
    for row, patient in enumerate((("800211", "ROCHE", "Berenice"), ("800212", "ROCHE", "Yves"))):
        y = 160 + 22 * row
        for (x, w, _), text in zip(columns, patient, strict=True):
            drawn.box(x, y, w, 22, border=170)
            drawn.text(text, x + 4, y + 11)
    return drawn


def form(*, label_left: bool = True) -> Drawn:
    """A request form: the patient's banner over an indication field with its label on its left; or a field
    whose only label stands over it, nothing on its row."""
    drawn = Drawn()
    if label_left:
        drawn.text("ROCHE Berenice - IPP 800211 - groupe A+", 170, 199)
        drawn.text("Indication :", 170, 221)
    else:
        drawn.text("Indication", 300, 200)
    drawn.box(300, 210, 260, 22)
    return drawn


def steps(drawn: Drawn, events: list[dict[str, Any]], make_service: Any) -> tuple[ShadowService, list[Any]]:
    service: ShadowService = make_service(ocr=FrameOcr(drawn))
    service.ingest([ev("screenshot", 0.5, screenshot=png(drawn.image), **AT), *events])
    return service, list(service.understanding("s1")["steps"])


def test_a_grid_row_clicked_on_blank_cell_space_is_named_by_the_name_on_its_row(make_service: Any) -> None:
    drawn = grid()
    x, y, w, h = CELL
    click = ev("click", 1.0, x=x + w // 2, y=y + h // 2, screenshot=png(drawn.image), **AT)
    _, (step,) = steps(drawn, [click], make_service)
    # the name at the start of the cell, not the header "Prenom" above it
    assert step["target"]["by_text"] == "Berenice" and step["target"]["label"] == "Berenice"
    name_box = next(box for text, box in drawn.lines if text == "Berenice")
    assert step["target"]["bbox"] == list(name_box)  # found by the name, clicked again beside it
    assert step["target"]["label_offset"] == [x + w // 2 - name_box[0], y + h // 2 - name_box[1]]


def test_the_row_goes_through_record_selection_a_parameter_with_its_identity(make_service: Any) -> None:
    drawn = grid()
    x, y, w, h = CELL
    click = ev("click", 1.0, x=x + w // 2, y=y + h // 2, screenshot=png(drawn.image), **AT)
    opened = ev("focus", 1.5, window_title="Transfusion - Demande - ROCHE Berenice", locale="fr-FR")
    service, (shown,) = steps(drawn, [click, opened], make_service)
    assert shown["value"] == "Berenice"  # a record chosen by its label: the title names it after the click
    service.feedback("s1", "parameterize", step_index=1, name="prenom")
    step = service.build("s1", "Transfusion")["workflow_ir"]["steps"][0]
    assert step["identity"] == "{{prenom}}"  # read on the row before the click, at replay
    assert step["target"]["label"] == step["target"]["by_text"] == "{{prenom}}"
    assert not {"bbox", "anchor_ref", "x_pct", "y_pct"} & set(step["target"])  # never the recorded place


def test_a_field_is_named_by_its_label_on_the_left_not_by_the_banner_above(make_service: Any) -> None:
    drawn = form()
    click = ev("click", 1.0, x=312, y=221, screenshot=png(drawn.image), **AT)  # 12 px inside the field
    _, (step,) = steps(drawn, [click, ev("type", 2.0, text="Anemie aigue", **AT)], make_service)
    assert step["action_type"] == "type_text" and step["target"]["by_text"] == "Indication :"
    assert step["target"]["bbox"] == [301, 211, 258, 20]  # the field's inside, found from its label
    label = next(box for text, box in drawn.lines if text == "Indication :")
    assert step["target"]["label_offset"] == [341 - label[0], 221 - label[1]]  # 40 px in, half way down


def test_a_field_whose_label_stands_above_it_is_still_named_by_that_label(make_service: Any) -> None:
    drawn = form(label_left=False)
    click = ev("click", 1.0, x=312, y=221, screenshot=png(drawn.image), **AT)
    _, (step,) = steps(drawn, [click, ev("type", 2.0, text="Anemie aigue", **AT)], make_service)
    assert step["action_type"] == "type_text" and step["target"]["by_text"] == "Indication"


def test_text_in_another_field_on_the_row_does_not_name_the_click(make_service: Any) -> None:
    drawn = Drawn()
    drawn.text("Nom", 160, 200)  # each field's label over it
    drawn.text("Prenom", 380, 200)
    drawn.box(160, 210, 210, 22)
    drawn.text("ROCHE-LAMBERT Marie", 166, 221)  # typed in the first field: its content, not the next one's label
    drawn.box(380, 210, 200, 22)
    click = ev("click", 1.0, x=392, y=221, screenshot=png(drawn.image), **AT)
    _, (step,) = steps(drawn, [click, ev("type", 2.0, text="Berenice", **AT)], make_service)
    assert step["target"]["by_text"] == "Prenom"
