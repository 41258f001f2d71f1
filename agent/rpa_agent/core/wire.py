"""What the agent receives and sends, checked against the shipped JSON Schemas (`rpa_agent.wire`).

`next_action(data)` turns a `GET /api/v1/replay/next` answer into a `NextAction`, or raises
`WireError` naming the field; `outgoing(kind, body)` raises `WireError` when a body the agent is
about to send breaks the schema (an agent bug: never sent, the server would refuse it anyway).
Validation is `fastjsonschema` (pure Python: it loads on Windows' embeddable Python).

The protocol header decides compatibility: this agent speaks `PROTOCOL_VERSION` and works with a
server that answers it or the version before (`SUPPORTED`); v1 has no receipt and start acks.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import fastjsonschema

from rpa_agent import wire

PROTOCOL_VERSION = 2
PROTOCOL_HEADER = "X-Replay-Protocol-Version"
SUPPORTED = frozenset({PROTOCOL_VERSION, PROTOCOL_VERSION - 1})
OUTGOING = {
    "receipt": "replay-receipt",
    "start": "replay-start",
    "heartbeat": "replay-heartbeat",
    "result": "replay-result",
    "resolve": "resolve-target-request",
    "tree-answer": "preflight-tree-answer",  # a look's `output.first_step_tree`
}


class WireError(ValueError):
    """A message that breaks the wire contract: `field` names where (`data.target.x`)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@cache
def _validator(name: str) -> Callable[[Any], Any]:
    return fastjsonschema.compile(wire.schema(name))


def validate(name: str, data: Any) -> dict[str, Any]:
    """`data` checked against schema `name`, with the schema's defaults filled in (a new dict)."""
    try:
        checked = _validator(name)(copy.deepcopy(data))
    except fastjsonschema.JsonSchemaValueException as exc:
        raise WireError(str(exc.message), str(exc.name)) from None
    if not isinstance(checked, dict):
        raise WireError("must be an object", "data")
    return checked


def answer(name: str, data: Any) -> dict[str, Any]:
    """A server's answer checked against schema `name`, its top-level fields this agent does not know dropped
    first: a field added to an answer within a protocol is optional and its absence keeps the behaviour this
    agent was built with (a change of meaning is a new protocol, refused by version). Known fields stay strict."""
    if not isinstance(data, dict):
        raise WireError("must be an object", "data")
    known = _known_fields(name)
    return validate(name, {k: v for k, v in data.items() if k in known})


@cache
def _known_fields(name: str) -> frozenset[str]:
    return frozenset(wire.schema(name).get("properties", {}))


def outgoing(kind: str, body: dict[str, Any]) -> None:
    """Raise `WireError` when `body` (a receipt, start, heartbeat, result, resolve request or a look's tree
    answer) breaks its schema."""
    validate(OUTGOING[kind], body)


@dataclass(frozen=True)
class Target:
    label: str | None = None
    x: int | None = None
    y: int | None = None
    method: str | None = None
    score: float | None = None
    rel_x: float | None = None
    rel_y: float | None = None
    window_title: str | None = None
    spec: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NextAction:
    """One action to execute exactly once (docs/replay-wire-contract.md)."""

    replay_id: str
    action_id: str
    attempt_id: str
    not_after: float
    server_now: float
    action_type: str
    target: Target | None = None
    params: dict[str, Any] = field(default_factory=dict)
    protocol_version: int = PROTOCOL_VERSION
    step_index: int = 0
    steps_total: int = 0
    idempotent: bool = False
    success_strict: bool = False
    resend: int = 0
    retry_of: str | None = None
    irreversible: bool = False

    @property
    def ref(self) -> dict[str, str]:
        return {"replay_id": self.replay_id, "action_id": self.action_id, "attempt_id": self.attempt_id}


def next_action(data: Any) -> NextAction:
    """A checked `NextAction`; `WireError` when the server's answer breaks the schema."""
    checked = validate("replay-next-action", data)
    raw_target = checked.pop("target", None)
    target = Target(**raw_target) if isinstance(raw_target, dict) else None
    return NextAction(target=target, **checked)


def attempt_ref(data: Any) -> dict[str, str] | None:
    """The replay, action and attempt ids of an answer that broke the schema, when it has them all."""
    if not isinstance(data, dict):
        return None
    ref = {k: data.get(k) for k in ("replay_id", "action_id", "attempt_id")}
    if not all(isinstance(v, str) and v for v in ref.values()):
        return None
    return {k: str(v) for k, v in ref.items()}


@dataclass(frozen=True)
class ReportAck:
    status: str = "accepted"
    replay_state: str | None = None
    proceed: bool = True
    not_after: float | None = None
    reason: str | None = None


def report_ack(data: Any) -> ReportAck:
    """The server's answer to a receipt, start, heartbeat or result (fields this agent does not know: ignored)."""
    return ReportAck(**answer("replay-report-ack", data))
