"""A minimal replay server (the wire contract of rpa_mcp.replay.wire, nothing more) for the agent tests.

It dispatches queued actions one at a time, answers a poll retry with the same attempt,
fences every message on `attempt_id` (older attempt -> `late`), and records everything it
receives so tests can assert on the conversation. `resend()` plays the watchdog.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rpa_mcp.agent_sim import FaultPlan, Journal, ReferenceAgent, VirtualDesktop
from rpa_mcp.replay.wire import PROTOCOL_HEADER, ActionResult, Heartbeat, NextAction, ReceiptAck, StartAck
from rpa_mcp.testing import FakeClock

TOKEN = "agent-test-token"
MACHINE = "ws-cardio-01"


@dataclass
class Attempt:
    action: dict[str, Any]
    reported: bool = False


@dataclass
class FakeReplayServer:
    clock: FakeClock = field(default_factory=FakeClock)
    token: str = TOKEN
    proceed_on_start: bool = True
    pending: list[dict[str, Any]] = field(default_factory=list)
    current: dict[str, Attempt] = field(default_factory=dict)  # action_id -> latest attempt
    attempts: dict[str, list[str]] = field(default_factory=dict)  # action_id -> attempt ids
    messages: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # action_id -> accepted result
    protocol_headers: list[str | None] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    # --- test controls ----------------------------------------------------------------------
    def enqueue(
        self,
        action_type: str = "click",
        *,
        target: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        ttl_s: float = 120.0,
        idempotent: bool = False,
        step_index: int | None = None,
    ) -> str:
        n = next(self._ids)
        action_id = f"act-{n}"
        self.pending.append(
            {
                "replay_id": "rep-1",
                "action_id": action_id,
                "attempt_id": "",
                "not_after": self.clock.now() + ttl_s,
                "server_now": 0.0,
                "action_type": action_type,
                "target": target,
                "params": params or {},
                "step_index": n if step_index is None else step_index,  # counted from 1, as the server does
                "idempotent": idempotent,
            }
        )
        return action_id

    def resend(self, action_id: str, *, retry_of: str | None = None) -> str:
        """The watchdog re-dispatches an action with a new attempt (fencing token); with `retry_of`, a person
        answered `retry` after seeing that attempt."""
        action = dict(self.current[action_id].action)
        attempt = self._new_attempt(action_id)
        action["attempt_id"] = attempt
        action["retry_of"] = retry_of
        action["resend"] = len(self.attempts[action_id]) - 1
        self.current[action_id] = Attempt(action)
        return attempt

    def kinds(self, action_id: str | None = None) -> list[str]:
        return [k for k, body in self.messages if action_id is None or body.get("action_id") == action_id]

    def acks(self, kind: str) -> list[dict[str, Any]]:
        return [body for k, body in self.messages if k == kind]

    # --- wire --------------------------------------------------------------------------------
    def _new_attempt(self, action_id: str) -> str:
        attempt = f"{action_id}-a{len(self.attempts.setdefault(action_id, [])) + 1}"
        self.attempts[action_id].append(attempt)
        return attempt

    def _authorized(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.token}"

    async def next(self, request: Request) -> Response:
        if not self._authorized(request):
            return JSONResponse({"code": "unauthenticated"}, status_code=401)
        self.protocol_headers.append(request.headers.get(PROTOCOL_HEADER))
        in_flight = next((a for a in self.current.values() if not a.reported), None)
        if in_flight is None and self.pending:
            action = self.pending.pop(0)
            action["attempt_id"] = self._new_attempt(action["action_id"])
            in_flight = self.current[action["action_id"]] = Attempt(action)
        if in_flight is None:
            return Response(status_code=204)
        body = dict(in_flight.action, server_now=self.clock.now())
        NextAction.model_validate(body)
        return JSONResponse(body)

    def _fence(self, body: dict[str, Any]) -> tuple[str, Attempt | None]:
        attempt = self.current.get(body["action_id"])
        if attempt is None:
            return "unknown", None
        if attempt.action["attempt_id"] != body["attempt_id"]:
            known = body["attempt_id"] in self.attempts.get(body["action_id"], [])
            return ("late" if known else "unknown"), None
        return "accepted", attempt

    def _route(self, kind: str, model: type) -> Any:
        async def endpoint(request: Request) -> Response:
            if not self._authorized(request):
                return JSONResponse({"code": "unauthenticated"}, status_code=401)
            body = await request.json()
            try:
                model.model_validate(body)
            except ValidationError as exc:
                return JSONResponse({"code": "invalid-input", "message": str(exc)}, status_code=422)
            self.messages.append((kind, body))
            status, attempt = self._fence(body)
            answer: dict[str, Any] = {"status": status}
            if attempt is not None and kind == "result":
                if attempt.reported:
                    answer["status"] = "duplicate"
                else:
                    attempt.reported = True
                    self.results[body["action_id"]] = body
            if kind == "start":
                answer["proceed"] = status == "accepted" and self.proceed_on_start
            return JSONResponse(answer)

        return endpoint

    async def event(self, request: Request) -> Response:
        if not self._authorized(request):
            return JSONResponse({"code": "unauthenticated"}, status_code=401)
        self.events.append(await request.json())
        return JSONResponse({"status": "ok"})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/api/v1/replay/next", self.next, methods=["GET"]),
                Route("/api/v1/replay/receipt", self._route("receipt", ReceiptAck), methods=["POST"]),
                Route("/api/v1/replay/start", self._route("start", StartAck), methods=["POST"]),
                Route("/api/v1/replay/heartbeat", self._route("heartbeat", Heartbeat), methods=["POST"]),
                Route("/api/v1/replay/result", self._route("result", ActionResult), methods=["POST"]),
                Route("/api/v1/traces/stream/event", self.event, methods=["POST"]),
            ]
        )


class RecordingSleep:
    """Injected instead of anyio.sleep: records the delays and returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@dataclass
class Harness:
    server: FakeReplayServer
    client: httpx2.AsyncClient
    desktop: VirtualDesktop
    journal_path: Path
    sleep: RecordingSleep
    journals: list[Journal] = field(default_factory=list)

    def agent(self, *, faults: FaultPlan | None = None, protocol_version: int = 2, **kwargs: Any) -> ReferenceAgent:
        """A (new) agent process on the same desktop and the same journal file."""
        journal = Journal(self.journal_path)
        self.journals.append(journal)
        return ReferenceAgent(
            self.client,
            self.desktop,
            machine_id=MACHINE,
            journal=journal,
            token=TOKEN,
            protocol_version=protocol_version,
            faults=faults,
            clock=self.server.clock,
            sleep=self.sleep,
            poll_wait_s=0.0,
            heartbeat_interval_s=1.0,
            **kwargs,
        )
