"""Pausing, cancelling, resuming and answering a paused replay: each answer bound to the pause it answers."""

from __future__ import annotations

from typing import Any

from rpa_mcp.errors import NotFound, PreconditionFailed
from rpa_mcp.ops.common import load_image, replay_machines
from rpa_mcp.ops.registry import OpContext, Operation, Preview
from rpa_mcp.ops.replay_models import (
    AnswerPauseInput,
    ReplayIdInput,
    ReplayStateOutput,
    ResumeReplayInput,
    service_of,
)
from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service import ReplayService


def _state_out(service: ReplayService, replay_id: str) -> ReplayStateOutput:
    st = service.status(replay_id, with_crops=False)
    return ReplayStateOutput(
        replay_id=replay_id,
        state=st["state"],
        outcome=st["outcome"],
        pause_reason=st["pause_reason"],
        what_you_can_do=st["what_you_can_do"],
    )


async def pause_replay(ctx: OpContext, args: ReplayIdInput) -> ReplayStateOutput:
    service = service_of(ctx)
    await service.pause(args.replay_id, by=ctx.caller.subject)
    return _state_out(service, args.replay_id)


async def cancel_replay(ctx: OpContext, args: ReplayIdInput) -> ReplayStateOutput:
    service = service_of(ctx)
    await service.cancel(args.replay_id, by=ctx.caller.subject)
    return _state_out(service, args.replay_id)


def _require_paused(service: ReplayService, replay_id: str) -> ReplayRow:
    replay = service.store.get_replay(replay_id)
    if replay is None:
        raise NotFound(f"no replay {replay_id!r}", replay_id=replay_id)
    if replay.state != m.PAUSED:
        raise PreconditionFailed(f"replay {replay_id} is {replay.state}, not paused", state=replay.state)
    return replay


def _step(action: ActionRow) -> str:
    return f"step {action.step_index} '{action.intent or action.action_type}'"


def _paused_action(service: ReplayService, replay_id: str, replay: ReplayRow) -> ActionRow | None:
    """The action a pause answer is about: the paused one, even once final (abandoned after its
    attempts, a retry sends a copy of it), else the first action still open."""
    paused_id = (replay.pause_detail or {}).get("action_id")
    paused = service.store.get_action(replay_id, paused_id) if paused_id else None
    if paused is not None and paused.state in m.TERMINAL_ACTION_STATES:
        return paused
    return service.store.first_open_action(replay_id)


def _pause_binding(replay_id: str, replay: ReplayRow, **open_action: Any) -> dict[str, Any]:
    """What an approved resume/answer is bound to: the same replay, paused for the same reason, at the same action."""
    return {"replay_id": replay_id, "state": replay.state, "pause_reason": replay.pause_reason, **open_action}


async def _resume_preview(ctx: OpContext, args: ResumeReplayInput) -> Preview:
    service = service_of(ctx)
    replay = _require_paused(service, args.replay_id)
    current = service.store.first_open_action(args.replay_id)
    if current is not None and (current.state == m.HELD or (current.state == m.ORPHAN and not current.resend_allowed)):
        raise PreconditionFailed(
            f"action {current['action_id']} needs an answer first: use answer_pause "
            "(retry, skip, click:<label> or abort)"
        )
    nxt = f"next: {_step(current)}" if current else "no action left: the replay will complete"
    next_action = current.action_id if current else None
    return Preview(
        summary=f"Resume replay {args.replay_id} of '{replay['competence']}' v{replay['version']} on machine "
        f"{replay['machine_id']} (paused: {replay['pause_reason']}); {nxt}.",
        details={
            "pause_reason": replay.pause_reason,
            "machine_id": replay.machine_id,
            "next_action": next_action,
        },
        binding=_pause_binding(args.replay_id, replay, next_action=next_action),
    )


async def resume_replay(ctx: OpContext, args: ResumeReplayInput) -> ReplayStateOutput:
    service = service_of(ctx)
    screenshot = await load_image(ctx, args.screenshot, "screenshot") if args.screenshot else None
    await service.resume(args.replay_id, screenshot=screenshot, window_title=args.window_title, by=ctx.caller.subject)
    return _state_out(service, args.replay_id)


async def _answer_preview(ctx: OpContext, args: AnswerPauseInput) -> Preview:
    service = service_of(ctx)
    replay = _require_paused(service, args.replay_id)
    current = _paused_action(service, args.replay_id, replay)
    if args.decision.startswith("click:") and replay.pause_reason != m.UNEXPECTED_DIALOG:
        raise PreconditionFailed(f"click:<label> answers a dialog pause; this pause is {replay['pause_reason']}")
    what = {
        "skip": "skip the paused action and continue",
        "retry": "send the paused action again",
        "abort": "cancel the replay",
    }.get(args.decision, f"click the dialog button '{args.decision[6:]}' then continue")
    action = _step(current) if current else "-"
    action_id = current.action_id if current else None
    return Preview(
        summary=f"Replay {args.replay_id} of '{replay['competence']}' on machine {replay['machine_id']} is paused "
        f"({replay['pause_reason']}) at {action}: {what}.",
        details={
            "pause_reason": replay.pause_reason,
            "pause_detail": replay.pause_detail,
            "action_id": action_id,
        },
        binding=_pause_binding(
            args.replay_id, replay, action_id=action_id, attempt_id=current.attempt_id if current else None
        ),
    )


async def answer_pause(ctx: OpContext, args: AnswerPauseInput) -> ReplayStateOutput:
    service = service_of(ctx)
    await service.answer(args.replay_id, args.decision, by=ctx.caller.subject)
    return _state_out(service, args.replay_id)


async def _replay_machine(ctx: OpContext, args: ReplayIdInput) -> set[str]:
    return await replay_machines(ctx, args.replay_id)


PAUSE_REPLAY = Operation(
    name="pause_replay",
    title="Pause a replay",
    description="Stop dispatching after the action in flight (never gated). "
    "Resume with propose_resume_replay then apply_resume_replay.",
    input=ReplayIdInput,
    output=ReplayStateOutput,
    risk="draft",
    handler=pause_replay,
    machines=_replay_machine,
    idempotent=True,
)


CANCEL_REPLAY = Operation(
    name="cancel_replay",
    title="Cancel a replay",
    description="Stop a replay for good (never gated). The action in flight, if any, is not interrupted; its "
    "report is recorded when it comes.",
    input=ReplayIdInput,
    output=ReplayStateOutput,
    risk="draft",
    handler=cancel_replay,
    machines=_replay_machine,
    idempotent=True,
)


RESUME_REPLAY = Operation(
    name="resume_replay",
    title="Resume a paused replay",
    description="Continue a paused replay. After a human takeover the current screen is re-checked against "
    "what the next action expects first.",
    input=ResumeReplayInput,
    output=ReplayStateOutput,
    risk="act",
    handler=resume_replay,
    preview=_resume_preview,
)


ANSWER_PAUSE = Operation(
    name="answer_pause",
    title="Answer a paused replay",
    description="Decide for a paused action: click:<button label> (a dialog), skip, retry or abort.",
    input=AnswerPauseInput,
    output=ReplayStateOutput,
    risk="act",
    handler=answer_pause,
    preview=_answer_preview,
)
