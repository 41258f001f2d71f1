"""Real faults on the real desktop: what a replay meets that its workflow did not say, and how it stops.

Each test opens the demo application in Chromium, replays a small workflow through the X11 agent, and
checks the server's verdict, the pause and, on the application's own log, that nothing was answered
or done twice.
"""

from __future__ import annotations

import base64
import signal
import threading

import httpx2
import pytest
from rpa_agent.core.agent import Agent
from rpa_agent.core.http import Http
from rpa_agent.core.journal import Journal
from rpa_agent.core.locate import Located
from rpa_agent.x11.desktop import X11Desktop

from rpa_mcp.demo_app import patient_by_id
from rpa_mcp.desktop_rig.harness import wait_until
from rpa_mcp.desktop_rig.person import Person
from rpa_mcp.desktop_rig.rig import RunningAgent
from tests.agent_x11.conftest import AGENT_TOKEN
from tests.agent_x11.replaying import STOPPED, Replays
from tests.agent_x11.workflows import CHROMIUM, ir, seen_step, step

pytestmark = pytest.mark.desktop
MACHINE = "poste-x11-01"


@pytest.fixture
def person(desktop):
    p = Person(desktop.desk)
    yield p
    p.close()


def agent_args(server, journal, *extra: str) -> list[str]:
    return ["--url", server.url, "--token", AGENT_TOKEN, "--machine-id", MACHINE, "--journal", str(journal),
            "--wait", "2", *extra]  # fmt: skip


def start_agent(desktop, server, tmp_path, *extra: str):
    agent = desktop.agent(agent_args(server, tmp_path / "journal.sqlite", *extra))
    agent.wait_line("polling for actions")
    return agent


@pytest.fixture
def agent_in_thread(desktop, tmp_path):
    """agent_in_thread(server) -> (agent, start): the X11 agent in a thread of the test, started by `start()`.

    In process, a step of the agent can be wrapped so that a person's input arrives exactly inside it."""
    running: list[RunningAgent] = []

    def make(server):
        lines: list[str] = []
        x11 = X11Desktop.open(desktop.display)
        x11.watch.start()
        http = Http(server.url, headers={"Authorization": f"Bearer {AGENT_TOKEN}"})
        agent = Agent(desktop=x11, http=http, machine_id=MACHINE, journal=Journal(tmp_path / "journal.sqlite"),
                      say=lines.append, poll_wait_s=2.0)  # fmt: skip
        stop = threading.Event()
        thread = threading.Thread(target=agent.run, args=(stop,), name="rpa-agent", daemon=True)
        running.append(RunningAgent(agent, thread, stop, lines))

        def start() -> None:
            thread.start()
            wait_until(lambda: any("polling for actions" in line for line in lines), timeout=60, what="the agent")

        return agent, start

    yield make
    for agent in running:
        agent.stop()


def steps_of(status: dict) -> list[dict]:
    """The workflow's actions (not the observation a replay begins with when the last screen is old)."""
    return [a for a in status["actions"] if a["origin"] != "preflight"]


def take_the_mouse(person: Person) -> None:
    """The person moves the mouse: a move to where the pointer already is makes no event, one of these two moves it."""
    person.hands.move(900, 600)
    person.hands.move(903, 604)


def person_input_seen(agent: Agent, person: Person) -> None:
    """The person moves the mouse; returns once the agent's watch has counted it (no sleep)."""
    seen = agent.watch_count
    take_the_mouse(person)
    wait_until(lambda: agent.watch_count > seen, timeout=30, what="the agent to see the person's input")


@pytest.fixture
def drive():
    """drive(server, name, steps) -> (Replays, replay_id): saves the workflow and starts its replay."""
    opened: list[Replays] = []

    def start(server, name: str, steps: list[dict]) -> tuple[Replays, str]:
        server.services.competences.save(name, ir(name, steps), machine_id=MACHINE)
        opened.append(Replays(server))
        return opened[-1], opened[-1].start(name, MACHINE)

    yield start
    for replays in opened:
        replays.close()


def add_note(desktop, patient: str, text: str) -> None:
    assert httpx2.post(f"{desktop.app.url}/api/notes", json={"patient": patient, "text": text}).status_code == 200


