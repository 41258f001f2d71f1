"""Issue 7 end to end over real HTTP: an LLM client starts a supervised replay, a person approves, the
reference agent long-polls the same server and executes on the incident desktop; the replay tells its story.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from rpa_mcp.agent_sim import Journal, ReferenceAgent, VirtualDesktop
from rpa_mcp.ops.registry import Caller
from rpa_mcp.replay import model as m

pytestmark = pytest.mark.anyio

MACHINE = "pc-urgences-12"
APPROVER = Caller("carol", frozenset({"approver"}))
EDGE = "MédiDossier — {} - Microsoft Edge"
MANIFEST = Path("/work/shared/fixtures/manifest.json")


def tab(index: int, label: str, bbox: list[int], *, before: str, after: str, **extra: Any) -> dict[str, Any]:
    return {
        "index": index,
        "intent": f"Open the '{label}' tab",
        "action_type": "switch_tab",
        "target": {"label": label, "bbox": bbox, "window_title": EDGE.format(before)},
        "expected_window_before": EDGE.format(before),
        "expected_window_after": EDGE.format(after),
        **extra,
    }


def workflow(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"name": "Imagerie du patient", "domain": "hospital", "version": 1,
            "source": {"machine_id": MACHINE}, "steps": list(steps)}  # fmt: skip


async def call(client: Any, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await client.call_tool(name, args or {})
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def start_replay(stack: Any, client: Any, competence: str) -> str:
    proposal = await call(client, "propose_start_replay", {"competence": competence, "machine_id": MACHINE})
    assert proposal["approval_mode"] == "human" and MACHINE in proposal["summary"]
    stack.services.confirmations.decide(proposal["approval_url"].rsplit("/", 1)[1], APPROVER, True)
    started = await call(client, "apply_start_replay", {"token": proposal["token"]})
    assert started["status"] == m.RUNNING and started["machine_id"] == MACHINE
    return started["replay_id"]


def save(stack: Any, ir: dict[str, Any]) -> str:
    stack.services.competences.save(ir["name"], ir, machine_id=MACHINE)
    stack.services.competences.promote(ir["name"])
    return ir["name"]


async def drive(stack: Any, agent: ReferenceAgent, replay_id: str, *, limit: int = 12) -> dict[str, Any]:
    """Let the agent poll (wait=0) while the replay runs; every poll either gets an action or the replay stopped."""
    for _ in range(limit):
        if stack.services.replay.store.get_replay(replay_id)["state"] != m.RUNNING:
            break
        await agent.poll_once()
    return stack.services.replay.store.get_replay(replay_id)


def agent_for(http: Any, start: str | None = None) -> ReferenceAgent:
    desktop = VirtualDesktop.load("incident", start=start)
    return ReferenceAgent(http, desktop, machine_id=MACHINE, journal=Journal(":memory:"), poll_wait_s=0)


async def test_a_competence_replays_to_completion_and_the_status_tells_the_story(stack):
    name = save(stack, workflow(
        tab(0, "Imagerie", [318, 8, 236, 32], before="Dossier patient", after="Imagerie"),
        tab(1, "Dossier patient", [82, 8, 236, 32], before="Imagerie", after="Dossier patient"),
    ))  # fmt: skip
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        agent = agent_for(http)
        await drive(stack, agent, replay_id)
    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    print(json.dumps({k: v for k, v in status.items() if k != "actions"}, indent=1, ensure_ascii=False))
    for a in status["actions"]:
        print(json.dumps({k: v for k, v in a.items() if k != "evidence"}, ensure_ascii=False)[:1500])
    assert status["state"] == m.COMPLETED


def dump(status):
    print(json.dumps({k: v for k, v in status.items() if k != "actions"}, indent=1, ensure_ascii=False)[:3000])
    for a in status["actions"]:
        print(json.dumps({k: (v if k != "evidence" else [(c["label"], c.get("bbox"), len(c.get("data_base64") or "")) for c in v]) for k, v in a.items()}, ensure_ascii=False)[:2500])


async def test_incident_b(stack):
    step = tab(0, "Imagerie", [359, 129, 236, 32], before="Dossier patient", after="Imagerie")
    step["target"] |= {"rel_x": 477 / 1919, "rel_y": 145 / 1079}
    name = save(stack, workflow(step, tab(1, "Dossier patient", [82, 8, 236, 32], before="Imagerie", after="Dossier patient")))
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        agent = agent_for(http, "pacs")
        await drive(stack, agent, replay_id)
        print(agent.desktop.inputs)
    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    dump(status)


async def test_dialogs_c(stack):
    name = save(stack, workflow(
        {"index": 0, "intent": "Open the observations", "action_type": "click_anchor",
         "target": {"label": "Observations", "bbox": [0, 256, 199, 36], "window_title": EDGE.format("Dossier patient")},
         "expected_window_after": EDGE.format("Observation")},
        {"index": 1, "intent": "Write the note", "action_type": "type_text",
         "target": {"label": "Texte de l'observation", "bbox": [236, 600, 1330, 90]},
         "params": {"text": "Patiente vue ce jour."}, "expected_window_after": EDGE.format("Observation")},
        {"index": 2, "intent": "Save the note", "action_type": "click_anchor",
         "target": {"label": "Enregistrer", "bbox": [224, 715, 108, 34]},
         "expected_window_after": EDGE.format("Observation"),
         "expected_modals": [{"dialog_id": "easily-save-confirm", "policy": "auto", "button": "confirm"}]},
        tab(3, "Dossier patient", [82, 8, 236, 32], before="Observation", after="Dossier patient"),
    ))  # fmt: skip
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        agent = agent_for(http)
        await drive(stack, agent, replay_id)
        print(agent.desktop.inputs)
    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    dump(status)
