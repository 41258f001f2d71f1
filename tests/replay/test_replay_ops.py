"""Replay operations over the registry: propose/apply binding, status, agent ops are REST-only."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from rpa_mcp.ops import replay as ops
from rpa_mcp.ops import replay_agent as agent_ops_module
from rpa_mcp.ops import replay_models as models
from rpa_mcp.ops import replay_pauses as pauses
from rpa_mcp.ops import replay_start as start
from rpa_mcp.ops.registry import Caller, OpContext
from rpa_mcp.replay import model as m
from rpa_mcp.replay.wire import NextActionRequest
from tests.replay.kit import drain

pytestmark = pytest.mark.anyio


@dataclass
class Loaded:
    name: str = "Ouvrir imagerie"
    slug: str = "ouvrir-imagerie"
    status: str = "candidate"
    version: int = 3
    sha256: str = "abc"
    machine_id: str | None = "pc-1"
    workflow: dict[str, Any] = field(
        default_factory=lambda: {
            "steps": [
                {
                    "index": 0,
                    "intent": "Click 'Imagerie'",
                    "action_type": "switch_tab",
                    "target": {"label": "Imagerie"},
                },
                {"index": 1, "intent": "Type {{who}}", "action_type": "type_text", "params": {"text": "{{who}}"}},
            ]
        }
    )


class Store:
    def __init__(self) -> None:
        self.loaded = Loaded()

    def get(self, name: str, version: int | None = None) -> Loaded:
        return self.loaded


@pytest.fixture
def ctx(services, service):
    services.competences = Store()
    services.replay = service
    return OpContext(caller=Caller("op", frozenset({"operator"})), services=services)


async def test_start_replay_preview_binds_the_competence_version_and_changes_nothing(ctx, service):
    args = models.StartReplayInput(competence="Ouvrir imagerie", params={"who": "Dupont"})
    await agent_ops_module.replay_next(ctx, NextActionRequest(machine_id="pc-1", wait=0))  # the workstation polls
    preview = await start._start_preview(ctx, args)
    assert preview.binding == {"competence": "ouvrir-imagerie", "version": 3, "sha256": "abc"}
    assert "version 3" in preview.summary and "pc-1" in preview.summary
    assert service.store.list_replays() == []
    out = await start.start_replay(ctx, args)
    assert out.status == m.RUNNING and out.version == 3
    nxt = await agent_ops_module.replay_next(ctx, NextActionRequest(machine_id="pc-1", wait=0, protocol_version=2))
    # the workstation never reported a screen: it is observed (no input) before the first step is sent
    assert nxt.action is not None and nxt.action.action_type == "screenshot_evidence"
    status = await ops.get_replay_status(ctx, ops.ReplayStatusInput(replay_id=out.replay_id))
    assert status.current_action.state == m.DISPATCHED and status.steps_total == 2
    assert service.store.actions(out.replay_id)[2]["params"]["text"] == "Dupont"
    body = json.loads(await ops._replay_resource(ctx.services, replay_id=out.replay_id))
    assert body["state"] == m.RUNNING


async def test_a_poll_with_nothing_ready_returns_no_action_for_a_204(ctx):
    out = await agent_ops_module.replay_next(ctx, NextActionRequest(machine_id="pc-9", wait=0))
    assert out.action is None


async def test_the_answer_preview_names_the_paused_action_even_once_it_is_final(ctx, service, agent, clock):
    service.config = dataclasses.replace(service.config, preflight=False)  # about the answer, not the workstation
    out = await start.start_replay(ctx, models.StartReplayInput(competence="Ouvrir imagerie", params={"who": "Dupont"}))
    agent.result_for["switch_tab"] = {"executed": False, "success": False, "error": "target_not_resolved",
                                      "error_retryable": False}  # fmt: skip
    await drain(service, [agent], clock)
    first = service.store.actions(out.replay_id)[0]
    assert first.state == m.ABANDONED and service.store.get_replay(out.replay_id).state == m.PAUSED
    preview = await pauses._answer_preview(ctx, models.AnswerPauseInput(replay_id=out.replay_id, decision="retry"))
    assert "step 0 'Click 'Imagerie''" in preview.summary and "Type" not in preview.summary, preview.summary
    assert preview.details["action_id"] == first.action_id


async def test_answer_pause_validates_the_decision():
    from rpa_mcp.errors import InvalidInput

    with pytest.raises(InvalidInput):
        models.AnswerPauseInput(replay_id="r", decision="rm -rf")
    assert models.AnswerPauseInput(replay_id="r", decision=" click:Oui ").decision == "click:Oui"


def test_agent_operations_are_rest_only_for_the_agent_role():
    agent_ops = {op.name: op for op in agent_ops_module.OPERATIONS if op.name.startswith("replay_")}
    assert set(agent_ops) == {"replay_next", "replay_receipt", "replay_start", "replay_heartbeat", "replay_result"}
    for op in agent_ops.values():
        assert op.surfaces == frozenset({"rest"}) and op.allowed_roles == frozenset({"agent"})
    paths = {h.path for op in agent_ops_module.OPERATIONS for h in op.http}
    assert {"/api/v1/replay/next", "/api/v1/replay/result", "/api/v1/resolve_target"} <= paths


def test_the_registry_exposes_replay_tools_with_their_contract_names():
    from rpa_mcp.ops import build_registry

    names = set(build_registry().operations)
    for name in (
        "propose_start_replay",
        "apply_start_replay",
        "get_replay_status",
        "pause_replay",
        "cancel_replay",
        "propose_resume_replay",
        "apply_resume_replay",
        "propose_answer_pause",
        "apply_answer_pause",
        "resolve_target",
    ):
        assert name in names


def test_the_published_json_schemas_match_the_wire_models():
    from pathlib import Path

    from rpa_mcp.replay.wire import json_schemas

    folder = Path(__file__).resolve().parents[2] / "docs" / "schemas"
    for name, schema in json_schemas().items():
        assert json.loads((folder / name).read_text(encoding="utf-8")) == schema, f"regenerate docs/schemas/{name}"
