"""The change feed behind the live pages: it wakes the streams that watch a matching URI, and caps them."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated

from rpa_mcp.console import live

pytestmark = pytest.mark.anyio


async def test_a_change_wakes_only_the_streams_that_watch_its_uri() -> None:
    bus = InMemorySubscriptionBus()
    feed = live.ChangeFeed(bus)
    _, replay = feed.watch("rpa://replays/rp_1")
    _, session = feed.watch("rpa://sessions/s1/")
    await bus.publish(ResourceUpdated(uri="rpa://replays/rp_1"))
    assert replay.is_set() and not session.is_set()
    await bus.publish(ResourceUpdated(uri="rpa://sessions/s1/understanding"))
    assert session.is_set()


async def test_live_streams_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "MAX_STREAMS", 2)
    feed = live.ChangeFeed(None)
    for _ in range(2):
        feed.watch("rpa://replays/x")

    async def render() -> Any:
        return []

    response = live.sse_stream(None, feed, ("rpa://replays/x",), render, still_allowed=lambda: True)  # type: ignore[arg-type]
    assert response.status_code == 429 and response.headers["retry-after"] == "30"
