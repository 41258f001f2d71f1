"""Live updates without reloading: server-sent events carrying HTML fragments.

`ChangeFeed` listens to the same changes as MCP subscriptions (`rpa://replays/<id>`,
`rpa://sessions/<id>/understanding`, `rpa://approvals`, ...) and wakes the streams that watch a
matching URI. Every replica's notifier hears every replica's changes (on PostgreSQL through
LISTEN/NOTIFY, see `rpa_mcp.notify`), so a page open on one replica is pushed what another
changed, at once. A stream also re-reads at every keep-alive (`KEEPALIVE_S`): a net for the
changes made while its replica was not listening (a lost database connection).
A stream (`sse_stream`) renders what changed since it last sent and pushes it as one
`patch` event: a JSON list of `{"op": "replace" | "append", "id": ..., "html": ...}`
that `static/console.js` applies to the page. The HTML is rendered by the same
autoescaped templates as the page; the script never builds markup itself.

Without a notifier, streams fall back to re-reading every `POLL_S`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

logger = logging.getLogger(__name__)
KEEPALIVE_S = 15.0
POLL_S = 2.0
MAX_STREAMS = 200
Patch = list[dict[str, str]]
Render = Callable[[], Awaitable[Patch]]


class ChangeFeed:
    """A change listener of the server's `Notifier` (the one MCP subscriptions hear): it wakes the
    streams that watch a URI prefix of what changed. Changes may be told from worker threads
    (operations run there) or from the listener of the other replicas' changes; the streams'
    flags are set on the event loop that watches them."""

    def __init__(self, notifier: Any | None) -> None:
        self._waiters: dict[int, tuple[tuple[str, ...], asyncio.Event]] = {}
        self._next = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self.pushed = notifier is not None  # changes are told; without a notifier, streams re-read
        if notifier is not None:
            notifier.attach(self)

    # the ChangeListener protocol
    def resource_updated(self, uri: str) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return  # nobody watches yet
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._wake(uri)
        else:
            loop.call_soon_threadsafe(self._wake, uri)

    def tools_changed(self) -> None:
        pass

    def _wake(self, uri: str) -> None:
        for prefixes, flag in list(self._waiters.values()):
            if uri.startswith(prefixes):
                flag.set()

    def watch(self, *prefixes: str) -> tuple[int, asyncio.Event]:
        self._loop = asyncio.get_running_loop()
        self._next += 1
        flag = asyncio.Event()
        self._waiters[self._next] = (prefixes, flag)
        return self._next, flag

    def unwatch(self, key: int) -> None:
        self._waiters.pop(key, None)

    @property
    def streams(self) -> int:
        return len(self._waiters)


def _event(patch: Patch) -> bytes:
    return f"event: patch\ndata: {json.dumps(patch, ensure_ascii=False)}\n\n".encode()


def sse_stream(
    request: Request,
    feed: ChangeFeed,
    prefixes: tuple[str, ...],
    render: Render,
    *,
    still_allowed: Callable[[], bool],
    poll_s: float | None = None,
) -> Response:
    """An event stream sending `render()`'s patch whenever a watched URI changes (or every poll_s).

    At most MAX_STREAMS streams are open at once (429 beyond): each one holds a connection."""
    if feed.streams >= MAX_STREAMS:
        return Response("too many live pages are open; reload later", status_code=429, headers={"retry-after": "30"})
    key, flag = feed.watch(*prefixes)
    interval = poll_s if poll_s is not None else (KEEPALIVE_S if feed.pushed else POLL_S)

    async def events() -> AsyncIterator[bytes]:
        try:
            yield b"retry: 2000\n: connected\n\n"
            while True:
                try:
                    await asyncio.wait_for(flag.wait(), timeout=interval)
                except TimeoutError:
                    if not still_allowed():
                        yield b"event: ended\ndata: {}\n\n"
                        return
                    yield b": keepalive\n\n"  # and re-read: a change may have been missed while not listening
                flag.clear()
                patch = await render()
                if patch:
                    yield _event(patch)
        finally:
            feed.unwatch(key)

    headers = {"cache-control": "no-store", "x-accel-buffering": "no", "x-content-type-options": "nosniff"}
    return StreamingResponse(events(), media_type="text/event-stream", headers=headers)
