"""End to end over real HTTP: an LLM client starts a supervised replay, a person approves it, the
reference agent long-polls the same server and acts on the incident desktop; the replay tells its story.

Every workflow here targets the incident desktop (rpa_mcp/agent_sim/desktops/incident.yaml) with the
bounding boxes and labels of its frames' ground truth (rpa_mcp/agent_sim/assets/*.json: tabs, hotspots).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from rpa_mcp.agent_sim import Journal, ReferenceAgent, VirtualDesktop
from rpa_mcp.ops.registry import Caller
from rpa_mcp.replay import model as m
from tests.subscriptions import updates_until

pytestmark = pytest.mark.anyio

MACHINE = "pc-urgences-12"
APPROVER = Caller("carol", frozenset({"approver"}), via="web")  # a person, in the console
SAVE_CONFIRM = {"dialog_id": "easily-save-confirm", "policy": "auto", "button": "confirm"}


def edge(page: str) -> str:
    return f"Easily — {page} - Microsoft Edge"


def tab(index: int, label: str, bbox: list[int], *, before: str, after: str, **target: Any) -> dict[str, Any]:
    """A browser-tab switch as recorded (bbox = the frame truth's tabs[label].bbox)."""
    return {
        "index": index,
        "intent": f"Open the '{label}' tab",
        "action_type": "switch_tab",
        "target": {"label": label, "bbox": bbox, "window_title": edge(before), **target},
        "expected_window_before": edge(before),
        "expected_window_after": edge(after),
    }


def click(index: int, label: str, bbox: list[int], *, after: str, **extra: Any) -> dict[str, Any]:
    return {
        "index": index,
        "intent": f"Click '{label}'",
        "action_type": "click_anchor",
        "target": {"label": label, "bbox": bbox},
        "expected_window_after": edge(after),
        **extra,
    }


IMAGERIE = tab(0, "Imagerie", [318, 8, 236, 32], before="Dossier patient", after="Imagerie")
BACK_TO_DOSSIER = tab(1, "Dossier patient", [82, 8, 236, 32], before="Imagerie", after="Dossier patient")
OBSERVATIONS = click(2, "Observations", [0, 256, 199, 36], after="Observation")
# Edge restored behind the PACS viewer; the recorded "Imagerie" tab sits at [359, 129, 236, 32],
# centre (477, 145), which is where the PACS window's first series is.
IMAGERIE_BEHIND_PACS = tab(
    0, "Imagerie", [359, 129, 236, 32], before="Dossier patient", after="Imagerie",
    rel_x=477 / 1919, rel_y=145 / 1079,
)  # fmt: skip
WRITE_NOTE = {
    "index": 1,
    "intent": "Write the note",
    "action_type": "type_text",
    # The line the text goes on, not the whole field [236, 600, 1330, 90]: the validator's OcrRoiChecker
    # (signal `typed`) reads the target box with recognition-only OCR, which on a 1336x96 box reads
    # 'Patete e pu.' (TEXT_MISMATCH) where a line-tight box reads 'Patiente vue ce jour.'.
    "target": {"label": "Texte de l'observation", "bbox": [236, 600, 420, 32]},
    "params": {"text": "Patiente vue ce jour."},
    "expected_window_after": edge("Observation"),
}
SAVE = click(2, "Enregistrer", [224, 715, 108, 34], after="Observation", expected_modals=[SAVE_CONFIRM])
DOSSIER_FROM_OBSERVATION = tab(3, "Dossier patient", [82, 8, 236, 32], before="Observation", after="Dossier patient")


def workflow(name: str, *steps: dict[str, Any]) -> dict[str, Any]:
    numbered = [{**s, "index": i} for i, s in enumerate(steps)]
    return {"name": name, "domain": "hospital", "version": 1, "source": {"machine_id": MACHINE}, "steps": numbered}


def promote(stack: Any, ir: dict[str, Any]) -> str:
    stack.services.competences.save(ir["name"], ir, machine_id=MACHINE)
    stack.services.competences.promote(ir["name"])
    return str(ir["name"])


async def call(client: Any, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await client.call_tool(name, args or {})
    assert not result.is_error, result.content[0].text
    return dict(result.structured_content)


async def start_replay(stack: Any, llm: Any, competence: str) -> str:
    """propose_start_replay -> a person approves (not the LLM's identity) -> apply_start_replay."""
    proposal = await call(llm, "propose_start_replay", {"competence": competence, "machine_id": MACHINE})
    assert proposal["approval_mode"] == "human" and MACHINE in proposal["summary"]
    stack.services.confirmations.decide(proposal["approval_url"].rsplit("/", 1)[1], APPROVER, True)
    started = await call(llm, "apply_start_replay", {"token": proposal["token"]})
    assert started["status"] == m.RUNNING and started["machine_id"] == MACHINE
    return str(started["replay_id"])


def reference_agent(http: Any, start: str | None = None) -> ReferenceAgent:
    desktop = VirtualDesktop.load("incident", start=start)
    return ReferenceAgent(http, desktop, machine_id=MACHINE, journal=Journal(":memory:"), poll_wait_s=0)


async def drive(stack: Any, agent: ReferenceAgent, replay_id: str, llm: Any = None) -> list[dict[str, Any]]:
    """The agent polls (wait=0) while the replay runs: every poll of a running replay gets an action,
    because the next action is ready as soon as the previous report is committed. Returns the status
    read through MCP after each action when `llm` is given."""
    story = []
    for _ in range(12):
        if stack.services.replay.store.get_replay(replay_id)["state"] != m.RUNNING:
            break
        assert await agent.poll_once() is not None
        if llm is not None:
            story.append(await call(llm, "get_replay_status", {"replay_id": replay_id}))
    return story


async def test_a_competence_replays_to_completion_and_the_status_tells_the_story(stack):
    name = promote(stack, workflow("Imagerie puis observations", IMAGERIE, BACK_TO_DOSSIER, OBSERVATIONS))
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        first = await call(llm, "get_replay_status", {"replay_id": replay_id})
        agent = reference_agent(http)
        story = await drive(stack, agent, replay_id, llm)

    assert first["state"] == m.RUNNING and first["done"] == 0 and first["current_action"]["state"] == m.PENDING
    # three steps, then one more look at the screen before the replay says completed
    assert [s["done"] for s in story] == [1, 2, 3, 3]
    assert [s["state"] for s in story] == [m.RUNNING, m.RUNNING, m.RUNNING, m.COMPLETED]
    assert [s["current_action"]["index"] for s in story[:2]] == [1, 2]  # the next step, waiting for the agent
    final = story[-1]
    assert final["pause_reason"] is None and final["finished_at"] is not None
    steps = [a for a in final["actions"] if a["origin"] != "closing"]
    assert [(a["intent"], a["state"], a["outcome"], a["verdict"]) for a in steps] == [
        ("Open the 'Imagerie' tab", m.ACKED, "success", "SUCCESS"),
        ("Open the 'Dossier patient' tab", m.ACKED, "success", "SUCCESS"),
        ("Click 'Observations'", m.ACKED, "success", "SUCCESS"),
    ]
    assert all(a["dispatches"] == 1 and a["checkers"] for a in steps)
    [look] = [a for a in final["actions"] if a["origin"] == "closing"]
    assert look["action_type"] == "screenshot_evidence" and look["state"] == m.ACKED and look["dispatches"] == 1
    assert [e.label for e in agent.desktop.agent_inputs()] == ["Imagerie", "Dossier patient", "Observations"]
    assert agent.desktop.screen.id == "observation"


async def test_the_incident_click_that_lands_in_the_pacs_viewer_pauses_with_wrong_application(stack):
    name = promote(stack, workflow("Imagerie (incident)", IMAGERIE_BEHIND_PACS, BACK_TO_DOSSIER))
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        agent = reference_agent(http, start="pacs")
        await drive(stack, agent, replay_id)

    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    assert status["state"] == m.PAUSED and status["pause_reason"] == m.VALIDATION_FAILED
    assert status["pause_detail"]["failure_category"] == "WRONG_APPLICATION"
    current = status["current_action"]
    assert current["index"] == 0 and current["state"] == m.HELD and current["verdict"] == "FAILURE"
    assert current["failure_category"] == "WRONG_APPLICATION"
    assert any(c["checker"] == "TitleBarChecker" and c["score"] == 0.0 for c in current["checkers"])
    # over MCP a crop travels once, as image content: null in the JSON
    assert current["evidence"] and all(
        c["data_base64"] is None and c["mime_type"] == "image/png" for c in current["evidence"]
    )
    assert status["actions"][1]["state"] == m.PENDING and status["actions"][1]["dispatches"] == 0  # never sent
    assert [e.screen for e in agent.desktop.agent_inputs()] == ["pacs"]  # one click, in the wrong app, then stop
    assert any("answer_pause" in line for line in status["what_you_can_do"])


async def test_a_declared_save_confirmation_is_clicked_through_automatically(stack):
    name = promote(stack, workflow("Observation", OBSERVATIONS, WRITE_NOTE, SAVE))
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        agent = reference_agent(http)
        await drive(stack, agent, replay_id)

    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    save, answer = status["actions"][2], status["actions"][3]
    assert save["outcome"] == "success_dialog_auto" and save["failure_category"] == "UNEXPECTED_DIALOG"
    assert answer["origin"] == "dialog" and answer["action_type"] == "dialog_button" and answer["dispatches"] == 1
    clicks = [(e.label, e.effect) for e in agent.desktop.agent_inputs() if e.kind == "click"]
    assert clicks[-2:] == [("Enregistrer", "raise:save_confirm"), ("Confirmer", "goto:observation_saved")]
    assert agent.desktop.field_value("note") == "Patiente vue ce jour."
    assert status["pause_reason"] != m.UNEXPECTED_DIALOG


async def test_after_the_auto_dialog_the_replay_goes_on_and_the_uac_prompt_pauses_it(stack):
    name = promote(
        stack, workflow("Observation puis dossier", OBSERVATIONS, WRITE_NOTE, SAVE, DOSSIER_FROM_OBSERVATION)
    )
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        await drive(stack, reference_agent(http), replay_id)
    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    assert status["actions"][3]["verdict"] == "SUCCESS"
    assert status["pause_reason"] == m.SYSTEM_DIALOG


async def test_a_uac_prompt_pauses_the_replay_with_system_dialog_and_no_input(stack):
    # the UAC trigger of the incident desktop pops up on `observation_saved` before the next action
    name = promote(stack, workflow("Retour au dossier", DOSSIER_FROM_OBSERVATION))
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        agent = reference_agent(http, start="observation_saved")
        await drive(stack, agent, replay_id)

    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    assert status["state"] == m.PAUSED and status["pause_reason"] == m.SYSTEM_DIALOG
    assert status["pause_detail"]["system_dialog"] == {
        "kind": "uac", "process": "consent.exe", "title": "Contrôle de compte d'utilisateur"
    }  # fmt: skip
    assert status["current_action"]["state"] == m.PENDING and status["current_action"]["outcome"] == "not_executed"
    assert agent.desktop.agent_inputs() == []  # nothing injected, not even into the UAC prompt
    assert agent.desktop.system_dialog() is not None


async def test_the_long_poll_answers_204_when_idle_and_returns_as_soon_as_an_action_is_ready(stack):
    service = stack.services.replay
    polling = anyio.Event()
    take_event = service._event

    def spy(machine_id: str) -> anyio.Event:  # the poll is parked on its wake-up event
        event = take_event(machine_id)
        polling.set()
        return event

    service._event = spy
    name = promote(stack, workflow("Imagerie", IMAGERIE))
    llm = await stack.mcp("operator")
    async with stack.http() as agent:
        params = {"machine_id": MACHINE, "wait": 1}
        idle = await agent.get("/api/v1/replay/next", params=params, headers={"X-Replay-Protocol-Version": "2"})
        assert idle.status_code == 204 and idle.content == b""

        answers: list[Any] = []

        async def long_poll() -> None:
            answers.append(await agent.get("/api/v1/replay/next", params={"machine_id": MACHINE, "wait": 25}))

        polling = anyio.Event()
        with anyio.fail_after(10):  # far less than the 25 s the poll may wait: it returned at once
            async with anyio.create_task_group() as tg:
                tg.start_soon(long_poll)
                await polling.wait()
                replay_id = await start_replay(stack, llm, name)
    response = answers[0]
    assert response.status_code == 200
    action = response.json()
    assert action["replay_id"] == replay_id and action["action_type"] == "switch_tab"
    assert action["target"]["label"] == "Imagerie" and action["attempt_id"].startswith("at_")


async def test_replay_status_updates_reach_a_modern_listener(stack):
    name = promote(stack, workflow("Imagerie", IMAGERIE))
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        uri = f"rpa://replays/{replay_id}"
        async with llm.listen(resource_subscriptions=[uri]) as sub:
            await drive(stack, reference_agent(http), replay_id)
            await updates_until(sub, uri, timeout_s=10)
    body = await llm.read_resource(uri)
    assert '"state": "completed"' in body.contents[0].text