def near(bbox, point: tuple[int, int], within: int = 150) -> bool:
    return abs(bbox[0] - point[0]) <= within and abs(bbox[1] - point[1]) <= within


def record_title(patient: str, tab: str) -> str:
    return f"Easily — {patient_by_id(patient).name} — {tab}{CHROMIUM}"


def test_an_undeclared_confirm_pauses_unexpected_dialog_and_nothing_answers_it(
    desktop, rpa_server, person, drive, tmp_path
):
    add_note(desktop, "p002", "Note à garder")
    title = record_title("p002", "Observations")
    desktop.browser("/patient/p002/observations", wait_title="Observations")
    delete = seen_step(person, 1, "Cliquer sur 'Supprimer'", "click_anchor", "Supprimer", "push button",
                       before=title, after=title)  # fmt: skip
    agent = start_agent(desktop, rpa_server, tmp_path)
    mark = desktop.effects.mark
    replays, replay_id = drive(rpa_server, "Supprimer une note", [delete])
    status = replays.wait_stopped(replay_id)
    assert status["state"] == "paused" and status["pause_reason"] == "UNEXPECTED_DIALOG", status
    detail = status["pause_detail"]
    assert detail.get("dialog_id") or detail.get("dialog"), detail
    effects = desktop.effects.since(mark)
    assert not [e for e in effects if e.kind in ("dialog", "delete")], effects  # nobody answered the confirm
    # the agent tells the person on its next poll (it may not have polled since the server paused)
    wait_until(lambda: any("paused" in line for line in agent.lines), timeout=30, what="the agent saying it paused")


def test_the_leave_page_prompt_pauses_as_browser_leave_site(desktop, rpa_server, person, drive, tmp_path):
    title = record_title("p003", "Observations")
    desktop.browser("/patient/p003/observations", wait_title="Observations")
    steps = [
        seen_step(person, 1, "Saisir l'observation", "type_text", "Texte de l'observation",
                  params={"text": "Brouillon non enregistré"}, before=title, after=title),
        seen_step(person, 2, "Cliquer sur 'Retour à la recherche'", "click_anchor", "Retour à la recherche", "link",
                  before=title, after="Easily — Recherche patient" + CHROMIUM),
    ]  # fmt: skip
    start_agent(desktop, rpa_server, tmp_path)
    mark = desktop.effects.mark
    replays, replay_id = drive(rpa_server, "Quitter le dossier", steps)
    status = replays.wait_stopped(replay_id)
    assert status["state"] == "paused" and status["pause_reason"] == "UNEXPECTED_DIALOG", status
    assert "browser-leave-site" in str(status["pause_detail"]), status["pause_detail"]
    effects = desktop.effects.since(mark)
    assert [e.detail.get("answer") for e in effects if e.kind == "dialog"] == ["asked"]
    assert not [e for e in effects if e.kind == "leave"], effects  # the page was not left


def test_the_camera_prompt_pauses_and_is_not_answered(desktop, rpa_server, person, drive, tmp_path):
    title = record_title("p004", "Synthèse")
    desktop.browser("/patient/p004/synthese", wait_title="Synthèse")
    tele = seen_step(person, 1, "Cliquer sur 'Téléconsultation'", "click_anchor", "Téléconsultation", "push button",
                     before=title, after=title)  # fmt: skip
    start_agent(desktop, rpa_server, tmp_path)
    mark = desktop.effects.mark
    replays, replay_id = drive(rpa_server, "Téléconsultation", [tele])
    status = replays.wait_stopped(replay_id)
    assert status["state"] == "paused" and status["pause_reason"] == "UNEXPECTED_DIALOG", status
    assert "camera" in str(status["pause_detail"]), status["pause_detail"]
    results = [e.detail.get("result") for e in desktop.effects.since(mark) if e.kind == "camera"]
    assert results == ["asked"]  # neither granted nor refused: nobody answered the prompt


