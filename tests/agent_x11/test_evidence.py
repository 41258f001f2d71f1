"""A replay says "completed" only on evidence, and chooses a patient's record by who it is: on the real desktop.

Each test changes how the demo application answers (`POST /control`: its own error or its own box for
"Enregistrer", a renamed button, the results in another order, a row too faint to read), replays a small
workflow through `agent-x11`, and counts on the application's own log what it underwent: exactly once, or nothing.
"""

from __future__ import annotations

import signal

import httpx2
import pytest

from rpa_mcp.demo_app import patient_by_id, search_patients
from rpa_mcp.desktop_rig.person import Person
from tests.agent_x11.conftest import AGENT_TOKEN
from tests.agent_x11.replaying import Replays
from tests.agent_x11.workflows import CHROMIUM, ir, seen_step

pytestmark = pytest.mark.desktop
MACHINE = "poste-x11-01"
SAVED = {"kind": "message", "text": "Enregistré"}  # what the demonstration showed after "Enregistrer"


@pytest.fixture
def person(desktop):
    p = Person(desktop.desk)
    yield p
    p.close()


@pytest.fixture
def app(desktop):
    """set(**variation): how the demo application answers for this test; a new day after it."""

    def change(**variation: object) -> None:
        answer = httpx2.post(f"{desktop.app.url}/control", json=variation)
        assert answer.status_code == 200, answer.text

    yield change
    change()


@pytest.fixture
def drive():
    """drive(server, name, steps, **params) -> (Replays, replay_id): saves the workflow and starts its replay."""
    opened: list[Replays] = []

    def start(server, name: str, steps: list[dict], **params: str) -> tuple[Replays, str]:
        server.services.competences.save(name, ir(name, steps), machine_id=MACHINE)
        opened.append(Replays(server))
        return opened[-1], opened[-1].start(name, MACHINE, **params)

    yield start
    for replays in opened:
        replays.close()


def start_agent(desktop, server, tmp_path, *extra: str):
    agent = desktop.agent(
        ["--url", server.url, "--token", AGENT_TOKEN, "--machine-id", MACHINE, "--journal",
         str(tmp_path / "journal.sqlite"), "--wait", "2", *extra],
    )  # fmt: skip
    agent.wait_line("polling for actions")
    return agent


def replay_until_stopped(desktop, server, drive, tmp_path, name: str, steps: list[dict], **run):
    """Start the agent, replay `steps` until the replay stops: its status, and what the application did meanwhile."""
    start_agent(desktop, server, tmp_path)
    mark = desktop.effects.mark
    replays, replay_id = drive(server, name, steps, **run)
    status = replays.wait_stopped(replay_id)
    return status, desktop.effects.since(mark)


def record_title(patient: str, tab: str) -> str:
    return f"Easily — {patient_by_id(patient).name} — {tab}{CHROMIUM}"


def write_and_save(person, title: str, note: str) -> list[dict]:
    """Type a note, then "Enregistrer", whose demonstration showed the toast "Enregistré"."""
    return [
        seen_step(person, 1, "Saisir l'observation", "type_text", "Texte de l'observation", params={"text": note},
                  before=title, after=title),
        seen_step(person, 2, "Cliquer sur 'Enregistrer'", "click_anchor", "Enregistrer", "push button",
                  before=title, after=title, expected_outcome=SAVED),
    ]  # fmt: skip


def kinds(effects, kind: str) -> list:
    return [e for e in effects if e.kind == kind]


def paused_action(status: dict) -> dict:
    action_id = status["pause_detail"]["action_id"]
    return next(a for a in status["actions"] if a["action_id"] == action_id)


def test_a_save_the_application_answers_with_its_error_is_not_completed(
    desktop, rpa_server, person, app, drive, tmp_path
):
    title = record_title("p007", "Observations")
    desktop.browser("/patient/p007/observations", wait_title="Observations")
    steps = write_and_save(person, title, "Pansement refait, plaie propre.")
    app(save="error")
    status, effects = replay_until_stopped(desktop, rpa_server, drive, tmp_path, "Observation refusée", steps)
    assert status["state"] == "paused", (status["state"], status["outcome"], status["actions"])
    assert status["outcome"] == "paused" and status["if_stopped_now"] == "reconciliation_required", status["outcome"]
    save = paused_action(status)
    assert (save["index"], save["failure_category"]) == (2, "UNEXPECTED_OUTCOME"), save
    assert "obligatoire" in str(save["checkers"]).lower(), save["checkers"]  # the application's own words
    assert status["steps_done"] == 1 and status["current_action"]["action_id"] == save["action_id"]
    assert [e["index"] for e in status["irreversible_sent"]] == [2]
    assert len(kinds(effects, "refused")) == 1 and not kinds(effects, "save"), effects


