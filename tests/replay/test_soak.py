"""A bounded, seeded randomized soak mixing the transport faults, then a drain and the checker."""

from __future__ import annotations

import random

import pytest

from rpa_mcp.replay import model as m
from tests.replay.kit import FakeAgent, assert_clean, check, drain, steps

pytestmark = pytest.mark.anyio

FAULTS = ("drop_poll", "die_after_receive", "die_after_start", "lose_report", "system_dialog", "heartbeat", None)


@pytest.mark.parametrize("seed", [1, 7, 42])
async def test_randomized_soak_loses_nothing_and_executes_nothing_twice(service, clock, seed):
    rng = random.Random(seed)
    agents = [FakeAgent(service, "pc-1", clock=clock), FakeAgent(service, "pc-2", clock=clock, version=1)]
    replays = []
    for i in range(6):
        plan = steps(rng.randint(2, 6), action_type=rng.choice(["click_anchor", "switch_tab", "type_text"]))
        replays.append(
            await service.start(steps=plan, competence=f"soak{i}", version=1, machine_id=agents[i % 2].machine_id)
        )
    for _ in range(120):
        agent = rng.choice(agents)
        fault = rng.choice(FAULTS) if rng.random() < 0.35 else None
        # a v1 agent has no start ack: only transport faults apply to it
        if fault and (agent.version >= 2 or fault in ("drop_poll", "lose_report")):
            agent.faults.add(fault)
        if agent.pending_start is not None:
            if rng.random() < 0.5:
                await agent.heartbeat()
            else:
                await agent.finish_long()
        if not agent.alive and rng.random() < 0.5:
            agent.restart()
        if rng.random() < 0.2:
            agent.faults.discard("drop_report")
        await agent.step()
        if rng.random() < 0.1:
            clock.jump_wall(rng.choice([-600, 600]))  # wall-clock jumps: no resend storm
        clock.advance(rng.choice([0.5, 3, 11, 31]))
        service.scan_once()
        if rng.random() < 0.05:  # a second watchdog racing the first
            service.scan_once()
        if rng.random() < 0.03:
            rid = rng.choice(replays)
            if service.store.get_replay(rid)["state"] == m.RUNNING:
                await service.pause(rid)
    for agent in agents:
        if agent.pending_start is not None:
            await agent.finish_long()
    twice = check(service, agents)["executed_twice"]
    assert twice == []
    await drain(service, agents, clock, rounds=600, answer_pauses=True)
    assert_clean(service, agents)
    states = {service.store.get_replay(r)["state"] for r in replays}
    assert states <= {m.COMPLETED, m.CANCELLED, m.PAUSED}
