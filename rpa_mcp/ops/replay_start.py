"""Starting a supervised replay: what the approver is shown (workstation, irreversible steps, read-back,
typed text), then the start itself, after the workstation is checked again."""

from __future__ import annotations

from typing import Any

from rpa_mcp.competences import LoadedCompetence
from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops.registry import Http, OpContext, Operation, Preview
from rpa_mcp.ops.replay_models import StartReplayInput, StartReplayOutput, notify_changed, service_of
from rpa_mcp.replay.outcomes import IRREVERSIBLE
from rpa_mcp.replay.readback import plan as readback_plan


def _load_competence(ctx: OpContext, args: StartReplayInput) -> LoadedCompetence:
    return ctx.services.competences.get(args.competence, version=args.version)


def _machine(args: StartReplayInput, loaded: Any) -> str:
    machine = (
        args.machine_id
        or getattr(loaded, "machine_id", None)
        or ((loaded.workflow.get("source") or {}).get("machine_id") if isinstance(loaded.workflow, dict) else None)
    )
    if not machine:
        raise InvalidInput(
            "name the machine to replay on (machine_id): the competence records none", field="machine_id"
        )
    return str(machine)


async def _start_preview(ctx: OpContext, args: StartReplayInput) -> Preview:
    loaded = _load_competence(ctx, args)
    machine = _machine(args, loaded)
    steps = loaded.workflow.get("steps") or []
    declared = loaded.workflow.get("parameters") or []
    planned = service_of(ctx).plan(steps, args.params, declared)  # validates every step, changes nothing
    spec = loaded.workflow.get("readback")  # outside RPA_READBACK_URLS: refused now, as on apply
    readback = readback_plan(spec, args.params, service_of(ctx).config.readback_urls) if spec else None
    # the workstation is connected and shows what the first step needs, or nothing is done (checked again on apply)
    readiness = service_of(ctx).preflight(machine, planned)
    intents = [str(s.get("intent", s.get("action_type"))) for s in steps[:8]]
    typed = [
        f"step {a['step_index']}: {'a secret (hidden)' if a['params'].get('secret') else repr(_capped(a['params']))}"
        for a in planned
        if a["action_type"] == "type_text"
    ]
    irreversible = [f"{a['step_index']}. {a['intent']}" for a in planned if a["expected"]["step_class"] == IRREVERSIBLE]
    uncheckable = [f"{a['step_index']}. {a['intent']}" for a in planned if a["expected"]["uncheckable"]]
    summary = (
        f"Replay competence '{loaded.name}' version {loaded.version} ({loaded.status}, {len(steps)} "
        f"steps) on machine {machine}, supervised: every action is verified and the replay pauses when unsure."
        + (f" Irreversible steps: {'; '.join(irreversible)}." if irreversible else "")
        + (f" Once completed, the record is read back from {readback['url']}." if readback else "")
        + (f" Outcome not checkable on screen (the run ends completed_unverified at best): {'; '.join(uncheckable)}."
           if uncheckable else "")
        + (f" It will type: {'; '.join(typed)}." if typed else "")
    )  # fmt: skip
    return Preview(
        summary=summary,
        details={
            "competence": loaded.name,
            "version": loaded.version,
            "status": loaded.status,
            "workstation": readiness,
            "irreversible_steps": irreversible,
            "uncheckable_steps": uncheckable,
            "readback": readback,
            "steps": len(steps),
            "first_steps": intents,
            "machine_id": machine,
            "params": sorted(args.params),
            "parameters": [
                {"name": p["name"], "value": _shown(p["name"], args.params.get(p["name"]))} for p in declared
            ],
            "typed": [
                {
                    "step": a["step_index"],
                    "intent": a["intent"],
                    "text": "••••••••" if a["params"].get("secret") else a["params"].get("text"),
                }
                for a in planned
                if a["action_type"] == "type_text"
            ],
        },
        binding={"competence": loaded.slug, "version": loaded.version, "sha256": loaded.sha256},
    )


def _capped(params: dict[str, Any], limit: int = 80) -> str:
    text = " ".join(str(params.get("text") or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(name: str, value: Any) -> Any:
    """A parameter's value as the preview shows it (a secret never)."""
    return "••••••••" if name.startswith("secret:") else value


async def start_replay(ctx: OpContext, args: StartReplayInput) -> StartReplayOutput:
    loaded = _load_competence(ctx, args)
    machine = _machine(args, loaded)
    steps = loaded.workflow.get("steps") or []
    service = service_of(ctx)
    planned = service.plan(steps, args.params, loaded.workflow.get("parameters") or [])
    replay_id = await service.start(
        steps=steps,
        competence=loaded.name,
        version=loaded.version,
        machine_id=machine,
        params=args.params,
        created_by=ctx.caller.subject,
        declared=loaded.workflow.get("parameters") or [],
        readback=loaded.workflow.get("readback"),
        # its last screen is old, or does not show what the first step needs: observed again first
        observe_first=bool(service.preflight(machine, planned).get("observe_first")),
    )
    notify_changed(ctx, replay_id)
    return StartReplayOutput(
        replay_id=replay_id,
        status=started.state if (started := service.store.get_replay(replay_id)) else "running",
        competence=loaded.name,
        version=loaded.version,
        steps=len(steps),
        machine_id=machine,
        next_step=f"Follow it with get_replay_status(replay_id='{replay_id}') (or read rpa://replays/{replay_id}).",
    )


START_REPLAY = Operation(
    name="start_replay",
    title="Start a supervised replay",
    description="Replay a competence on a machine's desktop, one verified action at a time; it pauses for a "
    "person whenever it is not sure. Returns the replay id at once; follow it with get_replay_status.",
    input=StartReplayInput,
    output=StartReplayOutput,
    risk="act",
    handler=start_replay,
    preview=_start_preview,
    http=(Http("POST", "/api/v1/replay/start_replay"),),
)
