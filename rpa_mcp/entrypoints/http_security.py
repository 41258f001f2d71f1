"""ASGI middleware for every HTTP route: body size, Host/Origin allow-lists, bearer auth + lockout."""

from __future__ import annotations

import inspect
import json
import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from rpa_mcp.clock import Clock
from rpa_mcp.identity import ROLES, Caller

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
PUBLIC_PATHS = ("/healthz", "/.well-known/")
PROTECTED_PREFIXES = ("/mcp", "/api/")


async def send_json(send: Any, status: int, body: dict[str, Any], headers: Iterable[tuple[str, str]] = ()) -> None:
    payload = json.dumps(body).encode()
    raw = [(b"content-type", b"application/problem+json"), (b"content-length", str(len(payload)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in headers]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})


def problem(status: int, code: str, detail: str) -> dict[str, Any]:
    return {"type": f"urn:rpa-mcp:error:{code}", "title": code, "status": status, "detail": detail, "code": code}


class BodyLimit:
    """413 before parsing when Content-Length or the streamed body exceeds the limit."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            return await send_json(send, 413, problem(413, "payload-too-large", f"body over {self.max_bytes} bytes"))
        seen = 0
        started = False

        async def limited_receive() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await send_json(send, 413, problem(413, "payload-too-large", f"body over {self.max_bytes} bytes"))


class _TooLarge(Exception):
    pass


def host_matches(value: str, patterns: Iterable[str]) -> bool:
    value = value.lower()
    for pattern in patterns:
        pattern = pattern.lower()
        if pattern == value:
            return True
        if pattern.endswith(":*") and value.rsplit(":", 1)[0] == pattern[:-2] and ":" in value.removeprefix("["):
            return True
    return False


class HostOriginGuard:
    """DNS-rebinding protection on every route: 421 for an unknown Host, 403 for an unknown Origin."""

    def __init__(self, app: ASGIApp, *, hosts: list[str], origins: list[str]) -> None:
        self.app, self.hosts, self.origins = app, hosts, origins

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            host = headers.get(b"host", b"").decode("latin-1")
            if not host_matches(host, self.hosts):
                return await send_json(send, 421, problem(421, "misdirected-request", "Host header is not allowed"))
            origin = headers.get(b"origin")
            if origin is not None and not host_matches(origin.decode("latin-1"), self.origins):
                return await send_json(send, 403, problem(403, "forbidden-origin", "Origin is not allowed"))
        await self.app(scope, receive, send)


class BearerAuth:
    """Authenticates /mcp and /api/* with a bearer token; sets scope['rpa.caller'].

    Repeated bad tokens from one client address lock it out for a while (429).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        verify: Callable[[str], Caller | Awaitable[Caller | None] | None] | None,
        resource_metadata_url: str,
        clock: Clock,
        lockout_failures: int,
        lockout_s: float,
    ) -> None:
        self.app, self.verify, self.metadata_url, self.clock = app, verify, resource_metadata_url, clock
        self.lockout_failures, self.lockout_s = lockout_failures, lockout_s
        self._failures: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(PROTECTED_PREFIXES):
            return await self.app(scope, receive, send)
        if self.verify is None:  # RPA_AUTH_DISABLED on a loopback bind
            scope["rpa.caller"] = Caller("local-dev", frozenset(ROLES), via="http", auth="disabled")
            return await self.app(scope, receive, send)
        client = (scope.get("client") or ("?", 0))[0]
        now = self.clock.monotonic()
        with self._lock:
            count, until = self._failures.get(client, (0, 0.0))
        if count >= self.lockout_failures and now < until:
            retry = int(until - now) + 1
            return await send_json(
                send,
                429,
                problem(429, "rate-limited", "too many bad tokens; locked out for a while"),
                [("retry-after", str(retry))],
            )
        headers = dict(scope.get("headers") or [])
        auth = headers.get(b"authorization", b"").decode("latin-1")
        scheme, _, token = auth.partition(" ")
        caller = self.verify(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        if inspect.isawaitable(caller):  # the identity provider's tokens may need its keys fetched
            caller = await caller
        if caller is None:
            with self._lock:
                count, _ = self._failures.get(client, (0, 0.0))
                self._failures[client] = (count + 1, now + self.lockout_s)
            error = "invalid_token" if token else "invalid_request"
            challenge = (
                f'Bearer error="{error}", error_description="a valid bearer token is required", '
                f'resource_metadata="{self.metadata_url}"'
            )
            return await send_json(
                send,
                401,
                problem(401, "unauthenticated", "a valid bearer token is required"),
                [("www-authenticate", challenge)],
            )
        with self._lock:
            self._failures.pop(client, None)
        scope["rpa.caller"] = caller
        await self.app(scope, receive, send)
