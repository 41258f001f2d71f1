"""A field named by a label standing beside it (a native form): the demonstration keeps where the label
was read, and a replay that finds the label types into the field at the same offset from it, not on
the label (a click on a label widget does not give its field the keyboard)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from rpa_mcp.replay.resolve import Resolution, TargetResolver
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from rpa_mcp.shadow.targets import label_offset

W, H = 1280, 720
LABEL = "Motif d'admission"


def form(dx: int = 0, dy: int = 0) -> np.ndarray:
    """The label at (100, 100) (+ a move), its field to the right of it."""
    img = np.full((H, W, 3), 240, np.uint8)
    cv2.putText(img, "Motif d'admission", (100 + dx, 120 + dy), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 30), 2)
    cv2.rectangle(img, (360 + dx, 100 + dy), (580 + dx, 134 + dy), (255, 255, 255), -1)
    cv2.rectangle(img, (360 + dx, 100 + dy), (580 + dx, 134 + dy), (120, 120, 120), 1)
    return img


def spec(label_box: list[int] | None) -> dict[str, Any]:
    found = {"label_offset": label_offset(label_box, [360, 100, 220, 34])} if label_box else {}
    return {
        "label": LABEL,
        "bbox": [360, 100, 220, 34],
        "frame_size": [W, H],
        "rel_x": 400 / W,
        "rel_y": 117 / H,
        "resolve_order": ["ocr"],
        **found,
    }


def test_the_field_beside_its_label_is_where_the_click_lands_after_the_window_moved(resolver: TargetResolver) -> None:
    recorded = resolver.resolve(form(), spec(None))  # where the label reads on the demonstration's screen
    assert recorded.resolved and recorded.box is not None
    moved = {k: v for k, v in spec(list(recorded.box)).items() if k != "bbox"}  # a moved window's spec has no box
    res = resolver.resolve(form(dx=60, dy=40), moved)
    assert res.resolved, res
    assert 360 + 60 < res.x < 580 + 60 and 100 + 40 < res.y < 134 + 40, (res.x, res.y)  # inside the moved field


def test_without_a_label_box_the_label_itself_is_the_target_as_before(resolver: TargetResolver) -> None:
    res = resolver.resolve(form(dx=60, dy=40), spec(None))
    assert res.resolved and res.x < 360 + 60  # on the label: a web field's label or placeholder is the field


def test_the_same_text_far_from_where_the_field_was_is_judged_as_the_line_itself(resolver: TargetResolver) -> None:
    # Recorded: the label 300 px left of its field, the click in the field at x=400. On this screen the
    # text stands at the click's place (say a heading, or the page laid out again): the field "beside" it
    # would be 300 px further right, far from where the step was made; the line itself is judged instead.
    far = {**spec([60, 100, 200, 24]), "rel_x": 150 / W}
    res = resolver.resolve(form(), far)
    assert res.resolved, res
    assert res.x < 360, (res.x, res.y)  # on the line found, as a hit without a label box is judged


def test_a_label_read_cut_short_in_the_demonstration_still_puts_the_click_in_the_field(
    resolver: TargetResolver,
) -> None:
    # only the screen named the field (no accessibility tree): the region read around the click cut the
    # label's first letter, "otif d'admission"; the replay reads the whole line and measures from its end
    whole = resolver.resolve(form(), spec(None))
    assert whole.resolved and whole.box is not None
    cut = cv2.getTextSize("M", cv2.FONT_HERSHEY_SIMPLEX, 0.8, 2)[0][0]
    fragment_left, line_top = whole.box[0] + cut, whole.box[1]
    clicked = (368, 117)  # 8 px inside the field, as a person clicks where they will type
    cut_short = {
        "label": LABEL[1:],
        "frame_size": [W, H],
        "resolve_order": ["ocr"],
        "label_offset": [clicked[0] - fragment_left, clicked[1] - line_top],
        "label_width": whole.box[0] + whole.box[2] - fragment_left,  # the fragment ends where the line does
    }
    res = resolver.resolve(form(dx=60, dy=40), cut_short)
    assert res.resolved, res
    assert 360 + 60 < res.x < 580 + 60 and 100 + 40 < res.y < 134 + 40, (res.x, res.y)


def test_a_field_recorded_with_its_own_box_is_never_clicked_on_its_label(resolver: TargetResolver) -> None:
    # the label found, the field's place from it far from where the step was made: the line itself was
    # clicked (a label gives no field the keyboard: the text went nowhere); now not found, the run pauses
    far = {**spec([60, 100, 200, 24]), "rel_x": 150 / W, "in_field": True}
    res = resolver.resolve(form(), far)
    assert not res.resolved and res.x is None, res


def test_a_field_recorded_with_its_own_box_but_no_place_from_its_label_is_not_found(resolver: TargetResolver) -> None:
    res = resolver.resolve(form(dx=60, dy=40), {**spec(None), "in_field": True})
    assert not res.resolved and res.method == "not_found", res


def test_a_wide_field_clicked_far_from_its_label_is_judged_where_it_was_clicked_and_typed_into_near_it(
    resolver: TargetResolver,
) -> None:
    # a wide field (a note) clicked in its middle, 600 px right of its label: the click goes a little
    # inside its left edge (a field may narrow with its window), the drift guard judges where the person
    # clicked; the replay had paused (target_not_resolved) on the demo's note field
    recorded = resolver.resolve(form(), spec(None))
    assert recorded.box is not None
    lx, ly = recorded.box[0], recorded.box[1]
    wide = {
        **spec(list(recorded.box)),
        "rel_x": (lx + 600) / W,
        "in_field": True,
        "label_click": [600, 17 + 100 - ly],
    }
    res = resolver.resolve(form(), wide)
    assert res.resolved, res
    assert 360 < res.x < 580 and 100 < res.y < 134, (res.x, res.y)


def field_read_as(text: str, bbox: tuple[int, int, int, int]) -> Resolution:
    """The field "Nom du patient :" resolved on a screen where the recognizer reads one line, `text`."""
    from rpa_mcp.testing import FakeOcr
    from rpa_mcp.vision.ocr import OcrLine

    resolver = TargetResolver(
        ocr=FakeOcr(lines=[OcrLine(text=text, bbox=bbox, score=0.98)]), memory=None, vlm=NoVlmLocator(),
        thresholds=load_thresholds(shipped_dir("catalog") / "thresholds.yaml"),
    )  # fmt: skip
    field = {"label": "Nom du patient :", "frame_size": [1920, 1080], "in_field": True,
             "label_offset": [123, 8], "label_click": [123, 8], "resolve_order": ["ocr"]}  # fmt: skip
    return resolver.resolve(np.full((1080, 1920, 3), 240, np.uint8), field)


def test_a_label_read_joined_with_its_field_s_placeholder_is_the_label_alone() -> None:
    # the recognizer read the label and the placeholder of the field beside it as one line
    # ("Nom du patient : NOM ou n° de dossier"): the rest of the line is the field's own text
    res = field_read_as("Nom du patient : NOM ou n° de dossier", (512, 343, 238, 30))
    assert res.resolved, res
    assert res.x is not None and res.x > 512 + 103  # in the field, past the label


def test_a_label_inside_other_words_still_scores_lower_than_the_guard_takes() -> None:
    res = field_read_as("Voir le Nom du patient : NOM ou n° de dossier", (452, 343, 298, 30))
    assert not res.resolved, res  # never typed on a guess
