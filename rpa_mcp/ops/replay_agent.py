"""What the desktop agent calls during a replay (REST only): the long poll, receipt/start acks,
heartbeats and results; plus target resolution (also offered to LLM clients).

REST adapter contract (see docs/replay-wire-contract.md):
- `protocol_version` of every agent input is filled from the `X-Replay-Protocol-Version`
  header (absent -> 1); the agent never sends that field itself;
- the `/api/v1/replay/next` route answers the action object itself as the body (no
  envelope), and `204 No Content` when the output has `action = null`; the generic
  `/api/v1/tools/replay_next` route keeps the `{"action": ...}` output of the operation.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from rpa_mcp.identity import Caller
from rpa_mcp.ops.common import ImageArg, replay_machines, with_images
from rpa_mcp.ops.registry import Http, OpContext, Operation, StrictModel, Surface
from rpa_mcp.ops.replay_models import service_of
from rpa_mcp.replay.occlusion import StackedWindow, occluded
from rpa_mcp.replay.resolve import Resolution
from rpa_mcp.replay.search_regions import recorded_position
from rpa_mcp.replay.window_frame import in_window_frame
from rpa_mcp.replay.wire import (
    ActionResult,
    Heartbeat,
    NextActionRequest,
    NextActionResponse,
    ReceiptAck,
    ReportAck,
    StartAck,
)
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.marks import Mark, learned_mark, mark_beside

AGENT = frozenset({"agent"})
MAX_SHIFT = 16384  # pixels: no screen is taller
REST: frozenset[Surface] = frozenset({"rest"})


class StackedWindowArg(StrictModel):
    """A window on screen as the agent reports it, with its box."""

    title: str | None = Field(None, max_length=1000, description="Its title.")
    process: str | None = Field(None, max_length=260, description="Its executable.")
    box: list[int] | None = Field(
        None, min_length=4, max_length=4, description="[x, y, w, h] on the screen, pixels (None: unknown)."
    )


class ResolveTargetInput(StrictModel):
    image: ImageArg = Field(description="Current screenshot.")
    target_spec: dict[str, Any] = Field(
        description="label/by_text, rel_x/rel_y (or x_pct/y_pct) recorded position, bbox, anchor_png_base64, "
        "resolve_order, window_title, uia{x,y,score}; check_state=true also reads the check box (radio button) "
        "beside the label; with mark{kind,side,gap,size} (the mark the step was learned with: box or radio, its "
        "side of the label, the background between them and its size, in text heights) only that mark is read; "
        "opened_list [x, y, w, h] (shares of the frame: the list a drop-down opened, as the agent saw it change) "
        "reads the label in that list only and accepts it only inside it."
    )
    window_title: str | None = Field(None, max_length=1000, description="Foreground window title (target memory).")
    windows: list[StackedWindowArg] = Field(
        default_factory=list,
        max_length=64,
        description="The windows on screen, top-most first, with their boxes: a target recorded in a window that "
        "moved or was resized is looked for in its window's new frame; a target the top-most window at its point "
        "does not belong to is covered (resolved=false, method=window_occluded, naming the covering window).",
    )
    content_shift_y: int = Field(
        0,
        ge=-MAX_SHIFT,
        le=MAX_SHIFT,
        description="Pixels the content of the target's window moved down since the step's screen (negative: up), "
        "as its agent measured it after scrolling to bring the target into view: the target is also looked for "
        "where that moved the recorded position, and the drift guard accepts a hit near either. 0: not scrolled.",
    )
    machine_id: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="The workstation the screenshot comes from: its own target memory is read (another's never). "
        "A token bound to one workstation defaults to it; without a workstation the memory is not used.",
    )


class ResolveTargetOutput(StrictModel):
    resolved: bool = Field(description="False when nothing passed the quality guard.")
    x: int | None = Field(None, description="Pixel X to act at.")
    y: int | None = Field(None, description="Pixel Y to act at.")
    method: str = Field(
        description="Method that resolved, or rejected_low_score_*/rejected_drift_*/not_found, or identity_mismatch "
        "(a record-selecting target where another record, or an unreadable line, is: never click it), or "
        "identity_ambiguous (more than one row reads that record: never click any), or "
        "window_occluded (another window covers the target: never click it)."
    )
    score: float | None = Field(None, description="Score of the method (0..1).")
    reason: str | None = Field(None, description="Why it was rejected, when it was.")
    from_memory: bool = Field(False, description="The target memory answered.")
    tried: list[dict[str, Any]] = Field(default_factory=list, description="Each method tried and what it found.")
    elapsed_ms: float = Field(0.0, description="Time spent resolving.")
    checked: bool | None = Field(
        None,
        description="With check_state=true in the spec: whether the check box beside the label found is ticked "
        "(the radio button selected), read from the pixels; null when it cannot be told (never guessed), or when "
        "the spec's learned mark is not the one read (another kind, side, distance or size): not the step's mark.",
    )
    mark: Literal["box", "radio"] | None = Field(
        None,
        description="With check_state=true in the spec: the kind of mark read beside the label, box (a check box: "
        "a click flips it) or radio (a radio button: a click selects it, never clears it); null when no mark was "
        "read, or none like the spec's learned mark. An agent never clicks a selected radio button to clear it.",
    )


# --- handlers --------------------------------------------------------------------------------------
def memory_machine(caller: Caller, named: str | None) -> str | None:
    """Whose target memory a resolution reads: the machine named (a bound token's own: `reads` refused
    the others), else the only machine the token is bound to, else none (the memory is not used)."""
    if named:
        return named
    bound = caller.machines
    return next(iter(bound)) if bound is not None and len(bound) == 1 else None


async def _memory_reads(ctx: OpContext, args: ResolveTargetInput) -> set[str]:
    """The memory of the machine named is that machine's data (ops/scope.py)."""
    return {args.machine_id} if args.machine_id else set()


