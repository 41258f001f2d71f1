"""Change notifications to MCP clients: resource updates and tool-list changes, both protocol eras."""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any

from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated, ToolsListChanged

logger = logging.getLogger(__name__)


class McpPublisher:
    """A change listener: publishes resource/tool changes to 2026 listeners (bus) and subscribed 2025 sessions."""

    def __init__(self, bus: InMemorySubscriptionBus) -> None:
        self.bus = bus
        # 2025-era connections -> (a session proxy on it, subscribed URIs). A ServerSession is a per-request
        # proxy; its connection outlives the request, and non-request-scoped notifications use that connection.
        self.legacy: weakref.WeakKeyDictionary[Any, tuple[Any, set[str]]] = weakref.WeakKeyDictionary()
        self._tasks: set[asyncio.Task[None]] = set()

    def remember(self, session: Any) -> set[str]:
        """Track a 2025-era session so changes reach it later; returns its subscribed URIs."""
        connection = getattr(session, "_connection", session)  # the SDK keeps no public handle on it
        known = self.legacy.get(connection)
        uris = known[1] if known else set()
        self.legacy[connection] = (session, uris)
        return uris

    def bind_loop(self) -> None:
        """Remember the server's event loop (called from the app lifespan)."""
        self._loop = asyncio.get_running_loop()

    def _spawn(self, coro: Any) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # called from a worker thread: hand over to the server's loop
            bound: asyncio.AbstractEventLoop | None = getattr(self, "_loop", None)
            if bound is None or bound.is_closed():
                coro.close()
                return
            bound.call_soon_threadsafe(self._start, coro)
            return
        self._start(coro)

    def _start(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def resource_updated(self, uri: str) -> None:
        self._spawn(self._publish(ResourceUpdated(uri=uri), uri=uri))

    def tools_changed(self) -> None:
        self._spawn(self._publish(ToolsListChanged(), uri=None))

    async def _publish(self, event: Any, *, uri: str | None) -> None:
        try:
            await self.bus.publish(event)
            for session, uris in list(self.legacy.values()):
                if uri is None:
                    await session.send_tool_list_changed()
                elif uri in uris:
                    await session.send_resource_updated(uri)
        except Exception:  # a gone client must not break the operation that changed something
            logger.debug("notification not delivered", exc_info=True)
