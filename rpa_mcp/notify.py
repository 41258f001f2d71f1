"""Change notifications: one `Notifier` that the areas tell, listeners that the surfaces attach.

The areas (shadow, competences, replay) say what changed (`resource_updated(uri)`,
`tools_changed()`); the MCP surface attaches a listener that pushes it to the clients that
listen. A listener that fails never breaks the operation that changed something.
"""

from __future__ import annotations

import logging
from typing import Protocol

logger = logging.getLogger(__name__)


class ChangeListener(Protocol):
    """What a surface implements to hear about changes."""

    def resource_updated(self, uri: str) -> None: ...

    def tools_changed(self) -> None: ...


class Notifier:
    """Fans every change out to the attached listeners (none by default)."""

    def __init__(self) -> None:
        self._listeners: list[ChangeListener] = []

    def attach(self, listener: ChangeListener) -> None:
        self._listeners.append(listener)

    def detach(self, listener: ChangeListener) -> None:
        self._listeners = [x for x in self._listeners if x is not listener]

    def resource_updated(self, uri: str) -> None:
        for listener in list(self._listeners):
            try:
                listener.resource_updated(uri)
            except Exception:
                logger.exception("a change listener failed on %s", uri)

    def tools_changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener.tools_changed()
            except Exception:
                logger.exception("a change listener failed on tools_changed")


__all__ = ["ChangeListener", "Notifier"]