def test_a_click_that_lands_in_another_window_is_wrong_application(desktop, rpa_server, person, drive, tmp_path):
    title = record_title("p005", "Synthèse")
    desktop.browser("/patient/p005/synthese", wait_title="Synthèse")
    tab = seen_step(person, 1, "Aller sur l'onglet 'Imagerie'", "switch_tab", "Imagerie", "page tab",
                    before=title, after=record_title("p005", "Imagerie"), strict=True)  # fmt: skip
    # Another application comes in front, where its own "Imagerie" button sits close to the record's tab.
    pacs = desktop.browser("/pacs", wait_title="PACS")
    x, y, _, _ = tab["target"]["bbox"]
    desktop.desk.windows().move_resize(pacs.wid, x - 60, y - 150, 1200, 700)
    wait_until(lambda: near(person.find("Imagerie", "push button").bbox, (x, y)), timeout=30, what="the PACS moved")
    desktop.desk.wait_foreground(lambda w: w.wid == pacs.wid)
    start_agent(desktop, rpa_server, tmp_path)
    mark = desktop.effects.mark
    replays, replay_id = drive(rpa_server, "Imagerie", [tab])
    status = replays.wait_stopped(replay_id)
    assert status["state"] == "paused", status
    assert status["pause_detail"].get("failure_category") == "WRONG_APPLICATION", status["pause_detail"]
    effects = desktop.effects.since(mark)
    assert not [e for e in effects if e.kind == "tab"]  # the record never changed tab
    assert [e.detail["view"] for e in effects if e.kind == "click"] == ["pacs"]  # the click went to the PACS, once


def test_an_agent_killed_after_start_is_outcome_unknown_and_only_a_persons_retry_runs_it_again(
    desktop, make_rpa_server, person, drive, tmp_path
):
    server = make_rpa_server(watchdog_orphan_timeout_s=4.0)
    title = record_title("p006", "Observations")
    desktop.browser("/patient/p006/observations", wait_title="Observations")
    note = "Surveillance: " + "tension stable, patient calme. " * 80
    steps = [
        seen_step(person, 1, "Saisir l'observation", "type_text", "Texte de l'observation", params={"text": note},
                  before=title, after=title),
        seen_step(person, 2, "Cliquer sur 'Enregistrer'", "click_anchor", "Enregistrer", "push button",
                  before=title, after=title),
    ]  # fmt: skip
    journal = tmp_path / "journal.sqlite"
    agent = desktop.agent(agent_args(server, journal, "--heartbeat-interval", "1"))
    agent.wait_line("polling for actions")
    mark = desktop.effects.mark
    replays, replay_id = drive(server, "Observation longue", steps)
    agent.wait_line("executing step 1/2 type_text")  # journaled STARTED, the start acknowledged: input is under way
    agent.stop(signal.SIGKILL)
    status = replays.wait_stopped(replay_id, timeout=120)
    assert status["state"] == "paused" and status["pause_reason"] == "OUTCOME_UNKNOWN", status
    first = steps_of(status)[0]

    restarted = desktop.agent(agent_args(server, journal, "--heartbeat-interval", "1"))
    restarted.wait_line("polling for actions")
    book = Journal(journal)
    try:
        started = [e for e in book.attempts_of(status["pause_detail"]["action_id"]) if e.state == "STARTED"]
    finally:
        book.close()
    assert len(started) == 1  # the journal remembers the attempt that was under way
    # Nothing ran again on its own: the restarted agent waits for the person. A person asks for a
    # retry: the new attempt carries their consent (retry_of), and typing replaces what the field
    # held, so what reached the field is the note once, never the note after a part of it.
    assert not [e for e in desktop.effects.since(mark) if e.kind == "save"]
    replays.answer(replay_id, "retry")
    restarted.wait_line("a person asked to retry it")
    # On a loaded machine the retried attempt's heartbeats can come later than this server's short
    # lease: the watchdog pauses it as outcome unknown, and its report, still to come, replaces that
    # pause (an answer approved for the first one is then refused: what it was bound to changed).
    # The pause answered is the one the attempt's report leaves.
    final = replays.wait(
        replay_id,
        lambda s: s.get("state") in STOPPED and s.get("pause_reason") != "OUTCOME_UNKNOWN",
        timeout=180,
        what="a stop after the retried attempt's report",
    )
    if final["state"] == "paused":
        replays.answer(replay_id, "abort")
    if not [e for e in desktop.effects.since(mark) if e.kind == "save"]:
        person.click("Enregistrer", "push button")
    saved = desktop.effects.wait_for(lambda es: any(e.kind == "save" for e in es), since=mark)
    saves = [e for e in saved if e.kind == "save"]
    assert len(saves) == 1, saves
    text = saves[0].detail["text"]
    assert note.startswith(text), (len(text), text[:80])
    assert first["action_type"] == "type_text"


