"""ASGI middleware for every HTTP route: body size, Host/Origin allow-lists, bearer auth + failed sign-in throttle."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from rpa_mcp.auth.explain import Refusal
from rpa_mcp.auth.throttle import FailedSignIns, count_failure
from rpa_mcp.identity import ROLES, Caller

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
PUBLIC_PATHS = ("/healthz", "/.well-known/")
PROTECTED_PREFIXES = ("/mcp", "/api/", "/metrics")


async def send_json(send: Any, status: int, body: dict[str, Any], headers: Iterable[tuple[str, str]] = ()) -> None:
    payload = json.dumps(body).encode()
    raw = [(b"content-type", b"application/problem+json"), (b"content-length", str(len(payload)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in headers]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})


def problem(status: int, code: str, detail: str, *, retryable: bool = False) -> dict[str, Any]:
    """A problem+json body of the same shape as the REST surface's (docs/schemas/problem.schema.json)."""
    return {
        "type": f"urn:rpa-mcp:error:{code}",
        "title": code,
        "status": status,
        "detail": detail,
        "code": code,
        "message": detail,
        "retryable": retryable,
    }


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
        if length is not None and b"transfer-encoding" not in headers:
            return await self.app(scope, receive, send)  # framed by its length: no more bytes are delivered
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


TOKEN_HINT = "ask an administrator for one (rpa-mcp token --help) and send it as 'Authorization: Bearer <token>'"


class BearerAuth:
    """Authenticates /mcp and /api/* with a bearer token; sets scope['rpa.caller'] (and scope['user'],
    the principal the MCP SDK binds its legacy sessions to).

    `resource_metadata_url` is given only when an authorization server can issue tokens (see
    `unauthenticated`); without one, the 401's body says how to get a token instead.

    A valid token always passes. A presented token that fails counts against its client address
    (`SignInThrottle`); past the address's budget its failures get 429 instead of 401.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        verify: Callable[[str], Caller | Awaitable[Caller | None] | None] | None,
        resource_metadata_url: str | None,
        throttle: FailedSignIns,
        explain: Callable[[str], Refusal] | None = None,
    ) -> None:
        self.app, self.verify, self.metadata_url, self.throttle = app, verify, resource_metadata_url, throttle
        self.explain = explain  # why a presented token failed, said in the 401

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(PROTECTED_PREFIXES):
            return await self.app(scope, receive, send)
        if self.verify is None:  # RPA_AUTH_DISABLED on a loopback bind
            caller = Caller("local-dev", frozenset(ROLES), via="http", auth="disabled")
            scope["rpa.caller"], scope["user"] = caller, sdk_user(caller)
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        auth = headers.get(b"authorization", b"").decode("latin-1")
        scheme, _, token = auth.partition(" ")
        token = token.strip()
        found = self.verify(token) if scheme.lower() == "bearer" and token else None
        if inspect.isawaitable(found):  # the identity provider's tokens may need its keys fetched
            found = await found
        if found is None:
            if auth:  # a credential was presented and failed (a bare request is OAuth discovery, not a failure)
                client = (scope.get("client") or ("?", 0))[0]
                retry = await count_failure(self.throttle, client)  # may be a database round trip
                if retry is not None:
                    return await send_json(
                        send,
                        429,
                        problem(429, "rate-limited", "too many failed sign-ins from this address; retry later"),
                        [("retry-after", str(max(1, int(retry + 0.999))))],
                    )
            refusal = self.explain(token) if self.explain is not None and token else None
            return await send_json(send, 401, *unauthenticated(refusal, self.metadata_url, presented=bool(token)))
        scope["rpa.caller"], scope["user"] = found, sdk_user(found)
        await self.app(scope, receive, send)


def unauthenticated(
    refusal: Refusal | None, metadata_url: str | None, *, presented: bool
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The 401's body and its WWW-Authenticate challenge: the reason a token failed, when one was presented.

    The challenge points at the protected-resource metadata (RFC 9728) only when an authorization
    server is configured: a client that finds it starts an OAuth flow, which cannot succeed against
    this server's own tokens (an administrator mints them). Without one, the body says how to get a token.
    """
    detail = refusal.detail if refusal is not None else "a valid bearer token is required"
    if metadata_url is None and "rpa-mcp token" not in detail:
        detail += f"; {TOKEN_HINT}"  # what to run, whatever the reason
    error = "invalid_token" if presented else "invalid_request"
    said = "".join(c if " " <= c <= "~" and c not in '"\\' else "?" for c in detail)  # a quoted-string
    challenge = f'Bearer error="{error}", error_description="{said}"'
    if metadata_url is not None:
        challenge += f', resource_metadata="{metadata_url}"'
    body = problem(401, "unauthenticated", detail)
    if refusal is not None:
        body["reason"] = refusal.reason
    return body, [("www-authenticate", challenge)]


@functools.lru_cache(maxsize=1024)
def sdk_user(caller: Caller) -> AuthenticatedUser:
    """The caller as the MCP SDK identifies a principal (its legacy sessions are bound to it); one
    object per caller (callers are immutable; the SDK only reads it)."""
    return AuthenticatedUser(
        AccessToken(
            token="-",  # the SDK never needs the bearer token itself; it is not kept in the scope
            client_id=caller.subject,
            subject=caller.subject,
            scopes=sorted(caller.roles),
            claims={"iss": caller.auth},
        )
    )
