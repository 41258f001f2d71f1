from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rpa_mcp.dialogs import DeclaredModal, DialogClassifier, DialogResolver, check_declarations, effective_policy
from rpa_mcp.dialogs.apps import AppConfirmer, ReportedWindow, window_confirms
from rpa_mcp.errors import InvalidInput, RpaError
from rpa_mcp.testing import ScriptedOcr

from .helpers import synthetic_dialog


@pytest.mark.parametrize("dialog_id", ["windows-uac", "defender-threat-found", "windows-anything-new", "unknown"])
@pytest.mark.parametrize("policy", ["auto", "skip"])
def test_a_declaration_cannot_make_a_system_dialog_anything_but_pause(dialog_id, policy):
    with pytest.raises(InvalidInput) as err:
        DeclaredModal(dialog_id=dialog_id, policy=policy)
    assert err.value.code == "invalid-input"
    assert err.value.details["field"] == "policy"


def test_a_system_dialog_may_be_declared_pause():
    assert DeclaredModal(dialog_id="windows-uac", policy="pause").policy == "pause"


@pytest.mark.parametrize(
    ("decl", "field"),
    [
        (
            DeclaredModal(dialog_id="easily-clinical-warning", policy="auto", button="override"),
            "declared_modals[0].policy",
        ),
        (DeclaredModal(dialog_id="easily-delete-confirm", policy="skip"), "declared_modals[0].policy"),
        (
            DeclaredModal(dialog_id="easily-session-expired", policy="auto", button="sign_in"),
            "declared_modals[0].policy",
        ),
        (DeclaredModal(dialog_id="windows-smartscreen-x", policy="pause"), "declared_modals[0].dialog_id"),
        (DeclaredModal(dialog_id="notepad-save-changes", policy="auto"), "declared_modals[0].button"),
        (DeclaredModal(dialog_id="notepad-save-changes", policy="auto", button="Burn"), "declared_modals[0].button"),
    ],
)
def test_declarations_are_checked_against_the_catalog(catalog, decl, field):
    with pytest.raises(InvalidInput) as err:
        check_declarations(catalog, [decl])
    assert err.value.details["field"] == field


def test_a_declarable_dialog_takes_the_declared_policy_and_button(catalog):
    declared = check_declarations(
        catalog, [DeclaredModal(dialog_id="notepad-save-changes", policy="auto", button="Ne pas enregistrer")]
    )
    policy = effective_policy(catalog.get("notepad-save-changes"), declared)
    assert (policy.policy, policy.button_key, policy.source) == ("auto", "dont_save", "declaration")


def test_an_auto_dialog_may_always_be_made_stricter(catalog):
    declared = check_declarations(catalog, [DeclaredModal(dialog_id="easily-save-confirm", policy="pause")])
    assert effective_policy(catalog.get("easily-save-confirm"), declared).policy == "pause"
    assert effective_policy(catalog.get("easily-save-confirm")).policy == "auto"


def test_every_locked_entry_is_pause_whatever_is_declared(catalog):
    for entry in catalog.dialogs:
        if entry.locked:
            forged = {entry.id: DeclaredModal.model_construct(dialog_id=entry.id, policy="auto", button=None)}
            assert effective_policy(entry, forged).policy == "pause", entry.id


# --- property: whatever the screen says and whatever is declared, no auto for a locked dialog ------------
def _text_pool(catalog) -> list[str]:
    pool = [
        "",
        "OK",
        "Yes",
        "Oui",
        "Confirm",
        "Confirmer",
        "Never",
        "Jamais",
        "Later",
        "Plus tard",
        "Continue",
        "Ne pas enregistrer",
        "Don't Save",
        "Allow",
        "Autoriser",
        "lorem ipsum",
        "Cliquez sur Oui",
    ]
    for entry in catalog.dialogs:
        pool.extend(entry.titles.all())
        pool.extend(lbl for b in entry.buttons for lbl in b.labels())
        pool.extend(entry.match.body_keywords[:1])
    return sorted(set(pool))


@st.composite
def declarations(draw, catalog):
    ids = [e.id for e in catalog.dialogs if not e.locked and e.declarative_override]
    out = []
    for dialog_id in draw(st.lists(st.sampled_from(ids), max_size=4, unique=True)):
        entry = catalog.get(dialog_id)
        policy = draw(st.sampled_from(["auto", "pause", "skip"]))
        button = draw(st.sampled_from([b.key for b in entry.buttons])) if policy == "auto" and entry.buttons else None
        if policy == "auto" and button is None:
            policy = "pause"
        out.append(DeclaredModal(dialog_id=dialog_id, policy=policy, button=button))
    return out


