"""The metrics port over `prometheus-client`, and the text `GET /metrics` answers.

Each server has its own `CollectorRegistry` (not the library's global one): two servers in one
process, as in the tests, count apart. Queue depth and running image work are read when
Prometheus scrapes, from the callables given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
WAIT_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _Scraped(Collector):
    """Gauges read at scrape time: open replay actions by state, image work running now."""

    def __init__(self, queue: Callable[[], Mapping[str, int]], running: Callable[[], int]) -> None:
        self.queue, self.running = queue, running

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily(
            "rpa_replay_queue_depth", "Replay actions not yet finished, by state (all replays).", labels=["state"]
        )
        for state, count in sorted(self.queue().items()):
            depth.add_metric([state], count)
        yield depth
        yield GaugeMetricFamily("rpa_image_work_running", "Image decodes/analyses running now.", value=self.running())


class PrometheusMetrics:
    """`Metrics` for Prometheus: counters and histograms, and the scrape-time gauges."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self, *, queue: Callable[[], Mapping[str, int]], running: Callable[[], int]) -> None:
        self.registry = CollectorRegistry()
        self._ended = Counter(
            "rpa_replays_ended", "Replays that reached an end, by outcome.", ["outcome"], registry=self.registry
        )
        self._paused = Counter(
            "rpa_replay_pauses", "Pauses for a person, by reason.", ["reason"], registry=self.registry
        )
        self._verdict = Histogram(
            "rpa_verdict_seconds",
            "From an agent's report to the engine's decision (validation, dialog policy).",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self._waited = Histogram(
            "rpa_image_work_wait_seconds",
            "Time an image decode/analysis waited for a slot (RPA_IMAGE_WORK_SLOTS).",
            buckets=WAIT_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_Scraped(queue, running))

    def replay_ended(self, outcome: str) -> None:
        self._ended.labels(outcome=outcome).inc()

    def replay_paused(self, reason: str) -> None:
        self._paused.labels(reason=reason).inc()

    def verdict_seconds(self, seconds: float) -> None:
        self._verdict.observe(seconds)

    def image_work_waited(self, seconds: float) -> None:
        self._waited.observe(seconds)

    def render(self) -> bytes:
        """The text exposition format, for `GET /metrics`."""
        return bytes(generate_latest(self.registry))
