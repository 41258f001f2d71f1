from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from rpa_mcp.agent_sim import VirtualDesktop, parse_desktop
from rpa_mcp.agent_sim.fixtures import ASSETS_DIR, DESKTOPS_DIR, ImageResolver
from rpa_mcp.agent_sim.spec import load_desktop_spec
from rpa_mcp.errors import InvalidInput, NotFound
from rpa_mcp.vision.images import decode_image
from tests.screens import ASSETS


def _fixture_bytes(name: str) -> bytes:
    return ImageResolver.default().resolve(name).read_bytes()


def _png(desktop: VirtualDesktop) -> np.ndarray:
    return decode_image(desktop.screenshot_png())


def test_incident_desktop_starts_on_the_hospital_record_with_the_fixture_bytes(desktop: VirtualDesktop) -> None:
    assert desktop.screen.id == "dossier"
    assert desktop.process == "msedge.exe"
    assert desktop.screenshot_png() == _fixture_bytes("dossier.png")


def test_click_on_the_imagerie_tab_shows_the_imaging_screen(desktop: VirtualDesktop) -> None:
    x, y, w, h = ASSETS.frame("dossier").tab("Imagerie").bbox
    event = desktop.click(x + w // 2, y + h // 2)
    assert (event.effect, event.label) == ("goto:imagerie", "Imagerie")
    assert "Imagerie" in desktop.window_title
    assert desktop.screenshot_png() == _fixture_bytes("imagerie.png")


def test_click_outside_any_hotspot_changes_nothing(desktop: VirtualDesktop) -> None:
    before = desktop.screenshot_png()
    event = desktop.click(960, 700)
    assert event.effect == "none"
    assert desktop.screen.id == "dossier"
    assert desktop.screenshot_png() == before


def test_click_aimed_at_the_tab_lands_in_the_pacs_window_in_front(desktop: VirtualDesktop) -> None:
    truth = ASSETS.frame("pacs")
    tab = truth.tab("Imagerie")  # the Edge tab the step recorded, now under the PACS window
    assert tab.visible == 0.0
    desktop.reset("pacs")
    event = desktop.click(tab.bbox[0] + tab.bbox[2] // 2, tab.bbox[1] + tab.bbox[3] // 2)
    assert event.effect == "goto:pacs_series1"
    assert desktop.process == "PacsViewer.exe"
    assert desktop.window_title == truth.window_title


def test_typed_text_is_drawn_in_the_focused_field_only(desktop: VirtualDesktop) -> None:
    desktop.click(40, 270)  # sidebar "Observations"
    assert desktop.screen.id == "observation"
    untouched = _png(desktop)
    desktop.type_text("ignored: no field has the focus")
    assert desktop.field_value("note") == ""
    desktop.click(800, 650)  # in the note
    desktop.type_text("Patiente vue ce jour, état stable.")
    frame = _png(desktop)
    x, y, w, h = next(f for f in desktop.spec.fields if f.id == "note").bbox
    changed = np.abs(frame.astype(int) - untouched.astype(int)).sum(axis=2) > 0
    assert changed[y : y + h, x : x + w].sum() > 200  # glyphs were drawn in the field
    changed[y : y + h, x : x + w] = False
    assert not changed.any()  # and nowhere else


def test_save_raises_the_confirmation_modal_which_is_modal_until_confirmed(desktop: VirtualDesktop) -> None:
    desktop.goto("observation")
    desktop.click(278, 732)  # "Enregistrer"
    assert desktop.top_dialog is not None and desktop.top_dialog.dialog_id == "easily-save-confirm"
    assert desktop.click(100, 24).effect == "none"  # behind the modal: nothing happens
    assert desktop.find_label("Confirmer") == (1144, 519)
    desktop.click(*desktop.find_label("Confirmer"))
    assert (desktop.screen.id, desktop.top_dialog) == ("observation_saved", None)


def test_cancel_closes_the_dialog_and_keeps_the_screen(desktop: VirtualDesktop) -> None:
    desktop.goto("observation")
    desktop.press("ctrl+s")
    assert desktop.top_dialog is not None
    event = desktop.click(*desktop.find_label("Annuler"))
    assert event.effect == "close:save_confirm"
    assert (desktop.screen.id, desktop.top_dialog) == ("observation", None)


def test_uac_pops_before_the_next_action_after_saving_and_is_a_system_dialog(desktop: VirtualDesktop) -> None:
    desktop.goto("observation_saved")
    assert desktop.system_dialog() is None
    desktop.before_action()
    dialog = desktop.system_dialog()
    assert dialog is not None
    assert (dialog.dialog_id, dialog.system, dialog.process) == ("windows-uac", "uac", "consent.exe")
    desktop.close_dialog()
    desktop.before_action()  # the trigger fires once
    assert desktop.system_dialog() is None


def test_uac_over_the_record_reproduces_the_rendered_prompt(desktop: VirtualDesktop) -> None:
    desktop.raise_dialog("uac")
    reference = cv2.imread(str(ImageResolver.default().resolve("uac.png")))
    diff = np.abs(_png(desktop).astype(int) - reference.astype(int))
    assert np.percentile(diff, 99) <= 20  # dimmed secure desktop + the real prompt pixels
    truth = ASSETS.frame("uac").dialog
    assert truth is not None
    x, y, w, h = truth.bbox
    assert diff[y : y + h, x : x + w].max() == 0


def test_the_desktop_boxes_are_the_ones_measured_in_its_frames(incident_spec) -> None:
    """Every hotspot and dialog button of incident.yaml lies on the element its frame's truth names."""
    images = {s.id: s.image.removesuffix(".png") for s in incident_spec.screens}
    for hotspot in incident_spec.hotspots:
        truth = ASSETS.frame(images[hotspot.screen])
        boxes = [t.bbox for t in truth.tabs] + [e.bbox for e in truth.elements.values()]
        assert any(_overlap(hotspot.bbox, box) >= 0.9 for box in boxes), (hotspot.screen, hotspot.label)
    uac = next(d for d in incident_spec.dialogs if d.id == "uac")
    dialog = ASSETS.frame("uac").dialog
    assert dialog is not None and tuple(uac.bbox) == dialog.bbox
    assert [(b.label, tuple(b.bbox)) for b in uac.buttons] == [(b.label, b.bbox) for b in dialog.buttons]


def _overlap(a: list[int] | tuple[int, ...], b: tuple[int, int, int, int]) -> float:
    """Share of box `a` inside box `b`."""
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return ix * iy / max(1, a[2] * a[3])


def test_every_bundled_asset_has_its_truth_and_the_set_stays_small() -> None:
    bundled = sorted(ASSETS_DIR.glob("*.png"))
    assert sum(p.stat().st_size for p in bundled) < 1_500_000
    spec = load_desktop_spec("incident", desktops_dir=DESKTOPS_DIR)
    needed = {s.image for s in spec.screens} | {d.image for d in spec.dialogs if d.image}
    assert needed <= {p.name for p in bundled}  # the demo runs from the package alone
    assert {f.file for f in ASSETS.frames} == {p.name for p in bundled}


def test_desktop_loads_from_the_bundled_assets_alone(incident_spec) -> None:
    desktop = VirtualDesktop(incident_spec, ImageResolver([ASSETS_DIR]))
    desktop.click(436, 24)
    assert desktop.screen.id == "imagerie"
    assert desktop.screenshot_png()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_image_is_reported_with_its_name(incident_spec, tmp_path: Path) -> None:
    desktop = VirtualDesktop(incident_spec, ImageResolver([tmp_path]))
    with pytest.raises(NotFound) as err:
        desktop.screenshot_png()
    assert err.value.code == "not-found"
    assert err.value.details["image"] == "dossier.png"


MINIMAL = """
name: mini
start: a
screens:
  - {id: a, image: a.png, window_title: A, process: a.exe}
hotspots:
  - {screen: a, bbox: [0, 0, 10, 10], label: Go, on_click: {goto: nowhere}}
"""


def test_definition_with_a_dangling_reference_is_rejected() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_desktop(MINIMAL)
    assert err.value.code == "invalid-input"
    assert "nowhere" in err.value.message


def test_definition_with_yaml_aliases_is_rejected() -> None:
    text = MINIMAL.replace("goto: nowhere", "goto: a") + "fields:\n  - &f {id: x, screens: [a], bbox: [0, 0, 1, 1]}\n"
    text += "  - *f\n"
    with pytest.raises(InvalidInput) as err:
        parse_desktop(text)
    assert "alias" in err.value.message


def test_every_desktop_dialog_reads_like_its_catalog_entry() -> None:
    import yaml

    from rpa_mcp.settings import shipped_dir
    from rpa_mcp.vision.ocr import normalize_text

    catalog = {e["id"]: e for e in yaml.safe_load((shipped_dir("catalog") / "dialogs.yaml").read_text())["dialogs"]}
    spec = load_desktop_spec("incident", desktops_dir=DESKTOPS_DIR)
    for dialog in spec.dialogs:
        entry = catalog[dialog.dialog_id]
        titles = {normalize_text(t) for lang in ("en", "fr") for t in entry["titles"][lang]}
        labels = {normalize_text(b[lang]) for b in entry["buttons"] for lang in ("en", "fr")}
        title = dialog.draw.title if dialog.draw else dialog.window_title
        assert normalize_text(title) in titles, dialog.id
        assert {normalize_text(b.label) for b in dialog.buttons} <= labels, dialog.id
        assert (dialog.system is not None) == (entry["category"] == "A"), dialog.id