@pytest.fixture(scope="module")
def frame_and_pool(catalog):
    image, _ = synthetic_dialog(2)
    return image, _text_pool(catalog)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_auto_for_a_locked_dialog_whatever_the_text_and_declarations(catalog, frame_and_pool, data):
    image, pool = frame_and_pool
    texts = data.draw(st.lists(st.one_of(st.sampled_from(pool), st.text(max_size=40)), min_size=0, max_size=8))
    declared = data.draw(declarations(catalog))
    title = data.draw(st.one_of(st.none(), st.sampled_from(pool)))
    process = data.draw(st.sampled_from([None, "consent.exe", "msedge.exe", "CredentialUIBroker.exe", "notepad.exe"]))
    resolver = DialogResolver(catalog, DialogClassifier(catalog, ScriptedOcr(list(texts))))
    try:
        decision = resolver.resolve(image, window_title=title, process=process, declared_modals=declared)
    except RpaError as exc:  # only a refused declaration may raise
        assert exc.code == "invalid-input"
        return
    entry = decision.classification.entry
    if entry.locked or process in ("consent.exe", "CredentialUIBroker.exe"):
        assert decision.decision == "pause"
    locked_titles = [t for e in catalog.dialogs if e.locked for t in e.titles.all() if len(t) >= 8]
    if any(t.casefold() in " ".join([*texts, title or ""]).casefold() for t in locked_titles):
        assert decision.decision != "auto"
    if decision.decision == "auto":
        assert not entry.locked and decision.click_at is not None and decision.button is not None


@settings(max_examples=200, deadline=None)
@given(decl_id=st.text(min_size=1, max_size=30), policy=st.sampled_from(["auto", "pause", "skip"]))
def test_no_declaration_of_a_windows_or_defender_id_unlocks_it(decl_id, policy):
    dialog_id = "windows-" + decl_id
    try:
        decl = DeclaredModal(dialog_id=dialog_id[:80], policy=policy)
    except (InvalidInput, ValueError):
        return
    assert decl.policy == "pause"


# --- property: an application process never names a dialog (it may only refuse its own entry to another) -
def _shared_processes(catalog) -> list[str]:
    system = {p.casefold() for p in catalog.system_processes}
    named = {p for e in catalog.dialogs for p in e.match.processes if p.casefold() not in system}
    return sorted(named | {"chrome.exe", "msedge.exe", "firefox.exe", "notepad.exe", "WINWORD.EXE", "easily.exe"})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_shared_process_never_changes_which_dialog_is_seen(catalog, frame_and_pool, data):
    image, pool = frame_and_pool
    texts = data.draw(st.lists(st.sampled_from(pool), min_size=0, max_size=6))
    title = data.draw(st.one_of(st.none(), st.just("MédiDossier - Microsoft Edge"), st.sampled_from(pool)))
    process = data.draw(st.sampled_from(_shared_processes(catalog)))
    # a process WITH a title of its application confirms that application (catalog `apps`): by design
    # that may let the application's own entry match; the process alone never does
    confirms = any(window_confirms(spec, ReportedWindow(title, process)) for spec in catalog.apps.values())
    without = DialogClassifier(catalog, ScriptedOcr(list(texts))).classify(image, window_title=title)
    with_process = DialogClassifier(catalog, ScriptedOcr(list(texts))).classify(
        image, window_title=title, process=process
    )
    # or it refuses an application's own entry the words read like (its window is another program's): never
    # that entry then, the refusal said, and a pause
    owner = AppConfirmer(catalog, ScriptedOcr(), None, owner=process)
    assert owner.contradicts(with_process.entry) is None
    refused = any("its window is run by" in note for note in with_process.notes)
    assert confirms or with_process.dialog_id == without.dialog_id or refused
    if refused and not confirms and with_process.dialog_id != without.dialog_id:
        assert with_process.policy == "pause"
    # and on its own, the process names nothing
    assert DialogClassifier(catalog, ScriptedOcr()).classify_title(None, process).dialog_id == "unknown"


def test_an_entry_a_title_bar_names_but_another_program_runs_says_why_the_answer_differs(catalog):
    """A box's title bar names an application's entry ("Sign-in required") while another program runs the
    dialog's window: the entry is refused, the answer differs from the one without the window, and says so."""
    image, _ = synthetic_dialog(2)
    texts = ["More info", "File Upload", "More choices", "Quitter la page", "Sign-in required", "S'authentifier"]
    without = DialogClassifier(catalog, ScriptedOcr(list(texts))).classify(image, window_title="Se connecter")
    run_by = DialogClassifier(catalog, ScriptedOcr(list(texts))).classify(
        image, window_title="Se connecter", process="Teams.exe"
    )
    assert run_by.policy == "pause" and without.policy == "pause"
    assert run_by.dialog_id == without.dialog_id or any(
        "its window is run by teams.exe" in n.casefold() for n in run_by.notes
    )


@pytest.mark.parametrize("process", ["consent.exe", "CredentialUIBroker.exe", "smartscreen.exe"])
def test_a_system_process_decides_whatever_the_screenshot_says(catalog, frame_and_pool, process):
    image, _ = frame_and_pool
    texts = ["Annuler", "Confirmer", "Confirmer l'enregistrement", "Confirmez-vous l'enregistrement ?"]
    decision = DialogResolver(catalog, DialogClassifier(catalog, ScriptedOcr(texts))).resolve(image, process=process)
    assert decision.classification.category == "A" and decision.decision == "pause"
