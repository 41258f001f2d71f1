"""The replay engine counts through its metrics port: replays ended by outcome, pauses by reason,
verdict latency, image-work waits, and the queue depth read at scrape time."""

from __future__ import annotations

import pytest

from rpa_mcp.metrics_prometheus import PrometheusMetrics
from rpa_mcp.replay import model as m
from tests.replay.kit import Verdict, drain, steps

pytestmark = pytest.mark.anyio


@pytest.fixture
def metrics(service) -> PrometheusMetrics:
    counted = PrometheusMetrics(queue=service.store.open_action_counts, running=lambda: service.image_work.running)
    service.metrics = counted
    service.image_work.metrics = counted
    return counted


def sample(metrics: PrometheusMetrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


async def test_a_pause_and_a_completion_are_counted_with_their_reason_and_outcome(
    service, services, agent, clock, metrics
):
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_DIALOG")]
    rid = await service.start(steps=steps(2), competence="c", version=1, machine_id="pc-1")
    assert sample(metrics, "rpa_replay_queue_depth", state="PENDING") == 2
    await drain(service, [agent], clock)
    assert sample(metrics, "rpa_replay_pauses_total", reason=m.UNEXPECTED_DIALOG) == 1
    assert sample(metrics, "rpa_replays_ended_total", outcome=m.COMPLETED) == 0
    await service.answer(rid, "click:Oui")
    await drain(service, [agent], clock)
    assert service.store.get_replay(rid)["state"] == m.COMPLETED
    assert sample(metrics, "rpa_replays_ended_total", outcome=m.COMPLETED) == 1
    reports = len([a for a in service.store.actions(rid) if a["state"] == m.ACKED])
    assert sample(metrics, "rpa_verdict_seconds_count") >= reports >= 3
    assert sample(metrics, "rpa_image_work_wait_seconds_count") >= reports
    assert sample(metrics, "rpa_replay_queue_depth", state="PENDING") == 0


async def test_a_cancelled_replay_is_counted_once(service, metrics):
    rid = await service.start(steps=steps(3), competence="c", version=1, machine_id="pc-1")
    await service.cancel(rid, by="olga")
    await service.cancel(rid, by="olga")  # already ended: not counted again
    assert sample(metrics, "rpa_replays_ended_total", outcome=m.CANCELLED) == 1
    assert b"rpa_replays_ended_total" in metrics.render()
