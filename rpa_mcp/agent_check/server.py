"""The scripted conformance server: the agent REST wire (docs/replay-wire-contract.md) on a script.

Each poll of the agent under test receives the next `Delivery` of the script; acks and results
are answered as the real server would (fencing on `attempt_id`: an older attempt is `late`, a
second start of one attempt is `duplicate` with `proceed=false`), except where the delivery's
policy plays a fault (a lost result, an unanswered start, a pause). Everything the agent sends,
and what it was answered, is kept in `exchanges` for the clauses (`clauses.py`) to judge.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

import anyio
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rpa_mcp.agent_check.script import Delivery, ids, key
from rpa_mcp.clock import Clock, SystemClock
from rpa_mcp.replay.wire import (
    MAX_WAIT_S,
    PROTOCOL_HEADER,
    PROTOCOL_VERSION,
    ActionResult,
    Heartbeat,
    NextAction,
    ReceiptAck,
    StartAck,
)

LOST_RESULTS = 2  # results of a `lost` attempt answered 503 before it is fenced off
MODELS: dict[str, type[BaseModel]] = {
    "receipt": ReceiptAck,
    "start": StartAck,
    "heartbeat": Heartbeat,
    "result": ActionResult,
}


@dataclass
class Exchange:
    """One request of the agent and the scripted server's answer."""

    seq: int
    kind: str  # poll | receipt | start | heartbeat | result | other
    path: str
    body: dict[str, Any]  # the JSON body (the query string for a poll)
    bearer_ok: bool
    protocol: str | None  # the X-Replay-Protocol-Version header as sent
    status: int = 0
    answer: dict[str, Any] | None = None
    error: str | None = None  # why the body was refused (422)
    delivery: int | None = None  # for a poll: the index of the delivery it received

    @property
    def key(self) -> str | None:
        action_id, attempt_id = self.body.get("action_id"), self.body.get("attempt_id")
        return key(str(action_id), str(attempt_id)) if action_id and attempt_id else None

    def line(self) -> str:
        """The exchange in one line, for a clause's evidence."""
        if self.kind == "poll":
            sent = f"GET next?machine_id={self.body.get('machine_id')}&wait={self.body.get('wait')}"
            answer = self.answer or {}
            got = f"{self.status} {answer.get('attempt_id') or answer.get('code') or ''}".rstrip()
            return f"#{self.seq} {sent} -> {got}"
        fields = ("attempt_id", "executed", "success", "error", "progress")
        sent = ", ".join(f"{f}={self.body[f]!r}" for f in fields if f in self.body)
        got = f"{self.status}"
        if self.answer:
            shown = ("status", "code", "proceed") if self.kind == "start" else ("status", "code")
            got += " " + ", ".join(f"{k}={v!r}" for k, v in self.answer.items() if k in shown)
        return f"#{self.seq} POST {self.kind} ({sent}) -> {got}"


@dataclass
class Dispatched:
    """An attempt the scripted server delivered, and how it answers messages about it."""

    delivery: Delivery
    index: int
    action: dict[str, Any]
    poll_seq: int
    receipts: int = 0
    starts: int = 0
    results_lost: int = 0
    result_acked: bool = False
    fenced: bool = False  # the scripted watchdog gave up on this attempt: its reports are late


