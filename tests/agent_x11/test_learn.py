"""The whole loop on a real desktop: a nurse teaches the platform through an LLM (the MCP SDK client
over real HTTP) while `rpa-agent record` streams her real input; a second person approves in the
console; the learned competence then replays through `rpa-agent run` with the validator deciding from
real screenshots, and the application's own log shows each effect exactly once."""

from __future__ import annotations

from functools import partial

import anyio
import pytest

from rpa_mcp.desktop_rig.harness import wait_until
from rpa_mcp.desktop_rig.person import Person, drawn_text
from rpa_mcp.desktop_rig.scenario import Observation, demonstrate, effects_of_observation, recorder_pace
from tests.agent_x11.conftest import AGENT_TOKEN
from tests.agent_x11.replaying import llm_client

pytestmark = [pytest.mark.desktop, pytest.mark.anyio]
MACHINE = "poste-x11-01"
SESSION = "rec-observation"
COMPETENCE = "Observation infirmière"


async def test_a_nurse_teaches_over_mcp_and_the_learned_competence_replays_each_effect_once(
    desktop, make_rpa_server, tmp_path
):
    server = make_rpa_server(approval="write=human,act=human,dangerous=human")
    taught = Observation("DURAND Alice", "Patient calme, douleur 2/10.")
    browser = desktop.browser("/", wait_title="Recherche patient")
    recorder = desktop.agent(
        ["record", "--url", server.url, "--token", AGENT_TOKEN, "--machine-id", MACHINE, "--session-id", SESSION]
    )
    await anyio.to_thread.run_sync(recorder.wait_line, "recording session")
    traces = server.services.shadow.traces
    await anyio.to_thread.run_sync(
        partial(wait_until, lambda: traces.get_session(SESSION), timeout=60, what="the session")
    )

    async with llm_client(server) as llm:
        # The recorder's first event (the window in front) connected the session: observe it.
        sessions = await llm.call("list_sessions", {"machine_id": MACHINE})
        assert [s["session_id"] for s in sessions["sessions"]] == [SESSION]
        started = await llm.call("shadow_start", {"session_id": SESSION})
        assert started["status"] == "shadow_started"

        # a link is clicked once it is drawn: the recorder names a click by the screen before it
        sees = drawn_text(desktop.desk, server.services.ocr)
        person = Person(desktop.desk, pace=recorder_pace(recorder), sees=sees)
        try:
            await anyio.to_thread.run_sync(demonstrate, person, desktop.effects, taught)
        finally:
            person.close()
        assert await anyio.to_thread.run_sync(recorder.stop) == 0
        assert "accepted, 0 refused" in recorder.lines[-1], recorder.lines[-5:]

        stopped = await llm.call("shadow_stop", {"session_id": SESSION})
        steps = (await llm.call("get_understanding", {"session_id": SESSION}))["steps"]
        assert stopped["steps_count"] == len(steps)
        kinds = [s["action_type"] for s in steps]
        assert kinds == ["type_text", "click_anchor", "switch_tab", "type_text", "click_anchor"], steps
        intents = " | ".join(s["intent"] for s in steps)
        # a search is named by what was searched for (the value typed), the other steps by their target
        for named in (f"Rechercher le patient '{taught.patient}'", "Ouvrir le dossier", "Observations", "Enregistrer"):
            assert named in intents, intents

        # The nurse names the fourth step in her own words, and validates the rest.
        corrected = await llm.call(
            "shadow_feedback",
            {"session_id": SESSION, "action": "correct", "step_index": 4, "new_intent": "Saisir l'observation du jour"},
        )
        assert corrected["steps"][3]["intent"] == "Saisir l'observation du jour"
        await llm.call("shadow_feedback", {"session_id": SESSION, "action": "validate"})
        built = await llm.call(
            "shadow_build", {"session_id": SESSION, "name": COMPETENCE, "require_all_validated": True}
        )
        ir = built["workflow_ir"]
        assert [s["params"].get("text") for s in ir["steps"] if s["action_type"] == "type_text"] == [
            taught.patient,
            taught.note,
        ]

        persisted = await llm.propose_apply("persist_competence", {"session_id": SESSION, "name": COMPETENCE})
        assert persisted["version"] == 1
        promoted = await llm.propose_apply("promote_competence", {"name": COMPETENCE})
        assert promoted["version"] == 1 and "validated" in promoted["path"], promoted
        listed = await llm.call("list_competences")
        assert any(c["name"] == COMPETENCE and c["status"] == "validated" for c in listed["competences"]), listed

        # The learned competence replays on a fresh browser window.
        browser.process.terminate()
        browser.process.wait(30)
        desktop.browser("/", wait_title="Recherche patient")
        agent = desktop.agent(
            ["--url", server.url, "--token", AGENT_TOKEN, "--machine-id", MACHINE, "--journal",
             str(tmp_path / "journal.sqlite"), "--wait", "5"]
        )  # fmt: skip
        await anyio.to_thread.run_sync(agent.wait_line, "polling for actions")
        mark = desktop.effects.mark
        replay = await llm.propose_apply("start_replay", {"competence": COMPETENCE, "machine_id": MACHINE})
        status = await llm.wait_replay(replay["replay_id"])

    assert status["state"] == "completed", (status.get("pause_reason"), status.get("pause_detail"), agent.lines[-8:])
    steps = [a for a in status["actions"] if a["origin"] not in ("preflight", "closing")]  # not the two looks
    assert [a["verdict"] for a in steps] == ["SUCCESS"] * 5, status["actions"]
    effects = effects_of_observation(desktop.effects.since(mark))
    assert [e.detail["q"] for e in effects["search"]] == [taught.patient]
    assert len(effects["open_record"]) == 1
    assert [e.detail["tab"] for e in effects["tab"]] == ["observations"]
    assert [e.detail["text"] for e in effects["save"]] == [taught.note]
    assert not effects["delete"] and not effects["dialog"]
    assert any("executing step 4/5 type_text" in line for line in agent.lines), agent.lines
    audit = [(r["actor"], r["operation"]) for r in server.services.audit.rows()]
    approvals = {(actor.rsplit("@", 1)[0], op) for actor, op in audit if op.startswith("approve:")}  # subject@issuer
    assert {("dr-martin", "approve:persist_competence"), ("dr-martin", "approve:start_replay")} <= approvals, audit