def test_a_person_moving_the_mouse_takes_over_and_resume_revalidates_the_screen(
    desktop, rpa_server, person, drive, tmp_path
):
    search = "Easily — Recherche patient" + CHROMIUM
    browser = desktop.browser("/", wait_title="Recherche patient")
    steps = [
        # long enough for the person to take over during it, however loaded the machine: the agent ends
        # the wait as soon as a person's input arrives, and waits it again once resumed
        step(1, "Attendre l'affichage", "wait", None, None, params={"duration_s": 20}, before=search, after=search),
        seen_step(person, 2, "Saisir 'Rechercher un patient'", "type_text", "Rechercher un patient", "entry",
                  params={"text": "SIMON Louis", "submit_key": "enter"}, before=search, after=search),
    ]  # fmt: skip
    pacs = desktop.browser("/pacs", wait_title="PACS")
    desktop.desk.windows().activate(browser.wid)
    desktop.desk.wait_foreground(lambda w: w.wid == browser.wid)
    agent = start_agent(desktop, rpa_server, tmp_path)
    mark = desktop.effects.mark
    replays, replay_id = drive(rpa_server, "Recherche", steps)
    agent.wait_line("executing step 1/2 wait")
    desktop.desk.windows().activate(pacs.wid)  # the person looks at the PACS ...
    desktop.desk.wait_foreground(lambda w: w.wid == pacs.wid)
    take_the_mouse(person)  # ... and takes the mouse
    status = replays.wait_stopped(replay_id)
    assert status["state"] == "paused" and status["pause_reason"] == "HUMAN_TAKEOVER", status
    assert status["done"] == 0, status["actions"]  # the wait the person cut short is not taken as carried out

    proposal = replays.tool("propose_resume_replay", replay_id=replay_id)
    replays.approve(proposal)
    refused = replays.refusal("apply_resume_replay", token=proposal["token"])
    assert refused["code"] == "precondition-failed" and "Recherche patient" in refused["detail"], refused
    assert replays.status(replay_id)["state"] == "paused"

    desktop.desk.windows().activate(browser.wid)  # the person brings the record back, then resumes
    front = desktop.desk.wait_foreground(lambda w: w.wid == browser.wid)
    wait_until(lambda: person.find("Rechercher un patient", "entry"), timeout=30, what="the search page")
    shot = base64.b64encode(desktop.desk.screenshot(tmp_path / "now.png").read_bytes()).decode()
    replays.resume(replay_id, screenshot={"png_base64": shot}, window_title=front.title)
    status = replays.wait_stopped(replay_id)
    assert status["state"] == "completed", (status["pause_reason"], status["pause_detail"], status["actions"])
    searches = [e.detail["q"] for e in desktop.effects.since(mark) if e.kind == "search"]
    assert searches == ["SIMON Louis"]


def test_a_person_taking_over_as_the_wait_begins_is_a_takeover_not_a_dialog(
    desktop, rpa_server, person, drive, agent_in_thread
):
    """The person brings the PACS forward and takes the mouse after the agent's check before input, as it says
    it executes the wait (a loaded machine's timing, made exact): the takeover is seen, the wait is not carried
    out. (It was missed: the wait ran to its end with the PACS in front and the screen was judged as the step's.)"""
    search = "Easily — Recherche patient" + CHROMIUM
    browser = desktop.browser("/", wait_title="Recherche patient")
    steps = [
        step(1, "Attendre l'affichage", "wait", None, None, params={"duration_s": 20}, before=search, after=search),
        seen_step(person, 2, "Saisir 'Rechercher un patient'", "type_text", "Rechercher un patient", "entry",
                  params={"text": "SIMON Louis", "submit_key": "enter"}, before=search, after=search),
    ]  # fmt: skip
    pacs = desktop.browser("/pacs", wait_title="PACS")
    desktop.desk.windows().activate(browser.wid)
    desktop.desk.wait_foreground(lambda w: w.wid == browser.wid)
    agent, start = agent_in_thread(rpa_server)
    say_for_real = agent.say
    taken: list[bool] = []

    def says_then_the_person_takes_over(line: str) -> None:
        say_for_real(line)
        if line.startswith("executing step 1/2 wait") and not taken:
            taken.append(True)
            desktop.desk.windows().activate(pacs.wid)
            desktop.desk.wait_foreground(lambda w: w.wid == pacs.wid)
            person_input_seen(agent, person)

    agent.say = says_then_the_person_takes_over
    start()
    mark = desktop.effects.mark
    replays, replay_id = drive(rpa_server, "Recherche", steps)
    status = replays.wait_stopped(replay_id)
    assert taken
    assert status["state"] == "paused" and status["pause_reason"] == "HUMAN_TAKEOVER", status
    assert status["done"] == 0, status["actions"]  # the wait the person cut short is not taken as carried out
    assert not [e for e in desktop.effects.since(mark) if e.kind == "search"]