def test_a_save_the_application_answers_with_a_box_the_demonstration_did_not_show_pauses(
    desktop, rpa_server, person, app, drive, tmp_path
):
    title = record_title("p008", "Observations")
    desktop.browser("/patient/p008/observations", wait_title="Observations")
    steps = write_and_save(person, title, "Douleur 3/10, antalgique donné.")
    app(save="confirm")
    status, effects = replay_until_stopped(desktop, rpa_server, drive, tmp_path, "Observation à confirmer", steps)
    assert status["state"] == "paused", (status["state"], status["outcome"], status["actions"])
    save = paused_action(status)
    assert save["index"] == 2, save
    assert status["pause_reason"] == "UNEXPECTED_DIALOG" or save["failure_category"] == "UNEXPECTED_OUTCOME", status
    assert "confirmer" in (str(save["checkers"]) + str(status["pause_detail"])).lower()  # the box's text is shown
    assert not kinds(effects, "save") and not kinds(effects, "dialog"), effects  # nobody answered the box


def later_looks(status: dict) -> list[dict]:
    return [a for a in status["actions"] if a.get("origin") == "later_look"]


def test_a_save_a_slow_server_confirms_seconds_later_is_seen_on_a_later_look_and_done_once(
    desktop, rpa_server, person, app, drive, tmp_path
):
    title = record_title("p011", "Observations")
    desktop.browser("/patient/p011/observations", wait_title="Observations")
    steps = write_and_save(person, title, "Réfection du pansement, plaie propre.")
    app(slow=4)  # the server answers the save 4 s later: "Enregistré" comes long after the screen was still
    status, effects = replay_until_stopped(desktop, rpa_server, drive, tmp_path, "Observation lente", steps)
    assert status["state"] == "completed" and status["outcome"] == "completed", (status["outcome"], status["actions"])
    [look] = later_looks(status)
    assert look["index"] == 2 and "what it shows once done" in look["intent"], look
    assert len(kinds(effects, "save")) == 1, effects


def test_a_record_a_slow_server_opens_seconds_later_is_waited_for_by_its_title(
    desktop, rpa_server, person, app, drive, tmp_path
):
    named = search_patients("DURAND")[0]
    desktop.browser("/search?q=DURAND", wait_title="Recherche patient")
    step = open_record_step(person)
    app(slow=4)  # the browser keeps the results page (and its title) until the record's page comes
    status, effects = replay_until_stopped(
        desktop, rpa_server, drive, tmp_path, "Ouvrir un dossier lent", [step], patient=named.name
    )
    assert status["state"] == "completed" and status["outcome"] == "completed", (status["outcome"], status["actions"])
    [look] = later_looks(status)
    assert look["index"] == 1 and "the window it opens" in look["intent"], look
    assert [e.detail["patient"] for e in kinds(effects, "open_record")] == [named.id]


def test_a_renamed_button_pauses_before_any_click_and_steps_done_counts_the_typing_only(
    desktop, rpa_server, person, app, drive, tmp_path
):
    title = record_title("p009", "Observations")
    learned = desktop.browser("/patient/p009/observations", wait_title="Observations")
    steps = write_and_save(person, title, "Patient levé au fauteuil.")
    learned.process.terminate()
    app(renamed={"save": "Sauvegarder"})
    desktop.browser("/patient/p009/observations", wait_title="Observations")
    person.find("Sauvegarder", "push button")
    status, effects = replay_until_stopped(desktop, rpa_server, drive, tmp_path, "Observation bouton renommé", steps)
    assert status["state"] == "paused", (status["state"], status["outcome"], status["actions"])
    save = paused_action(status)
    assert save["index"] == 2 and "target_not_resolved" in str(save["error"]), save
    assert (status["steps_done"], status["current_action"]["index"]) == (1, 2)
    assert status["if_stopped_now"] == "halted_before_effect" and status["irreversible_sent"] == [], status
    assert not kinds(effects, "save") and not kinds(effects, "refused"), effects
    assert [e.detail["label"] for e in kinds(effects, "click")] == ["Texte de l'observation"]  # the typing's only


def open_record_step(person) -> dict:
    """ "Ouvrir le dossier" on the first row of the results, for the patient the run names."""
    return seen_step(person, 1, "Ouvrir le dossier du patient", "click_anchor", "Ouvrir le dossier", "link",
                     before="Easily — Recherche patient" + CHROMIUM, identity="{{patient}}",
                     expected_outcome={"kind": "window_title", "text": "{{patient}}"})  # fmt: skip


