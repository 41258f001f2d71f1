"""Legacy (2025-11-25) MCP sessions: a cap per identity under the global cap.

The SDK keeps each legacy session in memory until the client deletes it or it idles out, and
refuses every new one (503) once `max_sessions` are open: one identity that never closes its
sessions could use them all up for everyone. Here each identity (the principal of the bearer
token, as the SDK binds sessions to it) holds at most `per_identity` sessions: opening one more
closes that identity's oldest, so only the abuser's own sessions are ever evicted.

The SDK offers no hook for this; `_admit_session` is the one method of its manager that is
overridden (the tests of this module pin its behaviour, so an SDK change that moves it fails them).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import INVALID_REQUEST
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route


class IdentityCappedSessions(StreamableHTTPSessionManager):
    def __init__(self, *args: Any, per_identity: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.per_identity = per_identity
        self._owned: dict[tuple[Any, ...], OrderedDict[str, None]] = {}  # identity -> its sessions, oldest first
        self.evicted = 0

    def sessions_of(self, requestor: Any) -> int:
        owned = self._owned.get(_identity(requestor), OrderedDict())
        return sum(1 for sid in owned if sid in self._server_instances)

    def _admit_session(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        key = _identity(requestor)
        owned = self._owned.setdefault(key, OrderedDict())
        for ended in [sid for sid in owned if sid not in self._server_instances]:  # deleted or idled out
            del owned[ended]
        while len(owned) >= self.per_identity:
            oldest, _ = owned.popitem(last=False)
            self._evict(oldest)
        transport = super()._admit_session(requestor)
        if transport is not None and transport.mcp_session_id is not None:
            owned[transport.mcp_session_id] = None
        if not owned:
            del self._owned[key]
        if len(self._owned) > 2 * (self.max_sessions or 1000):
            self._prune()
        return transport

    def _evict(self, session_id: str) -> None:
        """Forget the session now (its id answers 404 from here on) and terminate it in the background."""
        transport = self._server_instances.pop(session_id, None)
        self._session_owners.pop(session_id, None)
        if transport is not None and self._task_group is not None:
            self.evicted += 1
            self._task_group.start_soon(transport.terminate)

    def _prune(self) -> None:
        for key in list(self._owned):
            live = OrderedDict((sid, None) for sid in self._owned[key] if sid in self._server_instances)
            if live:
                self._owned[key] = live
            else:
                del self._owned[key]


def _identity(requestor: Any) -> tuple[Any, ...]:
    return tuple(sorted(requestor.items())) if isinstance(requestor, dict) else ("anonymous",)


def mcp_http_app(
    server: MCPServer,
    *,
    path: str,
    max_body_bytes: int,
    security: TransportSecuritySettings,
    max_sessions: int,
    per_identity: int,
    idle_timeout_s: float,
) -> Starlette:
    """What `server.streamable_http_app()` builds (no SDK auth: ours runs before), on the capped manager."""
    manager = IdentityCappedSessions(
        app=server._lowlevel_server,
        security_settings=security,
        max_request_body_size=max_body_bytes,
        session_idle_timeout=idle_timeout_s,
        max_sessions=max_sessions,
        per_identity=per_identity,
    )
    server._lowlevel_server._session_manager = manager  # `server.session_manager` is what the lifespan runs
    return Starlette(routes=[Route(path, endpoint=NoResumption(StreamableHTTPASGIApp(manager)))])


class NoResumption:
    """`GET` with `Last-Event-ID` asks to resume a stream from an event history this server does not keep.

    The SDK's transport, without an event store, sends no answer at all (the ASGI server then answers 500);
    here it is a 400 that says what to do: open the stream again without the header.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or [])
        if scope.get("method") == "GET" and b"last-event-id" in headers:
            body = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {
                    "code": INVALID_REQUEST,
                    "message": "this server keeps no event history to resume from; "
                    "open the stream without Last-Event-ID",
                },
            }
            return await JSONResponse(body, status_code=400)(scope, receive, send)
        await self.app(scope, receive, send)
