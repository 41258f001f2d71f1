"""The resolver's log lines for an agent's `resolve_target` name the replay and the action in flight on its
machine (the agent does not send them): a slow resolution in the log is found back to its step."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from rpa_mcp.ops import replay_agent as agent_ops
from rpa_mcp.ops.common import ImageArg
from rpa_mcp.ops.registry import Caller, OpContext
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.vision.budget import ImageWork
from tests.replay.kit import SHOT_BEFORE, FakeAgent, steps

pytestmark = pytest.mark.anyio
SPEC = {"uia": {"x": 100, "y": 100, "score": 0.95}}


def _resolve_events(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "rpa_mcp.replay"]
    return [line for line in lines if line.get("event") in ("resolve_entry", "resolve_exit")]


async def _resolve(services: Any, roles: frozenset[str], machine_id: str | None) -> None:
    ctx = OpContext(caller=Caller("agent", roles), services=services)
    args = agent_ops.ResolveTargetInput(image=ImageArg(png_base64=SHOT_BEFORE), target_spec=SPEC, machine_id=machine_id)
    assert (await agent_ops.resolve_target(ctx, args)).resolved


async def test_an_agents_resolution_is_logged_with_the_action_in_flight_on_its_machine(
    services: Any, service: ReplayService, agent: FakeAgent, caplog: pytest.LogCaptureFixture
) -> None:
    services.replay, services.image_work = service, ImageWork(2)
    rid = await service.start(steps=steps(2), competence="c", version=1, machine_id="pc-1")
    agent.faults.add("heartbeat")
    assert await agent.step() == "running_long"  # started, not reported: in flight
    assert agent.pending_start is not None
    caplog.set_level(logging.INFO, logger="rpa_mcp.replay")
    await _resolve(services, frozenset({"agent"}), "pc-1")
    events = _resolve_events(caplog)
    assert [e["event"] for e in events] == ["resolve_entry", "resolve_exit"]
    assert all(e["replay_id"] == rid and e["action_id"] == agent.pending_start.action_id for e in events)


async def test_a_resolution_with_nothing_in_flight_or_by_another_role_names_no_action(
    services: Any, service: ReplayService, agent: FakeAgent, caplog: pytest.LogCaptureFixture
) -> None:
    services.replay, services.image_work = service, ImageWork(2)
    caplog.set_level(logging.INFO, logger="rpa_mcp.replay")
    await _resolve(services, frozenset({"agent"}), "pc-1")  # no replay on the machine
    await service.start(steps=steps(2), competence="c", version=1, machine_id="pc-1")
    agent.faults.add("heartbeat")
    assert await agent.step() == "running_long"
    await _resolve(services, frozenset({"operator"}), "pc-1")  # a person's client, not the agent
    events = _resolve_events(caplog)
    assert len(events) == 4 and all(e.get("replay_id") is None and e.get("action_id") is None for e in events)