def test_a_reordered_result_list_opens_the_record_of_the_patient_named(
    desktop, rpa_server, person, app, drive, tmp_path
):
    durand = search_patients("DURAND")
    assert len(durand) >= 3
    learned = desktop.browser("/search?q=DURAND", wait_title="Recherche patient")
    step = open_record_step(person)  # learned on the first row: durand[0]
    learned.process.terminate()
    app(results="reversed")
    desktop.browser("/search?q=DURAND", wait_title="Recherche patient")
    status, effects = replay_until_stopped(
        desktop, rpa_server, drive, tmp_path, "Ouvrir un dossier", [step], patient=durand[0].name
    )
    assert status["state"] == "completed", (status["pause_reason"], status["pause_detail"], status["actions"])
    opened = kinds(effects, "open_record")
    assert [e.detail["patient"] for e in opened] == [durand[0].id]  # the patient named, now on the last row


def test_another_patient_at_the_recorded_position_is_never_clicked(desktop, rpa_server, person, app, drive, tmp_path):
    desktop.browser("/search?q=DURAND", wait_title="Recherche patient")
    step = open_record_step(person)
    absent = "DURAND Hugo"  # the intended patient is not in the list; DURAND Alice is where the demonstration clicked
    assert absent not in [p.name for p in search_patients("DURAND")]
    status, effects = replay_until_stopped(
        desktop, rpa_server, drive, tmp_path, "Ouvrir un dossier absent", [step], patient=absent
    )
    assert status["state"] == "paused", (status["state"], status["actions"])
    assert "IDENTITY_MISMATCH" in str(status["pause_detail"]) + str(paused_action(status)["error"]), status
    assert status["if_stopped_now"] == "halted_before_effect"
    assert not kinds(effects, "click") and not kinds(effects, "open_record"), effects  # nothing clicked


def test_a_row_ocr_cannot_read_never_opens_the_record_of_the_patient_at_the_recorded_position(
    desktop, rpa_server, person, app, drive, tmp_path
):
    first, named = search_patients("DURAND")[:2]
    learned = desktop.browser("/search?q=DURAND", wait_title="Recherche patient")
    step = open_record_step(person)  # learned on the first row: `first`
    learned.process.terminate()
    app(unreadable=[named.id])  # the patient named is listed, on a row no OCR reads; `first` is where it was
    desktop.browser("/search?q=DURAND", wait_title="Recherche patient")
    status, effects = replay_until_stopped(
        desktop, rpa_server, drive, tmp_path, "Ouvrir un dossier illisible", [step], patient=named.name
    )
    assert status["state"] == "paused", (status["state"], status["actions"])
    assert "IDENTITY_MISMATCH" in str(status["pause_detail"]) + str(paused_action(status)["error"]), status
    assert status["if_stopped_now"] == "halted_before_effect" and status["irreversible_sent"] == [], status
    assert not kinds(effects, "click") and not kinds(effects, "open_record"), effects  # no record opened, no click
    assert first.id not in [e.detail.get("patient") for e in effects]


def test_an_agent_killed_after_a_save_started_ends_reconciliation_required_and_is_never_sent_again(
    desktop, make_rpa_server, person, drive, tmp_path
):
    server = make_rpa_server(watchdog_orphan_timeout_s=4.0)
    title = record_title("p010", "Observations")
    desktop.browser("/patient/p010/observations", wait_title="Observations")
    steps = write_and_save(person, title, "Tension 12/8, pouls 72.")
    agent = start_agent(desktop, server, tmp_path, "--heartbeat-interval", "1")
    mark = desktop.effects.mark
    replays, replay_id = drive(server, "Observation interrompue", steps)
    # the save reached the application; the agent is still waiting for the screen to settle: killed there
    desktop.effects.wait_for(lambda es: any(e.kind == "save" for e in es), since=mark, timeout=180)
    agent.stop(signal.SIGKILL)
    status = replays.wait(replay_id, lambda s: s.get("pause_reason") == "OUTCOME_UNKNOWN", timeout=120)
    save = paused_action(status)
    assert save["index"] == 2 and status["if_stopped_now"] == "reconciliation_required", status
    assert [e["index"] for e in status["irreversible_sent"]] == [2]

    restarted = start_agent(desktop, server, tmp_path, "--heartbeat-interval", "1")
    assert restarted.lines
    replays.answer(replay_id, "abort")
    final = replays.status(replay_id)
    assert final["outcome"] == "reconciliation_required", final["outcome"]
    assert [(e["index"], e["outcome_seen"]) for e in final["irreversible_sent"]] == [(2, False)]
    sent = next(a for a in final["actions"] if a["action_id"] == save["action_id"])
    assert (sent["dispatches"], sent["resends"]) == (1, 0), sent  # never sent again
    assert len(kinds(desktop.effects.since(mark), "save")) == 1
