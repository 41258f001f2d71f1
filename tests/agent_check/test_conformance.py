"""`rpa-mcp agent-check` passes the reference agent and fails agents that break the wire contract."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from rpa_mcp.agent_check import Clause, Conformance, conformance_script, judge
from rpa_mcp.agent_sim import FaultPlan, Journal, ReferenceAgent, VirtualDesktop
from rpa_mcp.agent_sim.fixtures import ImageResolver
from rpa_mcp.replay.wire import PROTOCOL_HEADER, NextAction, ReportAck

from .naive_agent import NaiveAgent

TOKEN = "check-token"
MACHINE = "ws-under-test"
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def no_sleep(seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


def conformance() -> Conformance:
    script = conformance_script(long_action_s=12.0, pause_hold_s=0.0)
    return Conformance(script, token=TOKEN, final_hold_s=0.0)


async def check(run: Conformance, agent_of: Callable[[httpx2.AsyncClient], Any]) -> dict[str, Clause]:
    """Run the agent against the scripted server in memory until the script is done."""
    transport = httpx2.ASGITransport(app=run.app())
    async with httpx2.AsyncClient(transport=transport, base_url="http://check.test") as client:
        agent = agent_of(client)
        stop = anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: agent.run(stop=stop))
            with anyio.fail_after(30):
                await run.finished.wait()
            stop.set()
            tg.cancel_scope.cancel()
    return {c.name: c for c in judge(run)}


def reference_agent(tmp_path: Path, **kw: Any) -> Callable[[httpx2.AsyncClient], ReferenceAgent]:
    def build(client: httpx2.AsyncClient) -> ReferenceAgent:
        desktop = VirtualDesktop(VirtualDesktop.load("incident").spec, ImageResolver.default())
        options: dict[str, Any] = {"token": TOKEN, "sleep": no_sleep, "heartbeat_interval_s": 5.0} | kw
        return ReferenceAgent(
            client, desktop, machine_id=MACHINE, journal=Journal(tmp_path / "journal.sqlite"), **options
        )

    return build


def failed(clauses: dict[str, Clause]) -> set[str]:
    return {name for name, c in clauses.items() if not c.passed}


async def test_the_reference_agent_passes_every_clause(tmp_path: Path) -> None:
    run = conformance()
    clauses = await check(run, reference_agent(tmp_path))
    assert failed(clauses) == set(), "\n".join(line for c in clauses.values() for line in c.evidence)
    assert run.machine_id == MACHINE
    assert len(run.dispatched) == sum(1 for d in run.script if d.action)
    for e in run.exchanges:  # the scripted server itself speaks the contract
        if e.status == 200:
            (NextAction if e.kind == "poll" else ReportAck).model_validate(e.answer)
        elif e.status >= 400:
            assert e.answer is not None and {"type", "status", "code", "retryable"} <= set(e.answer)


async def test_a_rerun_with_the_same_journal_passes_too(tmp_path: Path) -> None:
    await check(conformance(), reference_agent(tmp_path))
    assert failed(await check(conformance(), reference_agent(tmp_path))) == set()


async def test_an_agent_without_a_journal_executes_twice_and_ignores_deadlines(tmp_path: Path) -> None:
    clauses = await check(conformance(), lambda client: NaiveAgent(client, MACHINE, TOKEN))
    assert {"duplicate-delivery", "resend-after-start", "not-after", "not-after-server-clock", "heartbeat"} <= failed(
        clauses
    )
    assert clauses["ack-order"].passed  # the plain path is right: only the clauses it breaks fail
    assert clauses["bearer-token"].passed and clauses["protocol-header"].passed


async def test_an_agent_that_refuses_a_person_retry_fails_that_clause_only(tmp_path: Path) -> None:
    clauses = await check(
        conformance(), lambda client: NaiveAgent(client, MACHINE, TOKEN, journal=True, person_retry=False)
    )
    # beside person-retry, what this naive agent breaks anyway: no heartbeats, no deadline judged at all
    assert failed(clauses) == {"person-retry", "heartbeat", "not-after", "not-after-server-clock"}


async def test_an_agent_that_forgets_the_server_clock_fails_the_deadline_clauses(tmp_path: Path) -> None:
    clauses = await check(
        conformance(), lambda client: NaiveAgent(client, MACHINE, TOKEN, journal=True, local_clock=True)
    )
    assert failed(clauses) == {"not-after-server-clock", "skew-corrected", "heartbeat"}
    evidence = "\n".join(clauses["not-after-server-clock"].evidence)
    assert "POST start" in evidence


async def test_a_v1_agent_fails_the_protocol_header_clause(tmp_path: Path) -> None:
    clauses = await check(conformance(), reference_agent(tmp_path, protocol_version=1))
    assert "protocol-header" in failed(clauses)
    assert "ack-order" in failed(clauses)  # no receipt/start acks


async def test_a_wrong_token_fails_and_nothing_is_reached(tmp_path: Path) -> None:
    run = conformance()
    transport = httpx2.ASGITransport(app=run.app())
    async with httpx2.AsyncClient(transport=transport, base_url="http://check.test") as client:
        response = await client.get(
            "/api/v1/replay/next", params={"machine_id": MACHINE, "wait": 0}, headers={PROTOCOL_HEADER: "2"}
        )
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
    clauses = {c.name: c for c in judge(run)}
    assert not clauses["bearer-token"].passed
    assert not clauses["ack-order"].passed
    assert any("not reached" in line for line in clauses["ack-order"].evidence)


async def test_a_message_with_an_unknown_field_is_refused_with_the_field_named() -> None:
    run = conformance()
    transport = httpx2.ASGITransport(app=run.app())
    headers = {"Authorization": f"Bearer {TOKEN}", PROTOCOL_HEADER: "2"}
    async with httpx2.AsyncClient(transport=transport, base_url="http://check.test", headers=headers) as client:
        body = {"replay_id": "r", "action_id": "a", "attempt_id": "t", "colour": "red"}
        response = await client.post("/api/v1/replay/receipt", json=body)
        elsewhere = await client.post("/api/v1/replay/results", json=body)
    assert response.status_code == 422
    assert response.json()["details"]["field"] == "colour"
    assert (elsewhere.status_code, elsewhere.json()["code"]) == (404, "not-found")
    clause = {c.name: c for c in judge(run)}["bodies-valid"]
    assert not clause.passed
    assert any("/api/v1/replay/results" in line for line in clause.evidence)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"guard_action_id": False}, {"resend-after-start"}),  # re-runs an action it already executed
        ({"faults": FaultPlan.parse(["duplicate_report@1"])}, {"stop-resending"}),
        ({"faults": FaultPlan.parse(["clock_skew:value=7200"])}, set()),  # a skewed clock corrected by server_now
    ],
)
async def test_one_broken_habit_fails_exactly_its_clause(
    tmp_path: Path, options: dict[str, Any], expected: set[str]
) -> None:
    clauses = await check(conformance(), reference_agent(tmp_path, **options))
    assert failed(clauses) == expected


async def test_the_scripted_server_fences_like_the_real_one() -> None:
    """A second start of one attempt is `duplicate, proceed=false`; a report of an unknown attempt is `unknown`."""
    run = conformance()
    transport = httpx2.ASGITransport(app=run.app())
    headers = {"Authorization": f"Bearer {TOKEN}", PROTOCOL_HEADER: "2"}
    async with httpx2.AsyncClient(transport=transport, base_url="http://check.test", headers=headers) as client:
        params = {"machine_id": MACHINE, "wait": 0}
        assert (await client.get("/api/v1/replay/next", params=params)).status_code == 204
        action = (await client.get("/api/v1/replay/next", params=params)).json()
        ref = {k: action[k] for k in ("replay_id", "action_id", "attempt_id")}
        first = (await client.post("/api/v1/replay/start", json=ref)).json()
        again = (await client.post("/api/v1/replay/start", json=ref)).json()
        stranger = (await client.post("/api/v1/replay/start", json=ref | {"attempt_id": "never-sent"})).json()
    assert (first["status"], first["proceed"]) == ("accepted", True)
    assert (again["status"], again["proceed"]) == ("duplicate", False)
    assert (stranger["status"], stranger["proceed"]) == ("unknown", False)