def test_a_person_taking_the_mouse_while_the_target_is_searched_is_a_takeover_and_the_step_is_sent_again(
    desktop, rpa_server, person, drive, agent_in_thread, tmp_path
):
    search = "Easily — Recherche patient" + CHROMIUM
    browser = desktop.browser("/", wait_title="Recherche patient")
    steps = [
        seen_step(person, 1, "Saisir 'Rechercher un patient'", "type_text", "Rechercher un patient", "entry",
                  params={"text": "SIMON Louis", "submit_key": "enter"}, before=search, after=search),
    ]  # fmt: skip
    agent, start = agent_in_thread(rpa_server)
    locate_for_real = agent.hands.locate

    def searched_while_the_person_takes_the_mouse(*args):
        agent.hands.locate = locate_for_real  # once: the step sent again after resume is located for real
        person_input_seen(agent, person)
        return Located(None, None, "ocr", "not found while the person moved the mouse")

    agent.hands.locate = searched_while_the_person_takes_the_mouse
    start()
    mark = desktop.effects.mark
    replays, replay_id = drive(rpa_server, "Recherche", steps)
    status = replays.wait_stopped(replay_id)
    # not "needs help" with the action given up: the person took over, the step waits for the resume
    assert status["state"] == "paused" and status["pause_reason"] == "HUMAN_TAKEOVER", status
    assert steps_of(status)[0]["state"] == "PENDING", status["actions"]

    front = desktop.desk.wait_foreground(lambda w: w.wid == browser.wid)
    shot = base64.b64encode(desktop.desk.screenshot(tmp_path / "now.png").read_bytes()).decode()
    replays.resume(replay_id, screenshot={"png_base64": shot}, window_title=front.title)
    status = replays.wait_stopped(replay_id)
    assert status["state"] == "completed", (status["pause_reason"], status["pause_detail"], status["actions"])
    assert [e.detail["q"] for e in desktop.effects.since(mark) if e.kind == "search"] == ["SIMON Louis"]


def test_a_person_s_input_before_the_server_answers_a_result_stops_the_next_action(
    desktop, rpa_server, person, drive, agent_in_thread
):
    search = "Easily — Recherche patient" + CHROMIUM
    desktop.browser("/", wait_title="Recherche patient")
    steps = [
        step(1, "Attendre l'affichage", "wait", None, None, params={"duration_s": 0.5}, before=search, after=search),
        seen_step(person, 2, "Saisir 'Rechercher un patient'", "type_text", "Rechercher un patient", "entry",
                  params={"text": "SIMON Louis", "submit_key": "enter"}, before=search, after=search),
    ]  # fmt: skip
    agent, start = agent_in_thread(rpa_server)
    post_for_real = agent._post
    touched: list[bool] = []

    def answered_then_touched(kind, body):
        ack = post_for_real(kind, body)
        observation = str(body.get("action_id", "")).endswith("-obs")  # the screen observed before the wait
        if kind == "result" and ack is not None and not touched and not observation:
            touched.append(True)  # the wait's result is judged and answered; the person moves before it is read
            person_input_seen(agent, person)
        return ack

    agent._post = answered_then_touched
    start()
    mark = desktop.effects.mark
    replays, replay_id = drive(rpa_server, "Recherche", steps)
    status = replays.wait_stopped(replay_id)
    assert touched
    assert status["state"] == "paused" and status["pause_reason"] == "HUMAN_TAKEOVER", status
    assert status["done"] == 1, status["actions"]  # the wait was carried out; the typing never began
    assert not [e for e in desktop.effects.since(mark) if e.kind == "search"]
