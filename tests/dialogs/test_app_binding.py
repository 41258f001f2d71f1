"""An entry answered or ignored without a person (auto, skip) matches only inside its own, confirmed
application; the same words anywhere else give a generic kind, which pauses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rpa_mcp.bench.cases import FrameCase
from rpa_mcp.dialogs import DialogCatalog, DialogClassifier, DialogService, ReadButton
from rpa_mcp.dialogs.apps import AppConfirmer, ReportedWindow
from rpa_mcp.dialogs.catalog import GENERIC_IDS, parse_dialog_catalog
from rpa_mcp.errors import InternalError
from rpa_mcp.testing import ScriptedOcr

from .test_catalog import entry, raw

EASILY = ReportedWindow("Easily — Dossier patient - Microsoft Edge", "msedge.exe")


def _answered(catalog: DialogCatalog) -> set[str]:
    return {d.id for d in catalog.dialogs if d.policy in ("auto", "skip")}


# --- the loader -------------------------------------------------------------------------------------------
def test_an_auto_entry_without_an_application_is_refused_naming_the_entry_and_the_field() -> None:
    data = raw()
    del entry(data, "easily-document-generated")["app"]
    with pytest.raises(InternalError) as err:
        parse_dialog_catalog(data)
    assert err.value.code == "internal-error"
    assert "dialogs[easily-document-generated].app" in err.value.message


def test_a_skip_entry_with_buttons_is_refused() -> None:
    data = raw()
    entry(data, "easily-toast-saved")["buttons"] = [{"key": "ok", "en": "OK", "fr": "OK"}]
    with pytest.raises(InternalError) as err:
        parse_dialog_catalog(data)
    assert "dialogs[easily-toast-saved].buttons" in err.value.message


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: entry(d, "easily-save-confirm").update(app="medidossier"), "dialogs[easily-save-confirm].app"),
        (lambda d: entry(d, "app-save-changes").update(app="easily"), "generic kinds"),
        (lambda d: entry(d, "app-error").update(policy="auto", auto_button="ok"), "generic kinds"),
        (lambda d: d["apps"]["easily"].update(window_titles=["("]), "apps.easily.window_titles"),
        (lambda d: d["apps"]["easily"]["signature"].update(region=[0.5, 0, 0.8, 0.2]), "apps.easily.signature"),
    ],
)
def test_a_bad_application_binding_is_refused(change: Any, field: str) -> None:
    data = raw()
    change(data)
    with pytest.raises(InternalError) as err:
        parse_dialog_catalog(data)
    assert field in err.value.message


def test_every_auto_or_skip_entry_belongs_to_a_declared_application(catalog) -> None:
    for dialog_id in _answered(catalog):
        found = catalog.get(dialog_id)
        assert found is not None and found.app in catalog.apps, dialog_id
    for dialog_id in GENERIC_IDS:
        generic = catalog.get(dialog_id)
        assert generic is not None and generic.policy == "pause" and generic.app is None


# --- confirmation -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("window", "confirmed"),
    [
        (EASILY, True),
        (ReportedWindow("Easily — Recherche patient - Chromium", "/usr/lib/chromium/chromium"), True),
        (ReportedWindow("Easily — Dossier patient", "notepad.exe"), False),  # the title, not the process
        (ReportedWindow("Rapport - Microsoft Edge", "msedge.exe"), False),  # the process, not the title
        (ReportedWindow("Easily — Dossier patient", None), False),
        (ReportedWindow(None, "msedge.exe"), False),
    ],
)
def test_an_application_is_confirmed_by_its_process_and_its_title_together(catalog, window, confirmed) -> None:
    check = AppConfirmer(catalog, ScriptedOcr(), None, [window]).check("easily")
    assert check.confirmed is confirmed and check.by == ("window" if confirmed else "none")


def test_a_region_with_buttons_is_never_a_buttonless_entry(catalog) -> None:
    classifier = DialogClassifier(catalog, ScriptedOcr())
    confirm = AppConfirmer(catalog, ScriptedOcr(), None, [EASILY])
    lines = ["Enregistré", "L'observation a été enregistrée."]
    panel = classifier.match((10, 10, 300, 80), [], lines, panel=True, confirm=confirm)
    assert panel.dialog_id == "easily-toast-saved"
    with_buttons = classifier.match(
        (10, 10, 300, 120),
        [ReadButton("Enregistrer", (20, 90, 90, 24)), ReadButton("Ne pas enregistrer", (120, 90, 140, 24))],
        lines,
        confirm=confirm,
    )
    assert with_buttons.dialog_id != "easily-toast-saved" and with_buttons.policy == "pause"


# --- every auto/skip entry against every other frame ---------------------------------------------------------
def _evidence(case: FrameCase) -> list[ReportedWindow]:
    return [ReportedWindow(case.truth.window_title or None, case.truth.process or None)]


@pytest.fixture(scope="module")
def others(corpus: list[FrameCase], catalog: DialogCatalog) -> list[FrameCase]:
    """Frames that show another entry's dialog, another application's generic prompt, or no dialog."""
    answered = _answered(catalog)
    return [c for c in corpus if c.truth.dialog is None or c.truth.dialog.id not in answered]


def test_no_other_frame_is_taken_for_an_auto_or_skip_entry(others, real_service: DialogService, catalog) -> None:
    answered = _answered(catalog)
    taken = []
    for case in others:
        for windows in ([], _evidence(case)):
            decision = real_service.resolve(case.image, previous=case.previous, windows=windows)
            if decision.dialog_id in answered or decision.decision != "pause":
                taken.append((case.name, bool(windows), decision.dialog_id, decision.decision))
    assert taken == []


def test_other_applications_save_prompts_pause_as_the_generic_kind(corpus, real_service: DialogService) -> None:
    prompts = [c for c in corpus if c.name.startswith("d-other-save")]
    assert len(prompts) >= 3
    for case in prompts:
        for windows in ([], _evidence(case)):
            found = real_service.classify(case.image, windows=windows)
            assert found.dialog_id == "app-save-changes" and found.policy == "pause", (case.name, found.notes)


def test_easilys_own_frames_confirm_easily_by_its_signature(corpus, real_service: DialogService) -> None:
    frame = next(c for c in corpus if c.name.startswith("d-easily-save-confirm"))
    found = real_service.classify(frame.image)
    assert found.dialog_id == "easily-save-confirm" and found.app_confirmed_by == "signature"
    blank: np.ndarray = frame.image.copy()
    blank[: frame.image.shape[0] // 4] = 255  # its header hidden: nothing confirms Easily any more
    hidden = real_service.classify(blank)
    assert hidden.dialog_id != "easily-save-confirm" and hidden.policy == "pause"
    assert real_service.classify(blank, windows=[EASILY]).dialog_id == "easily-save-confirm"


@pytest.mark.parametrize(
    ("lines", "labels"),
    [
        (["Patient calme, douleur 2/10.", "Supprimer"], ["Supprimer"]),  # a saved note with its delete button
    ],
)
def test_a_generic_kind_is_not_named_by_a_single_button_word(catalog, lines, labels) -> None:
    classifier = DialogClassifier(catalog, ScriptedOcr())
    buttons = [ReadButton(label, (20 + 120 * i, 90, 100, 24)) for i, label in enumerate(labels)]
    found = classifier.match((10, 10, 400, 120), buttons, lines)
    assert found.dialog_id not in GENERIC_IDS or found.confidence < 0.6, found.notes
