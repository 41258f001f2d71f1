"""The committed screens: complete, small, read without a browser; the generator still makes them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rpa_mcp.screens import canonical, corpus
from rpa_mcp.screens.corpus import PairSpec, render_frame, render_pair
from rpa_mcp.screens.look import Look
from rpa_mcp.screens.render import Renderer
from rpa_mcp.screens.truth import ElementTruth
from tests.conftest import CHROMIUM, require_chromium
from tests.screens import ASSETS, SCREENS, SCREENS_DIR


def test_every_canonical_spec_has_its_truth_and_images() -> None:
    names = {f.file.removesuffix(".png") for f in SCREENS.frames}
    assert names == {s.name for s in canonical.FRAMES}
    assert {p.id for p in SCREENS.pairs} == {s.name for s in canonical.PAIRS}
    for frame in SCREENS.frames + [f for p in SCREENS.pairs for f in (p.before, p.after)]:
        image = SCREENS.image(frame.file)
        assert (image.shape[1], image.shape[0]) == frame.size, frame.file


def test_the_committed_sets_stay_small() -> None:
    total = sum(p.stat().st_size for p in SCREENS_DIR.iterdir())
    assert total < 5_000_000
    assert not [p for p in SCREENS_DIR.iterdir() if p.suffix not in (".png", ".json")]


def test_a_dialog_frame_names_its_catalog_entry_its_title_and_buttons() -> None:
    uac = SCREENS.frame("d-uac-fr-win10")
    assert uac.dialog is not None and uac.dialog.id == "windows-uac"
    assert uac.dialog.title == "Contrôle de compte d'utilisateur"
    assert [b.label for b in uac.dialog.buttons] == ["Oui", "Non"]
    assert uac.process == "consent.exe"
    x, y, w, h = uac.dialog.bbox
    for button in uac.dialog.buttons:
        bx, by, bw, bh = button.bbox
        assert x <= bx and bx + bw <= x + w and y <= by and by + bh <= y + h


def test_a_pair_names_its_action_target_and_expected_verdict() -> None:
    pair = SCREENS.pair("p-wrong-application")
    assert (pair.verdict, pair.failure_category) == ("FAILURE", "WRONG_APPLICATION")
    assert pair.action.type == "switch_tab" and pair.action.label == "Imagerie"
    assert pair.before.tab("Imagerie").visible == 0.0  # the tab is under the PACS window
    assert pair.observed["process_after"] == "PacsViewer.exe"
    assert 0.0 <= pair.recorded["rel_x"] <= 1.0


def test_the_demo_desktop_frames_ship_with_their_truth() -> None:
    assert {f.file for f in ASSETS.frames} >= {"dossier.png", "imagerie.png", "uac.png", "pacs.png"}
    assert ASSETS.frame("uac").dialog is not None


@pytest.mark.browser
def test_the_generator_renders_the_committed_truth_again() -> None:
    """Same spec, same boxes (a few px of font hinting allowed): the committed data comes from this code."""
    require_chromium()
    spec = next(s for s in canonical.FRAMES if s.name == "d-easily-save-confirm-fr")
    pair_spec = next(s for s in canonical.PAIRS if s.name == "p-tab-closed")
    with Renderer(str(CHROMIUM)) as renderer:
        _png, truth = render_frame(renderer, spec, "canonical")
        _b, _a, pair = render_pair(renderer, pair_spec, "canonical")
    committed = SCREENS.frame(spec.name)
    assert truth.dialog is not None and committed.dialog is not None
    assert truth.dialog.id == committed.dialog.id and truth.dialog.title == committed.dialog.title
    assert _close(truth.dialog.bbox, committed.dialog.bbox)
    assert [b.label for b in truth.dialog.buttons] == [b.label for b in committed.dialog.buttons]
    old = SCREENS.pair(pair_spec.name)
    assert pair.action.label == old.action.label and _close(pair.action.bbox, old.action.bbox)
    assert [t.label for t in pair.after.tabs] == [t.label for t in old.after.tabs]


@pytest.mark.browser
def test_a_form_on_the_shortest_page_keeps_its_save_button_in_view() -> None:
    """1920x1080 at 150 % is a 1280x720 page and 1366x768 a short one: the note form shrinks its text
    box instead of leaving its buttons off the frame or under the taskbar."""
    require_chromium()
    looks = [Look(scale=1.5, width=1920, height=1080, browser="edge"), Look(width=1366, height=768, browser="chrome")]
    with Renderer(str(CHROMIUM)) as renderer:
        for look in looks:
            for seed in (1, 2):  # the bookmarks bar is drawn at one of them
                spec = PairSpec(f"save-toast-{seed}", "save-toast", look, seed)
                _b, _a, pair = render_pair(renderer, spec, "tuning")  # raises on a target out of view
                assert pair.before.element("save-button").visible > 0.99


def test_the_generator_refuses_a_pair_whose_target_is_out_of_view() -> None:
    pair = SCREENS.pair("p-tab-closed")
    before = replace(pair.before, elements={"save-button": ElementTruth("Save", (224, 1060, 108, 34), visible=0.4)})
    with pytest.raises(ValueError, match=r"'save-button' at .* not in view on the 1920x1080 frame"):
        corpus.check_in_view("save-toast-00", ("element", "save-button"), (224, 1060, 108, 34), before)


def _close(a: object, b: object, tol: int = 3) -> bool:
    assert isinstance(a, tuple) and isinstance(b, tuple)
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))
