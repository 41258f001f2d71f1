"""Wake-ups across replicas: "something became ready for machine M" (LISTEN/NOTIFY).

An agent long-polls one replica while the action is started (or resent, or unblocked by a
report) on another. `publish(key)` tells every replica; each runs its subscribers on its
event loop. On PostgreSQL a NOTIFY sent inside a transaction is delivered when it commits,
never before, so a woken poller always finds the committed action. `LocalWakeBus` serves a
single process (SQLite).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from rpa_mcp.store.db import Database

logger = logging.getLogger(__name__)
ALL = "*"  # the payload meaning "every machine"
Subscriber = Callable[[str | None], None]


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


class PgWakeBus:
    """NOTIFY on publish; one listening connection per replica, on a thread of its own."""

    def __init__(self, db: Database, *, channel: str = "rpa_wake") -> None:
        if db.dialect != "postgres":
            raise ValueError("PgWakeBus needs the PostgreSQL backend")
        self.db, self.channel = db, channel
        self._subscribers: list[Subscriber] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.listening = threading.Event()  # set once LISTEN is in place (tests, start-up)

    def subscribe(self, callback: Subscriber) -> None:
        self._subscribers.append(callback)

    def publish(self, key: str | None) -> None:
        self.db.query("SELECT pg_notify(?, ?) AS sent", (self.channel, key or ALL))

    def start(self) -> None:
        """Listen (call from the event loop that runs the subscribers)."""
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._listen, name="rpa-wake-listener", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _deliver(self, payload: str) -> None:
        key = None if payload == ALL else payload
        for callback in self._subscribers:
            try:
                callback(key)
            except Exception:  # one subscriber's failure never stops the others
                logger.exception("wake-up subscriber failed")

    def _listen(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.db.conninfo, autocommit=True) as conn:  # type: ignore[attr-defined]
                    conn.execute(f"LISTEN {self.channel}")
                    self.listening.set()
                    self._deliver(ALL)  # what was published while nobody listened: poll again
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=1.0):
                            self._dispatch(note.payload)
            except Exception as exc:  # the database restarted or the network broke: listen again
                self.listening.clear()
                logger.warning("wake-up listener lost its connection (%r); reconnecting", exc)
                self._stop.wait(1.0)

    def _dispatch(self, payload: str) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._deliver, payload)
        else:
            self._deliver(payload)


def wake_bus(db: Database) -> Any:
    """The bus for this backend (bootstrap's choice)."""
    return PgWakeBus(db) if db.dialect == "postgres" else LocalWakeBus()