async def resolve_target(ctx: OpContext, args: ResolveTargetInput) -> ResolveTargetOutput:
    service = service_of(ctx)
    machine = memory_machine(ctx.caller, args.machine_id)

    stacked = [_stacked(w) for w in args.windows]
    # the agent resolves for the action in flight on its machine: the resolver's log lines name it
    flight = service.in_flight(machine) if machine and ctx.caller.has_any(AGENT) else None
    replay_id, action_id = flight if flight is not None else (None, None)

    recorded: list[tuple[int, int] | None] = [None]  # the recorded point in its window's frame now (pixels)

    def work(image: np.ndarray) -> tuple[Resolution, Mark | None]:
        # the window moved, the agent scrolled its content
        spec = in_window_frame(args.target_spec, stacked, (image.shape[1], image.shape[0]), args.content_shift_y)
        point = recorded_position(spec)
        recorded[0] = (round(point[0] * image.shape[1]), round(point[1] * image.shape[0])) if point else None
        res = service.resolver.resolve(
            image, spec, window_title=args.window_title, machine_id=machine, replay_id=replay_id, action_id=action_id
        )
        if args.target_spec.get("check_state") is not True or not res.resolved or res.box is None:
            return res, None
        return res, _mark_read(image, res.box, args.target_spec)

    res, mark = await with_images(ctx, work, (args.image, "image"))
    spec_title = args.target_spec.get("window_title")
    res = occluded(res, stacked, spec_title if isinstance(spec_title, str) else None, recorded[0])
    return ResolveTargetOutput(
        resolved=res.resolved,
        x=res.x,
        y=res.y,
        method=res.method,
        score=res.score,
        reason=res.reason,
        from_memory=res.from_memory,
        tried=res.tried,
        elapsed_ms=res.elapsed_ms,
        checked=mark.state if mark is not None else None,
        mark=mark.kind if mark is not None else None,
    )


def _mark_read(image: np.ndarray, line: BBox, spec: dict[str, Any]) -> Mark | None:
    """The mark beside the label; with the mark the step was learned with, only that one (a spec's learned mark
    that is not one reads nothing: the state is never taken from a mark the step was not learned with)."""
    if "mark" not in spec:
        return mark_beside(image, line)  # a step learned before marks were kept: any mark beside the label
    try:
        learned = learned_mark(spec["mark"])
    except ValueError:
        return None
    return mark_beside(image, line, learned)


