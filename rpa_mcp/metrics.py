"""The metrics port: what the engine counts, with no monitoring library in sight.

The replay engine and the image work call a `Metrics`; `bootstrap` gives them the Prometheus
adapter (`rpa_mcp.metrics_prometheus`), tests and tools `NoMetrics` or a recording fake.
"""

from __future__ import annotations

from typing import Protocol


class Metrics(Protocol):
    def replay_ended(self, outcome: str) -> None:
        """A replay reached an end state (`completed`, `cancelled`, `failed`, ...)."""

    def replay_paused(self, reason: str) -> None:
        """A replay paused for a person (`reason`: the pause reason, e.g. `UNEXPECTED_DIALOG`)."""

    def verdict_seconds(self, seconds: float) -> None:
        """A report was judged: from its arrival to the engine's decision (image-work wait included)."""

    def image_work_waited(self, seconds: float) -> None:
        """An image decode or analysis waited this long for a free slot (RPA_IMAGE_WORK_SLOTS)."""


class NoMetrics:
    """Counts nothing."""

    def replay_ended(self, outcome: str) -> None:
        return None

    def replay_paused(self, reason: str) -> None:
        return None

    def verdict_seconds(self, seconds: float) -> None:
        return None

    def image_work_waited(self, seconds: float) -> None:
        return None
