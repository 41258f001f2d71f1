"""The change feed behind the live pages: it wakes the streams that watch a matching URI, and caps them."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
import pytest

from rpa_mcp.confirmation.service import APPROVALS_URI
from rpa_mcp.console import live
from rpa_mcp.notify import Notifier, RelayedChanges

pytestmark = pytest.mark.anyio


async def test_a_change_wakes_only_the_streams_that_watch_its_uri() -> None:
    notifier = Notifier()
    feed = live.ChangeFeed(notifier)
    _, replay = feed.watch("rpa://replays/rp_1")
    _, session = feed.watch("rpa://sessions/s1/")
    notifier.resource_updated("rpa://replays/rp_1")
    assert replay.is_set() and not session.is_set()
    notifier.resource_updated("rpa://sessions/s1/understanding")
    assert session.is_set()


async def test_a_change_told_from_a_worker_thread_wakes_the_stream_on_its_loop() -> None:
    notifier = Notifier()
    feed = live.ChangeFeed(notifier)
    _, replay = feed.watch("rpa://replays/rp_1")
    await anyio.to_thread.run_sync(notifier.resource_updated, "rpa://replays/rp_1")  # operations run there
    with anyio.fail_after(10):
        await replay.wait()


async def test_a_request_waiting_for_a_person_wakes_the_approvals_stream(services: Any) -> None:
    from tests.console.test_approvals import propose_replay

    feed = live.ChangeFeed(services.notifier)
    _, approvals = feed.watch(APPROVALS_URI)
    jti = await propose_replay(services)
    with anyio.fail_after(10):
        await approvals.wait()
    approvals.clear()
    services.confirmations.decide(jti, services_actor("carol"), True)
    with anyio.fail_after(10):
        await approvals.wait()


class Wire:
    """Replicas' relays in memory: what one publishes, every other one hears (never the publisher)."""

    def __init__(self) -> None:
        self.ends: list[Wire.End] = []
        self.sent = 0

    class End:
        def __init__(self, wire: Wire) -> None:
            self.wire, self.heard = wire, []
            wire.ends.append(self)

        def resource_updated(self, uri: str) -> None:
            self.wire.sent += 1
            for end in self.wire.ends:
                if end is not self:
                    for heard in end.heard:
                        heard.resource_updated(uri)

        def tools_changed(self) -> None:
            self.wire.sent += 1
            for end in self.wire.ends:
                if end is not self:
                    for heard in end.heard:
                        heard.tools_changed()

        def subscribe(self, heard: RelayedChanges) -> None:
            self.heard.append(heard)


async def test_a_change_made_on_another_replica_wakes_the_streams_here_and_is_not_sent_back() -> None:
    wire = Wire()
    here, there = Notifier(relay=Wire.End(wire)), Notifier(relay=Wire.End(wire))
    feed, elsewhere = live.ChangeFeed(here), live.ChangeFeed(there)
    _, replay = feed.watch("rpa://replays/rp_1")
    _, local = elsewhere.watch("rpa://replays/rp_1")
    await anyio.to_thread.run_sync(there.resource_updated, "rpa://replays/rp_1")  # made on the other replica
    with anyio.fail_after(10):
        await replay.wait()
        await local.wait()  # told at once where it was made too
    assert wire.sent == 1  # relayed once; hearing it did not relay it back


async def test_a_failing_relay_does_not_break_the_change_nor_its_local_listeners() -> None:
    class Broken(Wire.End):
        def resource_updated(self, uri: str) -> None:
            raise ConnectionError("the database went away")

    notifier = Notifier(relay=Broken(Wire()))
    feed = live.ChangeFeed(notifier)
    _, replay = feed.watch("rpa://replays/rp_1")
    notifier.resource_updated("rpa://replays/rp_1")  # logged, not raised
    assert replay.is_set()


async def test_live_streams_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "MAX_STREAMS", 2)
    feed = live.ChangeFeed(None)
    for _ in range(2):
        feed.watch("rpa://replays/x")

    async def render() -> Any:
        return []

    response = live.sse_stream(None, feed, ("rpa://replays/x",), render, still_allowed=lambda: True)  # type: ignore[arg-type]
    assert response.status_code == 429 and response.headers["retry-after"] == "30"


def services_actor(subject: str) -> Any:
    from rpa_mcp.identity import Caller

    return Caller(subject, frozenset({"approver"}), via="web")