def _stacked(arg: StackedWindowArg) -> StackedWindow:
    box = (arg.box[0], arg.box[1], arg.box[2], arg.box[3]) if arg.box else None
    return StackedWindow(arg.title, arg.process, box)


# --- agent transport ------------------------------------------------------------------------------
async def replay_next(ctx: OpContext, args: NextActionRequest) -> NextActionResponse:
    action = await service_of(ctx).next_action(args.machine_id, wait=args.wait, protocol_version=args.protocol_version)
    return NextActionResponse(action=action)


async def replay_receipt(ctx: OpContext, args: ReceiptAck) -> ReportAck:
    return await service_of(ctx).receipt(args)


async def replay_start(ctx: OpContext, args: StartAck) -> ReportAck:
    return await service_of(ctx).started(args)


async def replay_heartbeat(ctx: OpContext, args: Heartbeat) -> ReportAck:
    return await service_of(ctx).heartbeat(args)


async def replay_result(ctx: OpContext, args: ActionResult) -> ReportAck:
    return await service_of(ctx).report(args)


async def _poll_machine(ctx: OpContext, args: NextActionRequest) -> set[str]:
    return {args.machine_id}


async def _attempt_machines(ctx: OpContext, args: Any) -> set[str]:
    """The machine the agent names, and the one the replay runs on (an ack for another machine's action)."""
    named = {args.machine_id} if args.machine_id else set()
    return named | await replay_machines(ctx, args.replay_id)


def _agent_op(name: str, title: str, description: str, model: type[BaseModel], handler: Any, path: str) -> Operation:
    """An acknowledgement endpoint of the desktop agent: REST only, agent role, answered with a ReportAck."""
    return Operation(
        name=name,
        title=title,
        description=description,
        input=model,
        output=ReportAck,
        risk="draft",
        handler=handler,
        roles=AGENT,
        surfaces=REST,
        http=(Http("POST", path),),
        idempotent=True,
        machines=_attempt_machines,
    )


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        name="resolve_target",
        title="Resolve a target on a screenshot",
        description="Find where to act for a target spec (memory, OCR, template, VLM) behind a quality guard: "
        "resolved=false with method rejected_low_score_*/rejected_drift_* when unsure.",
        input=ResolveTargetInput,
        output=ResolveTargetOutput,
        risk="read",
        handler=resolve_target,
        idempotent=True,
        reads=_memory_reads,
        http=(Http("POST", "/api/v1/resolve_target"),),
    ),
    Operation(
        name="replay_next",
        title="Agent: next action (long poll)",
        description="Desktop agent long poll: the next action for this machine as soon as one is ready; HTTP 204 "
        "when none within `wait` seconds.",
        input=NextActionRequest,
        output=NextActionResponse,
        risk="draft",
        handler=replay_next,
        machines=_poll_machine,
        roles=AGENT,
        surfaces=REST,
        http=(Http("GET", "/api/v1/replay/next", body_field="action"),),
    ),
    _agent_op(
        "replay_receipt",
        "Agent: receipt ack",
        "The agent journaled the action RECEIVED.",
        ReceiptAck,
        replay_receipt,
        "/api/v1/replay/receipt",
    ),
    _agent_op(
        "replay_start",
        "Agent: start ack",
        "The agent is about to inject input; execute only when the answer says proceed=true.",
        StartAck,
        replay_start,
        "/api/v1/replay/start",
    ),
    _agent_op(
        "replay_heartbeat",
        "Agent: heartbeat",
        "A long action is still running.",
        Heartbeat,
        replay_heartbeat,
        "/api/v1/replay/heartbeat",
    ),
    _agent_op(
        "replay_result",
        "Agent: action result",
        "The outcome of one attempt, with before/after screenshots (re-send until acknowledged).",
        ActionResult,
        replay_result,
        "/api/v1/replay/result",
    ),
)
