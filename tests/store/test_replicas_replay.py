"""The replay engine on three replicas sharing one PostgreSQL database (in one process: three
connection pools, three engines, no shared memory). The agent talks to a random replica at
every call, the watchdog runs on whichever replica leads; the seeded soak of the single-process
suite must end the same way: lost = 0, executed twice = 0, reported from nowhere = 0."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.store.postgres import PostgresDatabase
from rpa_mcp.store.replay import ReplayRepository
from tests.replay.kit import FakeAgent, JumpClock, assert_clean, check, drain, make_service, make_services, steps

pytestmark = pytest.mark.anyio
FAULTS = ("drop_poll", "die_after_receive", "die_after_start", "lose_report", "system_dialog", "heartbeat", None)


class AnyReplica:
    """Each call goes to a random replica, as behind a round-robin load balancer."""

    def __init__(self, replicas: list[ReplayService], rng: random.Random) -> None:
        self.replicas, self.rng = replicas, rng

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rng.choice(self.replicas), name)


def _engine(services: Any, wakeups: Any) -> ReplayService:
    """The kit's engine, with the wake-ups shared by the replicas."""
    from rpa_mcp.replay.thresholds import load_thresholds

    return ReplayService(
        ReplayRepository(services.db),
        clock=services.clock,
        config=m.ReplayConfig.from_settings(services.settings),
        thresholds=load_thresholds(services.settings.catalog_path / "thresholds.yaml"),
        validator=services.validator,
        dialogs=services.dialogs,
        notifier=services.notifier,
        ocr=services.ocr,
        vlm=services.vlm,
        server_actions=services.server_actions,
        ledger=services.ledger,
        wakeups=wakeups,
    )


@pytest.fixture
def replicas(pg_url, tmp_path):
    clock = JumpClock()
    dbs = [PostgresDatabase(pg_url) for _ in range(3)]
    services = [make_services(tmp_path / f"r{i}", db=db, clock=clock) for i, db in enumerate(dbs)]
    yield [make_service(s) for s in services], clock
    for db in dbs:
        db.close()


@pytest.mark.parametrize("seed", [3, 11])
async def test_randomized_soak_across_three_replicas_loses_nothing_and_executes_nothing_twice(replicas, seed):
    engines, clock = replicas
    rng = random.Random(seed)
    front = AnyReplica(engines, rng)
    agents = [FakeAgent(front, "pc-1", clock=clock), FakeAgent(front, "pc-2", clock=clock, version=1)]
    replay_ids = []
    for i in range(6):
        plan = steps(rng.randint(2, 5), action_type=rng.choice(["click_anchor", "switch_tab", "type_text"]))
        started_on = rng.choice(engines)
        replay_ids.append(
            await started_on.start(steps=plan, competence=f"soak{i}", version=1, machine_id=agents[i % 2].machine_id)
        )
    for _ in range(100):
        agent = rng.choice(agents)
        fault = rng.choice(FAULTS) if rng.random() < 0.35 else None
        if fault and (agent.version >= 2 or fault in ("drop_poll", "lose_report")):
            agent.faults.add(fault)
        if agent.pending_start is not None:
            await (agent.heartbeat() if rng.random() < 0.5 else agent.finish_long())
        if not agent.alive and rng.random() < 0.5:
            agent.restart()
        await agent.step()
        clock.advance(rng.choice([0.5, 3, 11, 31]))
        rng.choice(engines).scan_once()  # the leader may change between scans
        if rng.random() < 0.05:
            rng.choice(engines).scan_once()  # two watchdogs racing
        if rng.random() < 0.03:
            rid = rng.choice(replay_ids)
            if engines[0].store.get_replay(rid)["state"] == m.RUNNING:
                await rng.choice(engines).pause(rid)
    for agent in agents:
        if agent.pending_start is not None:
            await agent.finish_long()
    assert check(engines[1], agents)["executed_twice"] == []
    await drain(front, agents, clock, rounds=600, answer_pauses=True)  # type: ignore[arg-type]
    assert_clean(engines[2], agents)
    states = {engines[0].store.get_replay(r)["state"] for r in replay_ids}
    assert states <= {m.COMPLETED, m.CANCELLED, m.PAUSED}


async def test_an_agent_long_polling_one_replica_gets_the_action_started_on_another(pg_url, tmp_path):
    import anyio

    from rpa_mcp.store.notify import PgWakeBus

    clock = JumpClock()
    dbs = [PostgresDatabase(pg_url) for _ in range(2)]
    buses = [PgWakeBus(db) for db in dbs]
    a, b = (_engine(make_services(tmp_path / f"r{i}", db=db, clock=clock), bus)
            for i, (db, bus) in enumerate(zip(dbs, buses, strict=True)))  # fmt: skip
    for bus in buses:
        bus.start()
    try:
        with anyio.fail_after(30):
            while not all(bus.listening.is_set() for bus in buses):
                await anyio.sleep(0.01)
            got: list[Any] = []

            async def poll() -> None:
                with anyio.fail_after(20):  # woken well before its 60 s wait ends, or the wake-up was lost
                    got.append(await b.next_action("pc-9", wait=60, protocol_version=2))  # waits on replica B

            async with anyio.create_task_group() as tg:
                tg.start_soon(poll)
                await anyio.sleep(0)  # the poll is waiting before the replay starts
                replay_id = await a.start(steps=steps(2), competence="c", version=1, machine_id="pc-9")
        assert got[0] is not None and got[0].replay_id == replay_id and got[0].step_index == 0
    finally:
        for bus in buses:
            bus.stop()
        for db in dbs:
            db.close()


async def test_concurrent_polls_of_one_machine_on_two_replicas_never_put_two_actions_in_flight(replicas):
    import threading

    engines, _clock = replicas
    for i in range(2):
        await engines[0].start(steps=steps(2), competence=f"c{i}", version=1, machine_id="pc-7")

    def claim(engine: ReplayService, barrier: threading.Barrier, claimed: list[Any]) -> None:
        barrier.wait()
        claimed.append(engine._claim("pc-7", 2))

    for _round in range(5):
        barrier = threading.Barrier(2)
        claimed: list[Any] = []
        threads = [threading.Thread(target=claim, args=(e, barrier, claimed)) for e in engines[:2]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        inflight = engines[2].store.inflight_for_machine("pc-7")
        assert len(inflight) == 1
        assert {c.action_id for c in claimed if c is not None} == {inflight[0]["action_id"]}
