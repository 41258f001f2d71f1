"""The classifier and resolver on the committed screens (real OCR, one engine for the session)."""

from __future__ import annotations

import pytest

from rpa_mcp.bench.cases import FrameCase
from rpa_mcp.dialogs import DeclaredModal
from rpa_mcp.dialogs.catalog import GENERIC_IDS
from rpa_mcp.dialogs.locate import iou
from tests.screens import SCREENS

SYSTEM = ("windows-", "defender-")


@pytest.fixture(scope="module")
def results(corpus, real_service):
    return {c.name: (c, real_service.resolve(c.image, previous=c.previous)) for c in corpus if c.truth.dialog}


def _truth(case: FrameCase):
    assert case.truth.dialog is not None
    return case.truth.dialog


def _right(truth: str, got: str) -> bool:
    """A generic kind (app-error, app-save-changes...) counts where the catalog holds no specific entry."""
    return got == truth or (truth == "unknown" and got in GENERIC_IDS)


def test_at_least_95_percent_of_dialog_frames_get_the_right_id(results):
    wrong = [(f, _truth(c).id, d.dialog_id) for f, (c, d) in results.items() if not _right(_truth(c).id, d.dialog_id)]
    assert len(results) >= 30
    assert len(wrong) <= 0.05 * len(results), wrong


def test_every_dialog_box_overlaps_the_truth(results):
    low = [
        (f, d.classification.bbox, _truth(c).visible_bbox)
        for f, (c, d) in results.items()
        if d.classification.bbox is None or iou(d.classification.bbox, _truth(c).visible_bbox) < 0.7
    ]
    assert low == []


def test_every_system_dialog_and_every_unknown_pauses(results):
    for file, (case, d) in results.items():
        truth = _truth(case).id
        if truth.startswith(SYSTEM) or truth == "unknown" or d.dialog_id.startswith(SYSTEM):
            assert d.decision == "pause", file
            assert d.crop_png_base64


def test_only_a_dialog_the_catalog_answers_is_auto_answered_and_only_when_identified(results, catalog):
    wrong = [
        (f, _truth(c).id, d.dialog_id)
        for f, (c, d) in results.items()
        if d.decision == "auto" and (d.dialog_id != _truth(c).id or catalog.get(_truth(c).id).policy != "auto")
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("name", "dialog_id", "button", "expected_label"),
    [
        ("d-notepad-save-en-win10", "notepad-save-changes", "dont_save", "Don't Save"),
        ("d-notepad-save-fr-dark-150", "notepad-save-changes", "dont_save", "Ne pas enregistrer"),
        ("d-notepad-save-fr-dark-150", "notepad-save-changes", "save", "Enregistrer"),
        ("d-notepad-save-en-win10", "notepad-save-changes", "cancel", "Cancel"),
        ("d-perm-microphone-en-edge", "browser-perm-microphone", "block", "Block"),
        ("d-perm-camera-fr-chrome", "browser-perm-camera", "allow", "Autoriser pendant la visite du site"),
    ],
)
def test_a_declared_auto_clicks_inside_the_right_button(real_service, name, dialog_id, button, expected_label):
    truth = SCREENS.frame(name)
    decision = real_service.resolve(
        SCREENS.image(truth.file), declared_modals=[DeclaredModal(dialog_id=dialog_id, policy="auto", button=button)]
    )
    assert decision.decision == "auto", decision.reason
    assert truth.dialog is not None
    x, y, w, h = truth.dialog.button(expected_label).bbox
    cx, cy = decision.click_at
    assert x <= cx <= x + w and y <= cy <= y + h


def test_the_occluded_notepad_dialog_is_never_auto_answered(real_service):
    truth = SCREENS.frame("d-notepad-save-occluded-en")
    assert truth.dialog is not None and truth.dialog.visible < 1.0
    decision = real_service.resolve(
        SCREENS.image(truth.file),
        declared_modals=[DeclaredModal(dialog_id="notepad-save-changes", policy="auto", button="dont_save")],
    )
    # its title hidden, nothing of Notepad's own shows ("Untitled" is any editor's new document): the
    # generic kind, which the declared modal does not name
    assert decision.dialog_id == "app-save-changes"
    assert decision.decision == "pause"  # partly hidden: not sure enough to click


def test_frames_without_a_dialog_report_none(corpus, real_service):
    # page cards, a panel of the page with its own buttons, a window's status bar, a toolbar are not dialogs
    frames = [c for c in corpus if c.truth.dialog is None]
    seen = []
    for case in frames:
        found = real_service.classify(case.image, previous=case.previous)
        if found.found:
            seen.append((case.name, found.dialog_id, found.bbox))
    assert len(frames) >= 15
    assert seen == []


def test_a_toast_is_found_with_the_previous_frame(real_service):
    pair = SCREENS.pair("p-save-toast-fr")
    found = real_service.classify(SCREENS.image(pair.after.file), previous=SCREENS.image(pair.before.file))
    assert pair.after.dialog is not None
    assert found.dialog_id == "easily-toast-saved"
    assert iou(found.bbox, pair.after.dialog.visible_bbox) >= 0.7


def test_a_toast_on_its_frame_alone_is_still_found(real_service):
    # a toast is itself button-shaped, as wide as its box: no stack of buttons a button wide (which is
    # no dialog, see test_locate)
    frame = SCREENS.frame("d-easily-toast-fr")
    found = real_service.classify(SCREENS.image(frame.file))
    assert frame.dialog is not None
    assert found.dialog_id == "easily-toast-saved", found.notes
    assert iou(found.bbox, frame.dialog.visible_bbox) >= 0.7
