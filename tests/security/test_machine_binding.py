"""An agent token bound to machines acts for them only: events, polls, acks and reports for any other -> 403."""

from __future__ import annotations

import time

import pytest

from rpa_mcp.cli import main
from tests.conftest import SECRET, token_for
from tests.replay.kit import steps
from tests.security.conftest import client_for

pytestmark = pytest.mark.anyio
EVENTS = "/api/v1/traces/stream/event"
V2 = {"x-replay-protocol-version": "2"}


def bound(services, *machines: str) -> str:
    return str(services.access_tokens.mint("agent-m1", ["agent"], ttl_s=600, machines=list(machines)))


def focus(session: str, machine: str) -> dict:
    return {"session_id": session, "machine_id": machine, "ts": time.time(), "type": "focus", "window_title": "W"}


async def test_events_for_another_machine_or_into_its_session_are_403(services):
    async with client_for(services, token_for(services, "agent-m2", "agent")) as m2:  # an unbound agent on M2
        assert (await m2.post(EVENTS, json=focus("sess-m2", "M2"))).status_code == 200
    async with client_for(services, bound(services, "M1")) as m1:
        own = await m1.post(EVENTS, json=focus("sess-m1", "M1"))
        other = await m1.post(EVENTS, json=focus("sess-x", "M2"))
        hijack = await m1.post(EVENTS, json=focus("sess-m2", "M1"))  # claims M1, writes into M2's session
        mixed = await m1.post(EVENTS, json={"events": [focus("sess-m1", "M1"), focus("sess-y", "M3")]})
    assert own.status_code == 200
    for refused in (other, hijack, mixed):
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "forbidden"
    assert "M2" in hijack.json()["details"]["machines"]
    rows = services.db.query("SELECT session_id FROM trace_events")
    assert sorted(r["session_id"] for r in rows) == ["sess-m1", "sess-m2"]  # nothing of the refused batches


async def test_polls_for_another_machine_are_403(services):
    async with client_for(services, bound(services, "M1", "M1b")) as client:
        own = await client.get("/api/v1/replay/next", params={"machine_id": "M1b", "wait": 0}, headers=V2)
        other = await client.get("/api/v1/replay/next", params={"machine_id": "M2", "wait": 0}, headers=V2)
    assert own.status_code == 204
    assert other.status_code == 403 and other.json()["details"]["machines"] == ["M2"]


@pytest.mark.parametrize("claim", ["M2", "M1", None])
async def test_acks_and_reports_for_another_machines_replay_are_403_whatever_machine_is_claimed(services, claim):
    replay_id = await services.replay.start(steps=steps(1), competence="c", version=1, machine_id="M2")
    async with client_for(services, token_for(services, "agent-m2", "agent")) as m2:
        action = (await m2.get("/api/v1/replay/next", params={"machine_id": "M2", "wait": 0}, headers=V2)).json()
    ref = {"replay_id": replay_id, "action_id": action["action_id"], "attempt_id": action["attempt_id"]}
    if claim:
        ref["machine_id"] = claim
    async with client_for(services, bound(services, "M1")) as m1:
        answers = {
            "receipt": await m1.post("/api/v1/replay/receipt", json=ref, headers=V2),
            "start": await m1.post("/api/v1/replay/start", json=ref, headers=V2),
            "heartbeat": await m1.post("/api/v1/replay/heartbeat", json=ref, headers=V2),
            "result": await m1.post(
                "/api/v1/replay/result", json={**ref, "success": False, "executed": False}, headers=V2
            ),
            "cancel": await m1.post("/api/v1/tools/cancel_replay", json={"replay_id": replay_id}),
        }
    for kind, r in answers.items():
        assert r.status_code == 403, (kind, r.text)
    assert services.replay.store.get_replay(replay_id)["state"] == "running"


async def test_an_unbound_agent_token_keeps_acting_for_any_machine(services):
    async with client_for(services, token_for(services, "agent", "agent")) as client:
        r = await client.post(EVENTS, json={"events": [focus("a", "M1"), focus("b", "M2")]})
    assert r.status_code == 200


def test_the_cli_mints_a_bound_agent_token(tmp_path, monkeypatch, capsys, services):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    assert main(["token", "--sub", "agent-m1", "--role", "agent", "--machine", "M1", "--machine", "M1b"]) == 0
    caller = services.access_tokens.verify(capsys.readouterr().out.strip())
    assert caller is not None and caller.machines == frozenset({"M1", "M1b"})
    assert main(["token", "--sub", "op", "--role", "operator", "--machine", "M1"]) == 2
    assert "--role agent" in capsys.readouterr().err