@dataclass
class Conformance:
    """The scripted server of one check run. `app()` is the ASGI app the agent is pointed at."""

    script: tuple[Delivery, ...]
    token: str
    machine_id: str | None = None  # None: the first machine that polls
    clock: Clock = field(default_factory=SystemClock)
    final_hold_s: float = 1.0
    run: str = field(default_factory=lambda: "chk" + secrets.token_hex(3))
    exchanges: list[Exchange] = field(default_factory=list)
    dispatched: list[Dispatched] = field(default_factory=list)
    next_index: int = 0
    finished: anyio.Event = field(default_factory=anyio.Event)
    connected: anyio.Event = field(default_factory=anyio.Event)

    @property
    def replay_id(self) -> str:
        return f"{self.run}-replay"

    # --- the wire ------------------------------------------------------------------------------
    def app(self) -> Starlette:
        routes = [Route("/api/v1/replay/next", self._poll, methods=["GET"])]
        routes += [Route(f"/api/v1/replay/{kind}", self._endpoint(kind), methods=["POST"]) for kind in MODELS]
        return Starlette(routes=routes, exception_handlers={404: self._not_found})

    def _record(self, request: Request, kind: str, body: dict[str, Any]) -> Exchange:
        auth = request.headers.get("authorization", "")
        exchange = Exchange(
            seq=len(self.exchanges) + 1,
            kind=kind,
            path=request.url.path,
            body=body,
            bearer_ok=secrets.compare_digest(auth.encode(), f"Bearer {self.token}".encode()),
            protocol=request.headers.get(PROTOCOL_HEADER),
        )
        self.exchanges.append(exchange)
        return exchange

    async def _poll(self, request: Request) -> Response:
        exchange = self._record(request, "poll", dict(request.query_params))
        if not exchange.bearer_ok:
            return _problem(exchange, 401, "unauthenticated", "a valid bearer token is required")
        machine = request.query_params.get("machine_id", "")
        try:
            wait = float(request.query_params.get("wait", "25"))
        except ValueError:
            wait = -1.0
        if not machine or not 0.0 <= wait <= MAX_WAIT_S:
            return _problem(exchange, 422, "invalid-input", "machine_id is required and wait must be 0..60 s")
        if self.machine_id is None:
            self.machine_id = machine
        if machine != self.machine_id:  # another agent: nothing for it
            await anyio.sleep(min(wait, self.final_hold_s))
            exchange.status = 204
            return Response(status_code=204)
        self.connected.set()
        if self.next_index >= len(self.script):
            self.finished.set()
            await anyio.sleep(min(wait, self.final_hold_s))
            exchange.status = 204
            return Response(status_code=204)
        index, delivery = self.next_index, self.script[self.next_index]
        self.next_index += 1
        exchange.delivery = index
        if delivery.action is None:
            await anyio.sleep(min(wait, delivery.hold_s))
            exchange.status = 204
            return Response(status_code=204)
        action = self._action(index, delivery, exchange.seq)
        exchange.status, exchange.answer = 200, action
        return JSONResponse(action)

    def _action(self, index: int, delivery: Delivery, poll_seq: int) -> dict[str, Any]:
        action_id, attempt_id = ids(self.run, delivery)
        server_now = self.clock.now() + delivery.clock_offset_s
        action = NextAction(
            replay_id=self.replay_id,
            action_id=action_id,
            attempt_id=attempt_id,
            not_after=server_now + delivery.ttl_s,
            server_now=server_now,
            action_type="wait",
            params=delivery.params,
            protocol_version=PROTOCOL_VERSION,
            step_index=index + 1,
            steps_total=len(self.script),
            resend=delivery.attempt - 1,
            retry_of=f"{action_id}-{delivery.retry_of}" if delivery.retry_of else None,
        ).model_dump(mode="json")
        self.dispatched.append(Dispatched(delivery, index, action, poll_seq))
        return action

    def _endpoint(self, kind: str) -> Any:
        async def endpoint(request: Request) -> Response:
            raw = await request.body()
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = None
            exchange = self._record(request, kind, body if isinstance(body, dict) else {})
            if not exchange.bearer_ok:
                return _problem(exchange, 401, "unauthenticated", "a valid bearer token is required")
            try:
                MODELS[kind].model_validate(body)
            except ValidationError as exc:
                first = exc.errors()[0]
                field_name = ".".join(str(p) for p in first["loc"]) or "body"
                exchange.error = f"{field_name}: {first['msg']}"
                return _problem(exchange, 422, "invalid-input", exchange.error, details={"field": field_name})
            return self._answer(exchange, kind)

        return endpoint

    def _answer(self, exchange: Exchange, kind: str) -> Response:
        latest = self._latest(exchange.body)
        if latest is None or latest.fenced or latest.action["attempt_id"] != exchange.body["attempt_id"]:
            known = any(d.action["attempt_id"] == exchange.body["attempt_id"] for d in self.dispatched)
            return _ack(exchange, "late" if known else "unknown", proceed=False)
        policy = latest.delivery
        if kind == "receipt":
            latest.receipts += 1
            if latest.receipts > 1:
                return _ack(exchange, "duplicate", proceed=latest.starts == 0)
        if kind == "start":
            latest.starts += 1
            if policy.start == "paused":
                return _ack(exchange, "late", proceed=False, replay_state="paused", reason="the replay is paused")
            if policy.start == "unanswered_once" and latest.starts == 1:
                return _problem(exchange, 503, "unavailable", "the server could not answer; try again", retryable=True)
            if latest.starts > 1 or policy.start == "unanswered_once":
                return _ack(exchange, "duplicate", proceed=False, reason="this attempt was already started once")
        if kind == "result":
            if policy.result == "lost":  # twice; then the scripted watchdog resends (late from then on)
                latest.results_lost += 1
                if latest.results_lost > LOST_RESULTS:
                    latest.fenced = True
                    return _ack(exchange, "late", proceed=False, reason="the action was dispatched again")
                return _problem(exchange, 503, "unavailable", "the server could not answer; try again", retryable=True)
            if latest.result_acked:
                return _ack(exchange, "duplicate")
            latest.result_acked = True
        state = "paused" if policy.start == "paused" else "running"
        return _ack(exchange, "accepted", not_after=latest.action["not_after"], replay_state=state)

    def _latest(self, body: dict[str, Any]) -> Dispatched | None:
        """The last attempt dispatched for the action the message names (the one not fenced off)."""
        same = [d for d in self.dispatched if d.action["action_id"] == body.get("action_id")]
        if not same or same[-1].action["replay_id"] != body.get("replay_id"):
            return None
        return same[-1]

    async def _not_found(self, request: Request, exc: Exception) -> Response:
        exchange = self._record(request, "other", {})
        return _problem(exchange, 404, "not-found", f"{request.url.path} is not part of the replay wire")

    def delivered(self, index: int) -> Dispatched | None:
        return next((d for d in self.dispatched if d.index == index), None)


def _ack(exchange: Exchange, status: str, **fields: Any) -> Response:
    body = {"status": status, "replay_state": fields.pop("replay_state", "running"), "proceed": True} | fields
    exchange.status, exchange.answer = 200, body
    return JSONResponse(body)


def _problem(exchange: Exchange, status: int, code: str, detail: str, **extra: Any) -> Response:
    body: dict[str, Any] = {
        "type": f"urn:rpa-mcp:error:{code}",
        "title": code,
        "status": status,
        "detail": detail,
        "code": code,
        "message": detail,
        "retryable": extra.pop("retryable", False),
    } | extra
    exchange.status, exchange.answer = status, body
    return JSONResponse(body, status_code=status, media_type="application/problem+json")


__all__ = ["Conformance", "Dispatched", "Exchange"]
