"""Three `rpa-mcp serve` processes on one PostgreSQL database behave as one server.

The reference agent reaches a random replica at every request (poll, acks, result), the LLM
side uses another one, the watchdog runs on whichever replica leads. Faults of the replay
matrix that make sense across processes are injected on the agent's side; then a checker over
the shared database counts lost = 0, executed twice = 0, reported from nowhere = 0, and
`rpa-mcp audit verify` passes on the one shared chain.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from rpa_mcp.agent_sim import Journal, ReferenceAgent, VirtualDesktop
from rpa_mcp.agent_sim.agent import AgentCrashed
from rpa_mcp.agent_sim.faults import FaultPlan
from rpa_mcp.replay import model as m
from rpa_mcp.store.postgres import PostgresDatabase
from rpa_mcp.store.replay import ReplayRepository
from tests.integration.test_replay_http import MACHINE
from tests.replicas.conftest import AGENT, CYCLE, AnyReplica, Cluster, Replica, kill

pytestmark = pytest.mark.anyio
DONE_STATES = (m.COMPLETED, m.CANCELLED, m.PAUSED)


class Side:
    """The LLM side: REST tool calls on one replica (propose -> apply, with token approval)."""

    def __init__(self, cluster: Cluster, replica: Replica) -> None:
        self.http = cluster.client(
            base_url=replica.base, headers={"Authorization": f"Bearer {cluster.operator_token()}"}
        )

    async def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = await self.http.post(f"/api/v1/tools/{name}", json=args)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    async def act(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        proposal = await self.call(f"propose_{name}", args)
        return await self.call(f"apply_{name}", {"token": proposal["token"]})

    async def start(self) -> str:
        started = await self.act("start_replay", {"competence": CYCLE["name"], "machine_id": MACHINE})
        return str(started["replay_id"])

    async def state(self, replay_id: str) -> dict[str, Any]:
        return await self.call("get_replay_status", {"replay_id": replay_id})


class Agent:
    """The reference agent behind the balancer; a simulated death restarts it on its journal."""

    def __init__(self, cluster: Cluster, folder: Path, faults: FaultPlan, *, wait_s: float = 2.0) -> None:
        self.http = cluster.client(base_url="http://127.0.0.1", transport=AnyReplica(cluster))
        self.desktop = VirtualDesktop.load("incident")
        self.journal_path, self.faults, self.wait_s = folder / "journal.sqlite3", faults, wait_s
        self.events: list[tuple[str, str]] = []
        self.agent = self._new()
        self.crashes = 0

    def _new(self) -> ReferenceAgent:
        return ReferenceAgent(
            self.http, self.desktop, machine_id=MACHINE, journal=Journal(self.journal_path), token=AGENT,
            faults=self.faults, poll_wait_s=self.wait_s,
        )  # fmt: skip

    async def poll(self) -> Any:
        try:
            return await self.agent.poll_once()
        except AgentCrashed:
            self.crashes += 1
            self.events.extend(self.agent.events)
            received, self.agent = self.agent.received, self._new()  # the process restarts; its journal survived
            self.agent.received = received  # faults are placed by the n-th action received since the test began
            return None

    def all_events(self) -> list[tuple[str, str]]:
        return self.events + self.agent.events


async def drive(side: Side, agent: Agent, replay_id: str, *, rounds: int = 200) -> dict[str, Any]:
    """Poll until the replay is no longer running; a pause is answered the way a person would."""
    status: dict[str, Any] = {}
    for _ in range(rounds):
        status = await side.state(replay_id)
        if status["state"] == m.PAUSED and status["pause_reason"] in (m.OUTCOME_UNKNOWN, m.PAUSED_NEED_HELP):
            await side.act("answer_pause", {"replay_id": replay_id, "decision": "skip"})
            continue
        if status["state"] != m.RUNNING:
            return status
        await agent.poll()
    raise AssertionError(f"replay {replay_id} still {status.get('state')} after {rounds} rounds")


def check(url: str, agent: Agent) -> dict[str, list[Any]]:
    """Over every action in the shared database and everything the agent did."""
    db = PostgresDatabase(url)
    repo = ReplayRepository(db)
    events = agent.all_events()
    executed = Counter(key.split(":")[0] for name, key in events if name == "executing")
    received = {key for name, key in events if name == "received"}
    report: dict[str, list[Any]] = {"lost": [], "executed_twice": [], "from_nowhere": []}
    for replay in repo.list_replays(limit=1000):
        full = repo.get_replay(replay["replay_id"])
        for a in repo.actions(replay["replay_id"]):
            if executed[a["action_id"]] > (1 + a["max_resends"] if a["idempotent"] else 1):
                report["executed_twice"].append(a["action_id"])
            terminal = a["state"] in m.TERMINAL_ACTION_STATES
            if not terminal and not (replay["state"] == m.PAUSED and full and full["pause_reason"]):
                report["lost"].append((a["action_id"], a["state"], replay["state"]))
        for rep in repo.reports(replay["replay_id"]):
            attempt = f"{rep['action_id']}:{rep['attempt_id']}"
            if rep["kind"] == "result" and rep["status"] == "accepted" and attempt not in received:
                report["from_nowhere"].append((rep["action_id"], rep["attempt_id"]))
    db.close()
    return report


def _resend_allowed(db: PostgresDatabase, replay_id: str) -> bool:
    row = db.query_one(
        "SELECT state, resend_allowed FROM replay_actions WHERE replay_id = ? ORDER BY seq", (replay_id,)
    )
    return row is not None and row["state"] == m.ORPHAN and bool(row["resend_allowed"])


def audit_verify(replica: Replica) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rpa_mcp", "audit", "verify"], env=replica.env, capture_output=True, text=True
    )


async def test_a_seeded_soak_across_three_replicas_loses_nothing_and_the_shared_audit_chain_verifies(cluster, tmp_path):
    faults = FaultPlan.parse(
        "lose_report@2;duplicate_report@3;stale_attempt@5;disconnect_after_receive@6;drop_poll_answer@8;"
        "lose_report_ack@9;die_mid_action@11;delay_report@13:value=6"
    )
    side, agent = Side(cluster, cluster.replicas[0]), Agent(cluster, tmp_path, faults)
    finals = []
    for _ in range(8):
        replay_id = await side.start()
        finals.append(await drive(side, agent, replay_id))
    for _ in range(3):  # results still in the outbox reach the server
        await agent.agent.flush_outbox()
    assert {f["state"] for f in finals} <= set(DONE_STATES)
    assert sum(f["state"] == m.COMPLETED for f in finals) >= 3
    assert check(cluster.url, agent) == {"lost": [], "executed_twice": [], "from_nowhere": []}
    fired = sorted(f.kind for f in faults.faults if f.fired)
    assert len(fired) == len(faults.faults), fired  # every fault did happen
    for replica in cluster.replicas:
        verified = audit_verify(replica)
        assert verified.returncode == 0, verified.stdout + verified.stderr


async def test_an_agent_long_polling_one_replica_gets_the_replay_started_on_another(cluster, tmp_path):
    side = Side(cluster, cluster.replicas[0])
    poller = cluster.client(base_url=cluster.replicas[2].base)
    headers = {"Authorization": f"Bearer {AGENT}", "X-Replay-Protocol-Version": "2"}
    answers: list[httpx2.Response] = []

    async def poll() -> None:
        params = {"machine_id": MACHINE, "wait": 55}  # woken long before its wait ends, or the wake-up was lost
        answers.append(await poller.get("/api/v1/replay/next", params=params, headers=headers))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(poll)
            await anyio.sleep(0.5)  # the poll is parked on replica 2 before the replay starts on replica 0
            replay_id = await side.start()
    assert answers[0].status_code == 200 and answers[0].json()["replay_id"] == replay_id


async def test_killing_the_watchdog_leader_mid_replay_lets_another_replica_resend_the_orphan(cluster, tmp_path):
    leader = await cluster.leader()
    side = Side(cluster, next(r for r in cluster.replicas if r is not leader))
    # The agent receives the first action and goes away before starting it: only a watchdog resends it.
    agent = Agent(cluster, tmp_path, FaultPlan.parse("disconnect_after_receive@1"))
    replay_id = await side.start()
    assert await agent.poll() is None and agent.crashes == 1
    kill(leader)  # SIGKILL: its lock goes with its connection
    new_leader = await cluster.leader()
    assert new_leader is not leader
    db = PostgresDatabase(cluster.url)
    try:
        with anyio.fail_after(60):  # the lease runs out; only a watchdog can make the action sendable again
            while not (await anyio.to_thread.run_sync(_resend_allowed, db, replay_id)):
                await anyio.sleep(0.2)
    finally:
        db.close()
    final = await drive(side, agent, replay_id)
    assert final["state"] == m.COMPLETED, final
    first = final["actions"][0]
    assert first["dispatches"] == 2 and first["state"] == m.ACKED  # resent once, by the new leader
    assert check(cluster.url, agent) == {"lost": [], "executed_twice": [], "from_nowhere": []}
    verified = audit_verify(new_leader)
    assert verified.returncode == 0, verified.stdout + verified.stderr
