"""Replay operations for people and LLM clients: start/pause/resume/cancel/answer a supervised
replay, and its status. Starting is in `replay_start`, pauses and their answers in `replay_pauses`, the
models in `replay_models`; what the desktop agent calls is in `ops/replay_agent.py`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rpa_mcp.ops.registry import Http, OpContext, Operation, Resource
from rpa_mcp.ops.replay_models import (
    ListReplaysInput,
    ListReplaysOutput,
    ReplayIdInput,
    ReplayStatusOutput,
    ReplaySummary,
    service_of,
)
from rpa_mcp.ops.replay_pauses import ANSWER_PAUSE, CANCEL_REPLAY, PAUSE_REPLAY, RESUME_REPLAY
from rpa_mcp.ops.replay_start import START_REPLAY
from rpa_mcp.ops.replay_wait import ReplayStatusInput, wait_for_next
from rpa_mcp.ops.scope import replay_owners

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services


async def get_replay_status(ctx: OpContext, args: ReplayStatusInput) -> ReplayStatusOutput:
    service = service_of(ctx)
    status = await wait_for_next(ctx, args.replay_id, args.wait_s, lambda: service.status(args.replay_id))
    return ReplayStatusOutput.model_validate(status)


async def list_replays(ctx: OpContext, args: ListReplaysInput) -> ListReplaysOutput:
    # (dispatch keeps a machine-bound token's rows only; asking the store for those gives it `limit` of them)
    rows = service_of(ctx).store.list_replays(
        states=[args.state] if args.state else None, limit=args.limit, machines=ctx.caller.machines
    )
    return ListReplaysOutput(
        replays=[ReplaySummary.model_validate({k: r[k] for k in ReplaySummary.model_fields}) for r in rows]
    )


# --- resource ---------------------------------------------------------------------------------------
async def _replay_resource(services: Services, replay_id: str) -> str:
    status = services.replay.status(replay_id, with_crops=False)
    return json.dumps(status, ensure_ascii=False, default=str, indent=1)


async def _evidence_resource(services: Services, replay_id: str) -> str:
    bundle = services.replay.evidence_bundle(replay_id)
    return json.dumps(bundle, ensure_ascii=False, default=str, indent=1)


async def _read_replay(ctx: OpContext, args: ReplayIdInput) -> set[str | None]:
    return await replay_owners(ctx.services, args.replay_id)


OPERATIONS: tuple[Operation, ...] = (
    START_REPLAY,
    Operation(
        name="get_replay_status",
        title="Replay status",
        description="State of a replay, its current action, every action's verdict and evidence crops, and why it "
        "is paused with what a person can do. With wait_s it answers at the next step, pause or end.",
        input=ReplayStatusInput,
        output=ReplayStatusOutput,
        risk="read",
        handler=get_replay_status,
        idempotent=True,
        reads=_read_replay,
        http=(Http("GET", "/api/v1/replay/{replay_id}"),),
    ),
    Operation(
        name="list_replays",
        title="List replays",
        description="Recent replays, newest first.",
        input=ListReplaysInput,
        output=ListReplaysOutput,
        risk="read",
        handler=list_replays,
        idempotent=True,
        rows="replays",
    ),
    PAUSE_REPLAY,
    CANCEL_REPLAY,
    RESUME_REPLAY,
    ANSWER_PAUSE,
)

RESOURCES = (
    Resource(
        "rpa://replays/{replay_id}",
        "replay",
        "A replay's status (state, actions, verdicts, pause reason) as JSON.",
        "application/json",
        _replay_resource,
        owners=replay_owners,
    ),
    Resource(
        "rpa://replays/{replay_id}/evidence",
        "replay-evidence",
        "A replay's evidence bundle (per step: phase timings, verdicts, checkers, text read back, crops by "
        "SHA-256), its digest now and the digest recorded in the audit chain when the run ended (intact: equal).",
        "application/json",
        _evidence_resource,
        owners=replay_owners,
    ),
)
