"""What a token bound to workstations may read: its own machines' data, nothing else.

An agent token minted with `--machine` (`Caller.machines`) reads the sessions, events,
screenshots, replays and target memory of those machines only (the memory: `resolve_target`
reads the machine it names, checked by its `reads`, or the token's only machine). `dispatch()` applies this to every
operation and `read_resource` to every resource, so no tool body repeats it:

- a read that names another machine's session, replay or screenshot (or one whose machine is
  unknown) is answered `not-found`, as if it did not exist: existence never leaks;
- an image argument that refers to a stored screenshot (`{"ref": "rpa://screenshots/<id>"}`)
  must be one of theirs, whatever the operation;
- a listing keeps only their rows (`Operation.rows`, `Resource.rows`: items with a `machine_id`).

Writes keep their own refusal, `forbidden` naming the machines (`dispatch.check_machines`).
A token that is not bound (people's tokens, the static agent token) reads as its roles allow.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from pydantic import BaseModel

from rpa_mcp.errors import Forbidden, NotFound
from rpa_mcp.identity import Caller
from rpa_mcp.ops.common import SCREENSHOT_URI_PREFIX, ImageArg

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services
    from rpa_mcp.ops.registry import OpContext, Operation, Resource

Owners = set[str | None]  # the machines data belongs to; None: no machine (unknown, or owned by none)


# --- whose data is it -------------------------------------------------------------------------------
async def session_owners(services: Services, session_ids: Iterable[str | None]) -> Owners:
    """The machine of each session (None for a session that does not exist)."""
    traces = services.traces

    def lookup() -> Owners:
        return {
            (str(row["machine_id"]) if (row := traces.get_session(sid)) else None) for sid in set(session_ids) if sid
        }

    return await anyio.to_thread.run_sync(lookup)


async def screenshot_owners(services: Services, screenshot_ids: Iterable[str]) -> Owners:
    """The machine of the session each screenshot was uploaded in (None when there is none)."""
    traces = services.traces

    def lookup() -> Owners:
        owners: Owners = set()
        for shot in set(screenshot_ids):
            info = traces.screenshot_info(shot)
            session = traces.get_session(str(info["session_id"])) if info and info.get("session_id") else None
            owners.add(str(session["machine_id"]) if session else None)
        return owners

    return await anyio.to_thread.run_sync(lookup)


async def replay_owners(services: Services, replay_id: str | None) -> Owners:
    """The machine a replay runs on (None for a replay that does not exist)."""
    if not replay_id:
        return set()
    row = await anyio.to_thread.run_sync(services.replay.store.get_replay, replay_id)
    return {str(row["machine_id"]) if row and row.get("machine_id") else None}


def screenshot_refs(value: Any) -> set[str]:
    """The stored screenshots the image arguments of a parsed input refer to."""
    if isinstance(value, ImageArg):
        return {value.ref.removeprefix(SCREENSHOT_URI_PREFIX)} if value.ref else set()
    if isinstance(value, BaseModel):
        return {ref for name in type(value).model_fields for ref in screenshot_refs(getattr(value, name))}
    if isinstance(value, (list, tuple)):
        return {ref for item in value for ref in screenshot_refs(item)}
    if isinstance(value, dict):
        return {ref for item in value.values() for ref in screenshot_refs(item)}
    return set()


# --- the checks -------------------------------------------------------------------------------------
def hidden() -> NotFound:
    """The answer to a read of another machine's data: the same for data that does not exist."""
    return NotFound("nothing of that id on the workstations this token is bound to")


async def check_operation(op: Operation, ctx: OpContext, args: BaseModel) -> None:
    """A token bound to machines reads theirs only: the entity a read names, every screenshot referred to."""
    bound = ctx.caller.machines
    if bound is None:
        return
    if op.reads is not None and not set(await op.reads(ctx, args)) <= bound:
        raise hidden()
    refs = screenshot_refs(args)
    if refs and not await screenshot_owners(ctx.services, refs) <= bound:
        raise hidden()


async def check_resource(spec: Resource, ctx: OpContext, params: dict[str, str]) -> None:
    """The resource's roles, then (a token bound to machines) the machine it belongs to."""
    caller = ctx.caller
    if spec.roles is not None and not caller.has_any(spec.roles):
        have = sorted(caller.roles) or "none"
        raise Forbidden(
            f"reading {spec.uri} needs one of the roles {sorted(spec.roles)}; you have {have}", uri=spec.uri
        )
    bound = caller.machines
    if bound is not None and spec.owners is not None and not set(await spec.owners(ctx.services, **params)) <= bound:
        raise hidden()


def visible_rows(caller: Caller, rows_field: str | None, data: dict[str, Any]) -> dict[str, Any]:
    """A listing as a token bound to machines sees it: only the rows of its machines."""
    bound = caller.machines
    if bound is None or rows_field is None or not isinstance(data.get(rows_field), list):
        return data
    kept = [row for row in data[rows_field] if isinstance(row, dict) and row.get("machine_id") in bound]
    return {**data, rows_field: kept}


def visible_text(caller: Caller, rows_field: str | None, text: str) -> str:
    """`visible_rows` for a JSON resource."""
    if caller.machines is None or rows_field is None:
        return text
    return json.dumps(visible_rows(caller, rows_field, json.loads(text)), ensure_ascii=False, indent=1)


__all__ = [
    "Owners",
    "check_operation",
    "check_resource",
    "hidden",
    "replay_owners",
    "screenshot_owners",
    "screenshot_refs",
    "session_owners",
    "visible_rows",
    "visible_text",
]
