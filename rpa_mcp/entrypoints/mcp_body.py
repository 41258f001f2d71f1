"""The body of every POST /mcp, read whole and decoded strictly before the MCP SDK sees it.

The SDK parses JSON-RPC itself, but it accepts `NaN`, and a body that goes over the size
limit while it is being streamed (chunked, no Content-Length) surfaces as a 500. Here the
body is read once up to the limit (413 past it, whatever the framing), decoded by the same
strict rules as REST (`ops.json_input`: 400 naming the problem), and replayed to the SDK
unchanged. Errors are JSON-RPC error objects, as an MCP client expects them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio.to_thread

from rpa_mcp.errors import MalformedJson
from rpa_mcp.ops.json_input import JsonLimits, loads

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
OFF_LOOP_BYTES = 256 * 1024


async def send_rpc_error(send: Any, status: int, rpc_code: int, code: str, message: str) -> None:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": rpc_code, "message": message, "data": {"code": code}}}
    payload = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


class McpBodyGuard:
    def __init__(self, app: ASGIApp, *, path: str, max_bytes: int, limits: JsonLimits) -> None:
        self.app, self.path, self.max_bytes, self.limits = app, path, max_bytes, limits

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != self.path:
            return await self.app(scope, receive, send)
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await send_rpc_error(
                    send,
                    413,
                    INVALID_REQUEST,
                    "payload-too-large",
                    f"Request body over {self.max_bytes} bytes (RPA_MAX_BODY_BYTES)",
                )
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            if len(body) > OFF_LOOP_BYTES:
                await anyio.to_thread.run_sync(loads, body, self.limits)
            else:
                loads(body, self.limits)
        except MalformedJson as exc:
            return await send_rpc_error(send, 400, PARSE_ERROR, exc.code, f"Parse error: {exc.message}")
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
