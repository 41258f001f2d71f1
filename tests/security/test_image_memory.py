"""Memory stays bounded whatever the images: one frame budget for all sessions, bounded image work."""

from __future__ import annotations

import base64
import time

import anyio
import httpx2
import numpy as np
import pytest

from rpa_mcp.bench.server import server_process
from rpa_mcp.vision.budget import FrameCache
from tests.security.conftest import AGENT_TOKEN, client_for, image_arg, make_services, operator, png

pytestmark = pytest.mark.anyio
MIB = 1024 * 1024


def screenshot_event(session: str, machine: str, data: bytes, index: int = 0) -> dict:
    return {
        "session_id": session,
        "machine_id": machine,
        "ts": time.time() + index,
        "type": "focus",
        "window_title": "Dossier patient",
        "app": "msedge.exe",
        "screenshot": base64.b64encode(data).decode(),
        "event_id": f"{session}-{index}",
    }


def test_the_cache_evicts_the_least_recently_used_frame_to_stay_under_its_budget():
    cache = FrameCache(max_bytes=3 * 1000)
    frames = {k: np.zeros(1000, np.uint8) for k in "abcd"}
    for key in "abc":
        cache.put(key, frames[key])
    assert cache.get("a") is not None  # a is now the most recently used
    cache.put("d", frames["d"])
    assert cache.get("b") is None and {k for k in "acd" if cache.get(k) is not None} == set("acd")
    assert cache.bytes_used == 3000 and cache.evictions == 1
    cache.put("huge", np.zeros(5000, np.uint8))  # larger than the whole budget: not kept, nothing evicted
    assert cache.get("huge") is None and len(cache) == 3
    with pytest.raises(ValueError):
        frames["a"][0] = 1  # a cached frame is shared: read-only


async def test_the_frames_of_many_sessions_share_one_byte_budget(tmp_path):
    frame = png(2000, 1500)  # 9 MB decoded, 10 KB on the wire
    budget = 3 * 2000 * 1500 * 3
    services = make_services(tmp_path, frame_cache_bytes=budget)
    async with client_for(services, AGENT_TOKEN) as client:
        for i in range(10):
            r = await client.post(
                "/api/v1/traces/stream/event", json={"events": [screenshot_event(f"s{i}", "M1", frame)]}
            )
            assert r.status_code == 200, r.text
        click = {"session_id": "s9", "machine_id": "M1", "ts": time.time() + 5, "type": "click", "x": 50, "y": 40}
        assert (await client.post("/api/v1/traces/stream/event", json=click)).status_code == 200
    assert services.frames is services.shadow.frames  # one budget, not one per service
    assert services.frames.bytes_used <= budget and len(services.frames) == 3
    assert services.frames.evictions == 7
    facts = services.db.query_one("SELECT facts FROM trace_events WHERE session_id = 's9' AND type = 'click'")
    assert "anchor" in facts["facts"]  # the click still got its anchor crop from the cached frame


async def test_concurrent_image_work_never_exceeds_its_slots(tmp_path):
    services = make_services(tmp_path, image_work_slots=2, image_work_queue_per_identity=8)  # one caller, 8 at once
    frame = image_arg(png(1600, 1200))
    body = {"action_type": "click_anchor", "before": frame, "after": frame, "target": {"bbox": [10, 10, 50, 20]}}
    statuses: list[int] = []
    async with client_for(services, operator(services)) as client:

        async def one() -> None:
            statuses.append((await client.post("/api/v1/validate", json=body)).status_code)

        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(one)
    assert statuses == [200] * 8
    assert 1 <= services.image_work.peak <= 2 and services.image_work.running == 0


async def test_a_batch_over_the_request_pixel_budget_is_refused_before_decoding(tmp_path):
    services = make_services(tmp_path, max_request_pixels=3 * 1000 * 1000)
    frame = png(1000, 1000)
    events = [screenshot_event("s1", "M1", frame, i) for i in range(4)]
    async with client_for(services, AGENT_TOKEN) as client:
        r = await client.post("/api/v1/traces/stream/event", json={"events": events})
        ok = await client.post("/api/v1/traces/stream/event", json={"events": events[:3]})
    assert r.status_code == 422 and r.json()["code"] == "image-rejected"
    assert r.json()["details"]["max_pixels"] == 3_000_000
    assert ok.status_code == 200 and ok.json()["accepted"] == 3


async def test_a_real_server_keeps_its_memory_within_the_frame_budget(tmp_path):
    """The reported probe, scaled: every session sends a near-limit PNG; RSS must not keep one per session."""
    side = 4000  # 16 Mpx: 48 MB decoded, ~50 KB as a PNG of one colour
    limits = {
        "RPA_MAX_IMAGE_PIXELS": str(side * side),
        "RPA_FRAME_CACHE_BYTES": str(64 * MIB),
        "RPA_IMAGE_WORK_SLOTS": "1",
        "RPA_IMAGE_WORK_QUEUE_PER_IDENTITY": "16",  # one agent's 16 sessions at once: memory, not fairness
    }
    bomb = png(side, side)
    with server_process(tmp_path / "server", **limits) as server:
        agent = {"authorization": f"Bearer {server.agent_token}"}
        async with httpx2.AsyncClient(base_url=server.base, timeout=120, headers=agent) as client:
            assert (await client.get("/healthz")).status_code == 200
            warm = screenshot_event("warm", "M0", png(64, 48))
            assert (await client.post("/api/v1/traces/stream/event", json=warm)).status_code == 200
            baseline = server.rss_bytes()

            async def session(i: int) -> None:
                r = await client.post("/api/v1/traces/stream/event", json=screenshot_event(f"s{i}", "M1", bomb))
                assert r.status_code == 200, r.text[:200]

            async with anyio.create_task_group() as group:
                for i in range(16):
                    group.start_soon(session, i)
            retained = server.rss_bytes() - baseline
            frame = image_arg(bomb)
            validate = {"action_type": "click_anchor", "before": frame, "after": frame}
            token = {"authorization": f"Bearer {server.token('operator')}"}
            server.reset_peak()
            start = server.rss_bytes()

            async def validation() -> None:
                assert (await client.post("/api/v1/validate", json=validate, headers=token)).status_code in (200, 422)

            async with anyio.create_task_group() as group:
                for _ in range(6):
                    group.start_soon(validation)
            peak_growth = server.peak_rss_bytes() - start
    print(
        f"retained after 16 sessions: {retained / MIB:.0f} MiB; peak growth of 6 validations: {peak_growth / MIB:.0f}"
    )
    # Without the shared budget 16 sessions keep 16 x 48 MB = 768 MB; six concurrent validations of
    # two such frames peak near 6 x 250 MB. Generous bounds, no timing.
    assert retained < 64 * MIB + 200 * MIB
    assert peak_growth < 700 * MIB
