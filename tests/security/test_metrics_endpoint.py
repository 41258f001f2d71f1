"""GET /metrics: Prometheus text for a viewer or operator token; 401 without one, 403 for an agent."""

from __future__ import annotations

import pytest

from tests.conftest import token_for
from tests.security.conftest import AGENT_TOKEN, client_for, make_services

pytestmark = pytest.mark.anyio


async def test_metrics_need_a_token(tmp_path):
    services = make_services(tmp_path)
    async with client_for(services, None) as client:
        answer = await client.get("/metrics")
    assert answer.status_code == 401 and answer.json()["code"] == "unauthenticated"


async def test_an_agent_token_may_not_read_the_metrics(tmp_path):
    services = make_services(tmp_path)
    async with client_for(services, AGENT_TOKEN) as client:
        answer = await client.get("/metrics")
    assert answer.status_code == 403 and answer.json()["code"] == "forbidden"


@pytest.mark.parametrize("role", ["viewer", "operator"])
async def test_a_viewer_or_an_operator_reads_the_prometheus_text(tmp_path, role):
    services = make_services(tmp_path)
    services.metrics.replay_paused("UNEXPECTED_DIALOG")
    async with client_for(services, token_for(services, "prometheus", role)) as client:
        answer = await client.get("/metrics")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    text = answer.text
    assert 'rpa_replay_pauses_total{reason="UNEXPECTED_DIALOG"} 1.0' in text
    for name in ("rpa_replays_ended_total", "rpa_verdict_seconds_bucket", "rpa_image_work_wait_seconds_bucket"):
        assert name in text or name.replace("_total", "") in text
    assert 'rpa_replay_queue_depth{state="PENDING"} 0.0' in text and "rpa_image_work_running" in text
