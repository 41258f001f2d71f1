"""Change notifications across replicas (PostgreSQL LISTEN/NOTIFY): two connection pools on one
database, each with its own bus and Notifier, stand for two replicas."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import anyio
import pytest

from rpa_mcp.notify import Notifier
from rpa_mcp.store.notify import MAX_PAYLOAD_BYTES, PgBus, PgChangeRelay, PgWakeBus
from rpa_mcp.store.postgres import PostgresDatabase

pytestmark = pytest.mark.anyio


@dataclass
class Heard:
    """A listener that records what it is told and lets a test wait for one thing."""

    told: list[str] = field(default_factory=list)
    waiting: dict[str, anyio.Event] = field(default_factory=dict)

    def resource_updated(self, uri: str) -> None:
        self._told(uri)

    def tools_changed(self) -> None:
        self._told("tools")

    def _told(self, what: str) -> None:
        self.told.append(what)
        if what in self.waiting:
            self.waiting[what].set()

    async def until(self, what: str) -> None:
        if what in self.told:
            return
        event = self.waiting.setdefault(what, anyio.Event())
        with anyio.fail_after(30):
            await event.wait()


@dataclass
class Replica:
    db: PostgresDatabase
    bus: PgBus
    notifier: Notifier
    heard: Heard


@pytest.fixture
def two(pg_url: str) -> Iterator[list[Replica]]:
    replicas = []
    for _ in range(2):
        db = PostgresDatabase(pg_url)
        bus = PgBus(db)
        notifier, heard = Notifier(relay=PgChangeRelay(bus)), Heard()
        notifier.attach(heard)
        replicas.append(Replica(db, bus, notifier, heard))
    yield replicas
    for r in replicas:
        r.bus.stop()
        r.db.close()


def _start(replicas: list[Replica]) -> None:
    for r in replicas:
        r.bus.start()  # returns once LISTEN is in place
        assert r.bus.listening.is_set()


async def test_a_change_on_one_replica_is_told_on_the_other_and_once_on_its_own(two):
    a, b = two
    _start(two)
    a.notifier.resource_updated("rpa://replays/rp_1")
    assert a.heard.told == ["rpa://replays/rp_1"]  # at once, before any round trip
    await b.heard.until("rpa://replays/rp_1")
    b.notifier.resource_updated("rpa://sentinel")  # sent after A's echo reached A's listener connection
    await a.heard.until("rpa://sentinel")
    assert a.heard.told == ["rpa://replays/rp_1", "rpa://sentinel"]  # its own echo was dropped
    assert b.heard.told == ["rpa://replays/rp_1", "rpa://sentinel"]


async def test_the_tool_list_change_crosses_too(two):
    a, b = two
    _start(two)
    a.notifier.tools_changed()
    await b.heard.until("tools")
    assert b.heard.told == ["tools"]


async def test_a_change_inside_a_transaction_is_told_at_its_commit_and_never_if_it_rolls_back(two):
    a, b = two
    _start(two)
    with pytest.raises(RuntimeError), a.db.transaction():
        a.notifier.resource_updated("rpa://replays/rolled-back")
        raise RuntimeError("the operation failed")
    with a.db.transaction():
        a.notifier.resource_updated("rpa://replays/committed")
    await b.heard.until("rpa://replays/committed")
    assert b.heard.told == ["rpa://replays/committed"]
    assert a.heard.told == ["rpa://replays/rolled-back", "rpa://replays/committed"]  # told here as it happened


async def test_a_uri_too_long_for_a_notify_payload_is_told_here_but_never_cut_into_another(two):
    a, b = two
    _start(two)
    long = "rpa://competences/validated/" + "é" * MAX_PAYLOAD_BYTES
    a.notifier.resource_updated(long)
    a.notifier.resource_updated("rpa://after")
    await b.heard.until("rpa://after")
    assert b.heard.told == ["rpa://after"] and a.heard.told == [long, "rpa://after"]


async def test_a_wake_up_key_too_long_to_send_wakes_every_machine(pg_url):
    db = PostgresDatabase(pg_url)
    bus = PgBus(db)
    wake, keys = PgWakeBus(db, bus=bus), []
    woke = anyio.Event()

    def heard(key: str | None) -> None:
        keys.append(key)
        if len(keys) == 2:
            woke.set()

    wake.subscribe(heard)
    try:
        wake.start()
        wake.publish("m" * (MAX_PAYLOAD_BYTES + 1))
        with anyio.fail_after(30):
            await woke.wait()
    finally:
        wake.stop()
        db.close()
    assert keys == [None, None]  # on listening (look again), then the too-long key as "every machine"


async def test_after_losing_its_connection_a_replica_says_it_may_have_missed_changes(two):
    a, b = two
    _start(two)
    ended = a.db.query(
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity "
        "WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
    )
    assert ended and all(r["ended"] for r in ended)
    await b.heard.until("tools")  # reconnected (LISTEN again): clients should list the tools again
    a.notifier.resource_updated("rpa://replays/after-reconnect")
    await b.heard.until("rpa://replays/after-reconnect")
