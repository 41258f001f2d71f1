"""What replicas tell each other at once: wake-ups for long polls and change notifications.

Two channels share one listening connection per replica (`PgBus`, PostgreSQL LISTEN/NOTIFY):

- `rpa_wake` (`PgWakeBus`): "something became ready for machine M". An agent long-polls one
  replica while the action is started (or resent, or unblocked by a report) on another.
- `rpa_changes` (`PgChangeRelay`): what the `Notifier` is told (`resource_updated(uri)`,
  `tools_changed()`), so an MCP client subscribed on replica B, or a console page open on it,
  hears of a change made on replica A. Each relay stamps its messages with an origin of its
  own and drops their echo: the replica that made a change has already told its listeners.

On PostgreSQL a NOTIFY sent inside a transaction is delivered when it commits, never before
(and not at all if it rolls back), so a replica that is told always finds the committed
change. A payload must stay under PostgreSQL's 8000 bytes: a wake-up key that does not fit
wakes every machine instead; a change whose URI does not fit is not relayed (logged), never
cut into another URI. When the listening connection is lost and comes back, the subscribers
are told that they may have missed something (`None`).

`LocalWakeBus` serves a single process (SQLite), where the Notifier needs no relay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections.abc import Callable
from typing import Any

from rpa_mcp.notify import RelayedChanges
from rpa_mcp.store.db import Database

logger = logging.getLogger(__name__)
ALL = "*"  # the wake-up payload meaning "every machine"
WAKE_CHANNEL, CHANGES_CHANNEL = "rpa_wake", "rpa_changes"
MAX_PAYLOAD_BYTES = 7999  # PostgreSQL refuses a NOTIFY payload of 8000 bytes or more
Subscriber = Callable[[str | None], None]
RESOURCE, TOOLS = "r", "t"  # the kinds of change the change channel carries


class LocalWakeBus:
    """One process: the publisher's own subscribers, at once."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> None:
        self._subscribers.append(callback)

    def publish(self, key: str | None) -> None:
        for callback in self._subscribers:
            callback(key)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class PgBus:
    """NOTIFY on publish; one listening connection per replica for every channel, on a thread of its own.

    Subscribers run on the event loop that called `start()` (else on the listening thread); a
    subscriber's `None` means "the connection was lost and is back: you may have missed messages".
    """

    def __init__(self, db: Database, *, start_wait_s: float = 10.0) -> None:
        if db.dialect != "postgres":
            raise ValueError("PgBus needs the PostgreSQL backend")
        self.db, self.start_wait_s = db, start_wait_s
        self._subscribers: dict[str, list[Subscriber]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.listening = threading.Event()  # set once LISTEN is in place on every subscribed channel

    def subscribe(self, channel: str, callback: Subscriber) -> None:
        if not channel.isidentifier():
            raise ValueError(f"channel {channel!r} must be a plain identifier")
        with self._lock:
            self._subscribers.setdefault(channel, []).append(callback)
        self.listening.clear()  # until the listener has LISTENed on it too

    def publish(self, channel: str, payload: str) -> None:
        """Tell every replica (at the commit of the caller's transaction, if it is in one)."""
        if len(payload.encode()) > MAX_PAYLOAD_BYTES:
            raise ValueError(f"a {channel} payload must stay under {MAX_PAYLOAD_BYTES + 1} bytes")
        self.db.query("SELECT pg_notify(?, ?) AS sent", (channel, payload))

    def start(self) -> None:
        """Listen (call from the event loop that runs the subscribers); returns once LISTEN is in place,
        or after `start_wait_s` if the database does not answer (the listener keeps trying)."""
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._listen, name="rpa-bus-listener", daemon=True)
            self._thread.start()
        if not self.listening.wait(self.start_wait_s):
            logger.warning("not yet listening to the other replicas after %.0f s; still trying", self.start_wait_s)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self.listening.clear()

    def _channels(self) -> list[str]:
        with self._lock:
            return list(self._subscribers)

    def _deliver(self, channel: str, payload: str | None) -> None:
        with self._lock:
            callbacks = list(self._subscribers.get(channel, ()))
        for callback in callbacks:
            try:
                callback(payload)
            except Exception:  # one subscriber's failure never stops the others
                logger.exception("subscriber of %s failed", channel)

    def _listen(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.db.conninfo, autocommit=True) as conn:  # type: ignore[attr-defined]
                    listened: set[str] = set()
                    while not self._stop.is_set():
                        wanted = self._channels()
                        for channel in wanted:
                            if channel not in listened:
                                conn.execute(f"LISTEN {channel}")  # an identifier, checked by subscribe()
                                listened.add(channel)
                                self._dispatch(channel, None)  # what was sent while nobody listened here
                        if len(listened) == len(wanted):
                            self.listening.set()
                        for note in conn.notifies(timeout=1.0):
                            self._dispatch(note.channel, note.payload)
            except Exception as exc:  # the database restarted or the network broke: listen again
                self.listening.clear()
                logger.warning("the listener to the other replicas lost its connection (%r); reconnecting", exc)
                self._stop.wait(1.0)

    def _dispatch(self, channel: str, payload: str | None) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._deliver, channel, payload)
        else:
            self._deliver(channel, payload)


