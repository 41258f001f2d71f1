"""Shadow operations: machines and sessions, observe (start/stop), understanding, feedback,
build, the agent's event stream, and persisting the result as a candidate competence
(`shadow_persist`; the understanding's output models are in `shadow_understanding`, the person's
corrections in `shadow_feedback`).

Draft operations (start/stop/feedback/build) change only the session's understanding and
need no confirmation; persisting writes a competence file, so it goes through
propose/apply with a preview built from the session on the server.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

import anyio.to_thread
from pydantic import Field, model_validator

from rpa_mcp.errors import RpaError
from rpa_mcp.ops.common import SCREENSHOT_URI_PREFIX, run_image_work, session_machines
from rpa_mcp.ops.registry import Http, NoInput, OpContext, Operation, Resource, StrictModel
from rpa_mcp.ops.scope import screenshot_owners, session_owners
from rpa_mcp.ops.shadow_feedback import FeedbackInput, FeedbackOut, shadow_feedback
from rpa_mcp.ops.shadow_persist import PersistInput, PersistOut, persist_competence, preview_persist_competence
from rpa_mcp.ops.shadow_understanding import SESSION_DESC, StepOut, UnderstandingOut
from rpa_mcp.shadow.events import MAX_BATCH

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services
    from rpa_mcp.shadow.service import ShadowService

SESSION_OPT_DESC = (
    "Shadow session id. Omit it to use the active session of the only connected machine "
    "(an error lists the machines when there are several)."
)


def _shadow(services: Services) -> ShadowService:
    return services.shadow


# --- list_machines / list_sessions ------------------------------------------------------------
class MachineInfo(StrictModel):
    machine_id: str = Field(description="The workstation's id.")
    first_seen: float = Field(description="First event received (server time, epoch seconds).")
    last_seen: float = Field(description="Last event received (server time, epoch seconds).")
    active_session_id: str | None = Field(description="Its most recent session that is not finalized.")


class MachinesOut(StrictModel):
    machines: list[MachineInfo] = Field(description="Machines that streamed events, most recently seen first.")


async def list_machines(ctx: OpContext, args: NoInput) -> MachinesOut:
    rows = await _shadow(ctx.services).list_machines_async()
    return MachinesOut(machines=[MachineInfo.model_validate(r) for r in rows])


class ListSessionsInput(StrictModel):
    machine_id: str | None = Field(None, max_length=128, description="Only this machine's sessions.")
    active_only: bool = Field(True, description="Only sessions that are not finalized.")


class SessionInfo(StrictModel):
    session_id: str = Field(description=SESSION_DESC)
    machine_id: str = Field(description="The workstation that streams it.")
    started_at: float = Field(description="First event received (server time).")
    last_event_at: float = Field(description="Last event received (server time).")
    events: int = Field(description="Events received.")
    finalized: bool = Field(description="Whether the session is over.")
    locale: str | None = Field(description="Language reported by the agent (fr/en), if any.")


class SessionsOut(StrictModel):
    sessions: list[SessionInfo] = Field(description="Sessions, most recent activity first.")


async def list_sessions(ctx: OpContext, args: ListSessionsInput) -> SessionsOut:
    rows = await anyio.to_thread.run_sync(_shadow(ctx.services).list_sessions, args.machine_id, args.active_only)
    return SessionsOut(sessions=[SessionInfo.model_validate(r) for r in rows])


# --- start / stop ----------------------------------------------------------------------------
class SessionOptInput(StrictModel):
    session_id: str | None = Field(None, max_length=128, description=SESSION_OPT_DESC)


class StartInput(SessionOptInput):
    language: Literal["fr", "en"] | None = Field(
        None,
        description="Language of the step intents (fr or en). Default: the agent's locale, else the language of "
        "the screen's window titles and labels.",
    )


class StartOut(StrictModel):
    status: Literal["shadow_started", "already_observing"] = Field(
        description="already_observing: nothing was reset, say so to the person."
    )
    session_id: str = Field(description=SESSION_DESC)
    message: str = Field(description="What to tell the person.")


async def shadow_start(ctx: OpContext, args: StartInput) -> StartOut:
    shadow = _shadow(ctx.services)
    return StartOut.model_validate(await anyio.to_thread.run_sync(shadow.start, args.session_id, args.language))


class StopOut(StrictModel):
    status: Literal["shadow_stopped"] = Field(description="Observation stopped.")
    session_id: str = Field(description=SESSION_DESC)
    steps_count: int = Field(description="How many steps were understood.")
    understanding: list[StepOut] = Field(description="The steps, to show the person with their confidences.")


async def shadow_stop(ctx: OpContext, args: SessionOptInput) -> StopOut:
    shadow = _shadow(ctx.services)
    return StopOut.model_validate(await anyio.to_thread.run_sync(shadow.stop, args.session_id))


# --- understanding ----------------------------------------------------------------------------
class UnderstandingInput(StrictModel):
    session_id: str = Field(max_length=128, description=SESSION_DESC)
    since_ts: float | None = Field(None, description="Only what changed since this server_time of an earlier call.")


def _understanding(services: Services, session_id: str, since_ts: float | None = None) -> dict[str, Any]:
    shadow = _shadow(services)
    data = shadow.understanding(session_id, since_ts)
    data["feedback_history"] = shadow.history(session_id)
    return data


async def get_understanding(ctx: OpContext, args: UnderstandingInput) -> UnderstandingOut:
    data = await anyio.to_thread.run_sync(_understanding, ctx.services, args.session_id, args.since_ts)
    return UnderstandingOut.model_validate(data)


# --- build ------------------------------------------------------------------------------------
class BuildInput(StrictModel):
    session_id: str = Field(max_length=128, description=SESSION_DESC)
    name: str = Field(min_length=1, max_length=200, description="Name of the workflow, in the person's words.")
    domain: str = Field("generic", min_length=1, max_length=100, description="Business domain.")
    require_all_validated: bool = Field(False, description="Refuse to build unless every step was validated.")


class BuildOut(StrictModel):
    status: Literal["workflow_built", "cancelled"] = Field(description="cancelled: the person cancelled everything.")
    session_id: str = Field(description=SESSION_DESC)
    workflow_ir: dict[str, Any] | None = Field(description="The workflow IR (name, domain, version, source, steps).")
    message: str | None = Field(None, description="Why there is no workflow, when cancelled.")


async def shadow_build(ctx: OpContext, args: BuildInput) -> BuildOut:
    shadow = _shadow(ctx.services)

    def run() -> dict[str, Any]:
        return shadow.build(args.session_id, args.name, args.domain, args.require_all_validated)

    await ctx.report_progress(0, 1, "building the workflow")
    built = await anyio.to_thread.run_sync(run)
    await ctx.report_progress(1, 1, "workflow built")
    return BuildOut.model_validate(built)


# --- ingestion (desktop agent) ------------------------------------------------------------------
class IngestInput(StrictModel):
    events: list[dict[str, Any]] = Field(
        max_length=MAX_BATCH,
        description="Events {session_id, machine_id, ts, type, ...}; a single event object is accepted as well.",
    )

    @model_validator(mode="before")
    @classmethod
    def _single_event(cls, data: Any) -> Any:
        if isinstance(data, dict) and "events" not in data:
            return {"events": [data]}
        return data


class IngestedSession(StrictModel):
    session_id: str = Field(description="Session of these events.")
    machine_id: str = Field(description="Machine that sent them.")
    new_session: bool = Field(description="Whether this batch registered the session.")
    accepted: int = Field(description="Events stored for this session.")
    observing: bool = Field(description="Whether the session's events are being turned into steps.")


class IngestOut(StrictModel):
    accepted: int = Field(description="Events stored (on disk before this answer).")
    duplicates: int = Field(description="Events ignored because their event_id was already stored.")
    sessions: list[IngestedSession] = Field(description="Per session.")


def audit_view(arguments: dict[str, Any]) -> dict[str, Any]:
    """What the audit log may keep of an ingest_events call: who sent which events, never what was typed.

    The raw body can hold a password typed in a field the server only recognises from the
    events before it (see rpa_mcp.shadow.masking); the events table keeps the masked form.
    Used as the `audit_args` of ingest_events.
    """
    raw = arguments.get("events", [arguments]) if isinstance(arguments, dict) else []
    events = raw if isinstance(raw, list) else []
    kept = ("session_id", "machine_id", "ts", "type", "event_id")
    return {
        "events": [{k: e[k] for k in kept if k in e} if isinstance(e, dict) else "?" for e in events[:MAX_BATCH]],
        "count": len(events),
    }


async def ingest_events(ctx: OpContext, args: IngestInput) -> IngestOut:
    shadow = _shadow(ctx.services)
    if any(isinstance(ev, dict) and ev.get("screenshot") for ev in args.events):  # decodes: one unit of image work
        return IngestOut.model_validate(await run_image_work(ctx, shadow.ingest, args.events))
    return IngestOut.model_validate(await anyio.to_thread.run_sync(shadow.ingest, args.events))


# --- resources --------------------------------------------------------------------------------
async def _session_owner(services: Services, session_id: str) -> set[str | None]:
    return await session_owners(services, [session_id])


async def _screenshot_owner(services: Services, screenshot_id: str) -> set[str | None]:
    return await screenshot_owners(services, [screenshot_id])


async def understanding_resource(services: Services, session_id: str) -> str:
    data = await anyio.to_thread.run_sync(_understanding, services, session_id, None)
    return json.dumps(data, ensure_ascii=False, indent=1)


async def events_resource(services: Services, session_id: str) -> str:
    events = await anyio.to_thread.run_sync(_shadow(services).events, session_id)
    return json.dumps({"session_id": session_id, "events": events}, ensure_ascii=False, indent=1)


async def screenshot_resource(services: Services, screenshot_id: str) -> bytes:
    data: bytes = await anyio.to_thread.run_sync(services.traces.get_screenshot, screenshot_id)
    return data


async def machines_resource(services: Services) -> str:
    rows = await _shadow(services).list_machines_async()
    return json.dumps({"machines": rows}, ensure_ascii=False, indent=1)


RESOURCES = (
    Resource(
        "rpa://sessions/{session_id}/understanding",
        "session-understanding",
        "A shadow session's steps, current step and notifications (updated as steps appear).",
        "application/json",
        understanding_resource,
        owners=_session_owner,
    ),
    Resource(
        "rpa://sessions/{session_id}/events",
        "session-events",
        "The events the agent streamed for a session (screenshots as rpa://screenshots/ references).",
        "application/json",
        events_resource,
        owners=_session_owner,
    ),
    Resource(
        "rpa://screenshots/{screenshot_id}",
        "screenshot",
        "A screenshot or anchor crop uploaded by the agent or kept by the observer (PNG, or JPEG as sent).",
        "image/png",
        screenshot_resource,
        owners=_screenshot_owner,
    ),
    Resource(
        "rpa://machines",
        "machines",
        "Machines that streamed events, with their active session.",
        "application/json",
        machines_resource,
        rows="machines",
    ),
)

DRAFT_ROLES = frozenset({"operator", "agent"})


# --- the machines a request acts for (a machine-bound agent token may act for its own only) ---------------
async def _events_machines(ctx: OpContext, args: IngestInput) -> set[str]:
    """Every machine the events claim, the machine of every session they write into, and of every
    screenshot they refer to (an earlier upload of another machine is not this one's to reuse)."""
    events = [ev for ev in args.events if isinstance(ev, dict)]
    claimed = {ev["machine_id"] for ev in events if isinstance(ev.get("machine_id"), str)}
    refs = {str(r).removeprefix(SCREENSHOT_URI_PREFIX) for ev in events if (r := ev.get("screenshot_ref"))}
    shots = {m or "an unknown machine" for m in await screenshot_owners(ctx.services, refs)} if refs else set()
    return claimed | shots | await session_machines(ctx, (ev.get("session_id") for ev in events))


async def _read_session(ctx: OpContext, args: UnderstandingInput) -> set[str | None]:
    return await session_owners(ctx.services, [args.session_id])


async def _session_machine(ctx: OpContext, args: Any) -> set[str]:
    session_id = getattr(args, "session_id", None)
    if session_id is None:  # resolved to the only connected machine's session, as the operation will
        try:
            session_id = await anyio.to_thread.run_sync(_shadow(ctx.services).resolve_session, None)
        except RpaError:
            return set()
    return await session_machines(ctx, [session_id])


OPERATIONS = (
    Operation(
        name="list_machines",
        title="List connected machines",
        description="Workstations whose desktop agent streamed events, with when they were last seen and their "
        "active session. Use it to find the session to observe.",
        input=NoInput,
        output=MachinesOut,
        risk="read",
        handler=list_machines,
        idempotent=True,
        rows="machines",
        http=(Http("GET", "/api/v1/traces/stream/machines"),),
    ),
    Operation(
        name="list_sessions",
        title="List recording sessions",
        description="Recording sessions of the desktop agents (active = not finalized), most recent first.",
        input=ListSessionsInput,
        output=SessionsOut,
        risk="read",
        handler=list_sessions,
        idempotent=True,
        rows="sessions",
        http=(Http("GET", "/api/v1/traces/stream/sessions"),),
    ),
    Operation(
        name="shadow_start",
        title="Start observing",
        description="Start observing what the person does on the workstation (shadow learning). Without "
        "session_id, uses the active session of the only connected machine. Starting twice is a no-op "
        "(status already_observing). language (fr/en) sets the language of the step intents.",
        input=StartInput,
        output=StartOut,
        risk="draft",
        handler=shadow_start,
        machines=_session_machine,
        roles=DRAFT_ROLES,
        http=(Http("POST", "/api/v1/shadow/start"),),
    ),
    Operation(
        name="shadow_stop",
        title="Stop observing",
        description="Stop observing and return the steps understood, each with an intent and a confidence, "
        "to show the person for review.",
        input=SessionOptInput,
        output=StopOut,
        risk="draft",
        handler=shadow_stop,
        machines=_session_machine,
        roles=DRAFT_ROLES,
        http=(Http("POST", "/api/v1/shadow/stop"),),
    ),
    Operation(
        name="get_understanding",
        title="Read the understanding",
        description="The steps understood so far in a session, the step in progress and notifications; "
        "with since_ts, only what changed since then. Each step has its intent, value, evidence, post-conditions, "
        "a calibrated confidence and suggestions; review says which steps to ask about first.",
        input=UnderstandingInput,
        output=UnderstandingOut,
        risk="read",
        handler=get_understanding,
        idempotent=True,
        reads=_read_session,
        http=(Http("GET", "/api/v1/shadow/{session_id}/understanding"),),
    ),
    Operation(
        name="shadow_feedback",
        title="Correct the understanding",
        description="Apply the person's feedback on the steps: validate, correct, undo, cancel, merge_next, "
        "split, parameterize, set_class. A feedback that does not apply is answered feedback_rejected with the "
        "reason and changes nothing.",
        input=FeedbackInput,
        output=FeedbackOut,
        risk="draft",
        handler=shadow_feedback,
        machines=_session_machine,
        roles=DRAFT_ROLES,
        http=(Http("POST", "/api/v1/shadow/feedback"),),
    ),
    Operation(
        name="shadow_build",
        title="Build the workflow",
        description="Turn the session's steps into a workflow IR (nothing is saved: propose_persist_competence "
        "does that). With require_all_validated, refuses until every step was validated.",
        input=BuildInput,
        output=BuildOut,
        risk="draft",
        handler=shadow_build,
        machines=_session_machine,
        roles=DRAFT_ROLES,
        http=(Http("POST", "/api/v1/shadow/build"),),
    ),
    Operation(
        name="persist_competence",
        title="Save the workflow as a candidate competence",
        description="Build the session's workflow and save it as a candidate competence (a versioned YAML file; "
        "an existing name gets a new version, the previous one is kept), then reset the session.",
        input=PersistInput,
        output=PersistOut,
        risk="write",
        handler=persist_competence,
        preview=preview_persist_competence,
        http=(Http("POST", "/api/v1/lea/competences/candidate/persist"),),
    ),
    Operation(
        name="ingest_events",
        title="Stream UI events (desktop agent)",
        description="Desktop agent endpoint: one event or a batch of events of a recording session.",
        input=IngestInput,
        output=IngestOut,
        risk="draft",
        handler=ingest_events,
        machines=_events_machines,
        audit_args=audit_view,
        roles=frozenset({"agent"}),
        surfaces=frozenset({"rest"}),
        http=(Http("POST", "/api/v1/traces/stream/event"),),
    ),
)
