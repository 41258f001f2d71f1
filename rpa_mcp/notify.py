"""Change notifications: one `Notifier` that the areas tell, listeners that the surfaces attach.

The areas (shadow, competences, replay) say what changed (`resource_updated(uri)`,
`tools_changed()`); the surfaces attach listeners: the MCP surface pushes it to the clients
that listen, the console wakes its live pages. A listener that fails never breaks the
operation that changed something.

Several replicas: the Notifier is given a `ChangeRelay` (bootstrap's choice; on PostgreSQL
LISTEN/NOTIFY, `store.notify.PgChangeRelay`). A change is told to this replica's listeners at
once and handed to the relay; every other replica's Notifier hears it from its relay and tells
its own listeners, exactly as if it had been made there. The relay drops the echo of what its
own replica sent, so a change is told once on every replica. One process needs no relay.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

logger = logging.getLogger(__name__)


class ChangeListener(Protocol):
    """What a surface implements to hear about changes."""

    def resource_updated(self, uri: str) -> None: ...

    def tools_changed(self) -> None: ...


class RelayedChanges(ChangeListener, Protocol):
    """What a relay tells the Notifier: the other replicas' changes, and when some may have been missed."""

    def missed(self) -> None: ...


class ChangeRelay(Protocol):
    """Carries this replica's changes to the other replicas, and theirs back (never its own)."""

    def resource_updated(self, uri: str) -> None: ...

    def tools_changed(self) -> None: ...

    def subscribe(self, heard: RelayedChanges) -> None: ...


class Notifier:
    """Fans every change out to the attached listeners (none by default), and through the relay if any."""

    def __init__(self, relay: ChangeRelay | None = None) -> None:
        self._listeners: list[ChangeListener] = []
        self.relay = relay
        if relay is not None:
            relay.subscribe(_FromOtherReplicas(self))

    def attach(self, listener: ChangeListener) -> None:
        self._listeners.append(listener)

    def detach(self, listener: ChangeListener) -> None:
        self._listeners = [x for x in self._listeners if x is not listener]

    def resource_updated(self, uri: str) -> None:
        self.tell_here(uri)
        if self.relay is not None:
            self._relay(lambda relay: relay.resource_updated(uri), uri)

    def tools_changed(self) -> None:
        self.tell_here(None)
        if self.relay is not None:
            self._relay(lambda relay: relay.tools_changed(), "tools_changed")

    def tell_here(self, uri: str | None) -> None:
        """Tell this replica's listeners only: `uri` was updated, or (None) the tool list changed."""
        for listener in list(self._listeners):
            try:
                if uri is None:
                    listener.tools_changed()
                else:
                    listener.resource_updated(uri)
            except Exception:
                logger.exception("a change listener failed on %s", uri or "tools_changed")

    def _relay(self, send: Callable[[ChangeRelay], None], what: str) -> None:
        assert self.relay is not None
        try:
            send(self.relay)
        except Exception:  # the other replicas miss this one change; the operation stands
            logger.exception("could not tell the other replicas of %s", what)


class _FromOtherReplicas:
    """The relay's side of a Notifier: what another replica changed is told here, never relayed back."""

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier

    def resource_updated(self, uri: str) -> None:
        self.notifier.tell_here(uri)

    def tools_changed(self) -> None:
        self.notifier.tell_here(None)

    def missed(self) -> None:
        # The connection to the other replicas was lost for a while: the tool list may have changed
        # (clients list it again); resources changed meanwhile are not known (console pages re-read).
        logger.warning("changes made on other replicas while this one was not listening may not have been told")
        self.notifier.tell_here(None)


__all__ = ["ChangeListener", "ChangeRelay", "Notifier", "RelayedChanges"]