class PgWakeBus:
    """The wake-up channel (`replay.ports.WakeBus`): a machine's key, or None for every machine."""

    def __init__(self, db: Database, *, bus: PgBus | None = None, channel: str = WAKE_CHANNEL) -> None:
        self.bus, self.channel = bus or PgBus(db), channel

    @property
    def listening(self) -> threading.Event:
        return self.bus.listening

    def subscribe(self, callback: Callable[[str | None], None]) -> None:
        def heard(payload: str | None) -> None:
            callback(None if payload is None or payload == ALL else payload)

        self.bus.subscribe(self.channel, heard)

    def publish(self, key: str | None) -> None:
        if key is not None and len(key.encode()) > MAX_PAYLOAD_BYTES:
            key = None  # too long to name: every machine looks again, which is safe
        self.bus.publish(self.channel, key or ALL)

    def start(self) -> None:
        """Start the replica's listener (it also carries the change notifications of its bus)."""
        self.bus.start()

    def stop(self) -> None:
        self.bus.stop()


class PgChangeRelay:
    """The change channel (`notify.ChangeRelay`): a Notifier's changes to the other replicas' Notifiers.

    A payload is `<origin> r <uri>` or `<origin> t`; a relay drops what it published itself.
    """

    def __init__(self, bus: PgBus, *, channel: str = CHANGES_CHANNEL) -> None:
        self.bus, self.channel = bus, channel
        self.origin = secrets.token_hex(8)
        self._limit = MAX_PAYLOAD_BYTES - len(self.origin) - 3

    def resource_updated(self, uri: str) -> None:
        if len(uri.encode()) > self._limit or "\x00" in uri:
            size = len(uri.encode())
            logger.warning("a change of a URI that cannot be sent (%d bytes, or a NUL) is not relayed", size)
            return
        self.bus.publish(self.channel, f"{self.origin} {RESOURCE} {uri}")

    def tools_changed(self) -> None:
        self.bus.publish(self.channel, f"{self.origin} {TOOLS}")

    def subscribe(self, heard: RelayedChanges) -> None:
        listened_before = False

        def parse(payload: str | None) -> None:
            nonlocal listened_before
            if payload is None:  # (re)connected: only a reconnection can have missed something
                if listened_before:
                    heard.missed()
                listened_before = True
                return
            origin, _, rest = payload.partition(" ")
            if origin == self.origin:
                return  # our own change, already told on this replica
            kind, _, uri = rest.partition(" ")
            if kind == RESOURCE and uri:
                heard.resource_updated(uri)
            elif kind == TOOLS and not uri:
                heard.tools_changed()
            else:
                logger.warning("ignored a change message of an unknown form on %s", self.channel)

        self.bus.subscribe(self.channel, parse)


def wake_bus(db: Database, bus: PgBus | None = None) -> Any:
    """The wake-up bus for this backend (bootstrap's choice)."""
    return PgWakeBus(db, bus=bus) if db.dialect == "postgres" else LocalWakeBus()
