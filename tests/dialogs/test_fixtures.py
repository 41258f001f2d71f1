"""The classifier and resolver on the fixture corpus (real OCR, one engine for the session)."""

from __future__ import annotations

import pytest

from rpa_mcp.dialogs import DeclaredModal
from rpa_mcp.dialogs.locate import iou

from .helpers import frame

SYSTEM = ("windows-", "defender-")


def dialog_images(corpus):
    root, images = corpus
    return [(root, im) for im in images if im["ground_truth"].get("dialog_id")]


def previous_of(root, im):
    return frame(root, im["file"].replace("_after", "_before")) if im["kind"] == "pair_after" else None


@pytest.fixture(scope="module")
def results(corpus, real_service):
    out = {}
    for root, im in dialog_images(corpus):
        out[im["file"]] = (im, real_service.resolve(frame(root, im["file"]), previous=previous_of(root, im)))
    return out


def test_at_least_95_percent_of_dialog_images_get_the_right_id(results):
    wrong = [f for f, (im, d) in results.items() if d.dialog_id != im["ground_truth"]["dialog_id"]]
    assert len(results) >= 20
    assert len(wrong) <= 0.05 * len(results), wrong


def test_every_dialog_box_overlaps_the_truth(results):
    for file, (im, d) in results.items():
        truth = im["ground_truth"]["dialog_visible_bbox"]
        assert d.classification.bbox is not None and iou(d.classification.bbox, tuple(truth)) >= 0.7, file


def test_every_system_dialog_and_every_unknown_pauses(results):
    for file, (im, d) in results.items():
        truth = im["ground_truth"]["dialog_id"]
        if truth.startswith(SYSTEM) or truth == "unknown" or d.dialog_id.startswith(SYSTEM):
            assert d.decision == "pause", file
            assert d.crop_png_base64


def test_no_fixture_dialog_is_auto_answered_by_the_catalog_alone(results):
    assert all(d.decision != "auto" for _, d in results.values())


@pytest.mark.parametrize(
    ("name", "dialog_id", "button", "expected_label"),
    [
        ("d06_notepad_save_en", "notepad-save-changes", "dont_save", "Don't Save"),
        ("d07_notepad_save_fr_150pct", "notepad-save-changes", "dont_save", "Ne pas enregistrer"),
        ("d07_notepad_save_fr_150pct", "notepad-save-changes", "save", "Enregistrer"),
        ("d19_notepad11_save_dark_en", "notepad-save-changes", "cancel", "Cancel"),
        ("d08_browser_mic_en_edge", "browser-perm-microphone", "block", "Block"),
        ("d09_browser_mic_fr_chrome_1366", "browser-perm-microphone", "allow", "Autoriser"),
    ],
)
def test_a_declared_auto_clicks_inside_the_right_button(corpus, real_service, name, dialog_id, button, expected_label):
    root, images = corpus
    im = next(i for i in images if i["file"] == f"png/{name}.png")
    decision = real_service.resolve(
        frame(root, im["file"]), declared_modals=[DeclaredModal(dialog_id=dialog_id, policy="auto", button=button)]
    )
    assert decision.decision == "auto", decision.reason
    truth = next(b for b in im["ground_truth"]["dialogs"][0]["button_details"] if b["label"] == expected_label)
    x, y, w, h = truth["bbox"]
    cx, cy = decision.click_at
    assert x <= cx <= x + w and y <= cy <= y + h


def test_the_occluded_notepad_dialog_is_never_auto_answered(corpus, real_service):
    root, images = corpus
    im = next(i for i in images if "d20_occluded" in i["file"])
    decision = real_service.resolve(
        frame(root, im["file"]),
        declared_modals=[DeclaredModal(dialog_id="notepad-save-changes", policy="auto", button="dont_save")],
    )
    assert decision.dialog_id == "notepad-save-changes"
    assert decision.decision == "pause"  # the title is hidden: not sure enough to click


def no_dialog_images(corpus):
    root, images = corpus
    return [(root, im) for im in images if not im["ground_truth"].get("dialog_id")]


def test_frames_without_a_dialog_report_none(corpus, real_service):
    # page cards (COMPTE-RENDU, tables), a window's status bar, a browser toolbar are not dialogs
    seen = []
    frames = no_dialog_images(corpus)
    for root, im in frames:
        found = real_service.classify(frame(root, im["file"]), previous=previous_of(root, im))
        if found.found:
            seen.append((im["file"], found.dialog_id, found.bbox))
    assert len(frames) >= 20
    assert seen == []


def test_a_toast_needs_the_previous_frame_and_is_found_with_it(corpus, real_service):
    root, images = corpus
    im = next(i for i in images if "p05_save_web_toast_fr_after" in i["file"])
    with_previous = real_service.classify(frame(root, im["file"]), previous=previous_of(root, im))
    assert with_previous.dialog_id == "easily-toast-saved"
    assert iou(with_previous.bbox, tuple(im["ground_truth"]["dialog_visible_bbox"])) >= 0.7
