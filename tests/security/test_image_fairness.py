"""One caller cannot starve the others' image work (REST and MCP surfaces).

The flooder's share is held by units that block on an event (what its six near-limit
classify_dialog calls did for seconds each); its next call is refused at once, 429 with
Retry-After on REST and a retryable tool error on MCP, while another person's small call and
an agent's validation are admitted. No timing is asserted.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.bootstrap import Services
from rpa_mcp.entrypoints.app import create_app
from tests.conftest import token_for
from tests.security.conftest import AGENT_TOKEN, client_for, image_arg, make_services, png

pytestmark = pytest.mark.anyio
SAFETY_S = 30
CLASSIFY = "/api/v1/tools/classify_dialog"


@contextlib.asynccontextmanager
async def flooder_holding_its_share(services: Services, subject: str) -> AsyncIterator[None]:
    """`subject`'s whole share of image work (running and waiting) taken by units that block until the end."""
    work, release, started = services.image_work, threading.Event(), threading.Event()

    def held() -> None:
        started.set()
        release.wait(SAFETY_S)

    async with anyio.create_task_group() as group:
        for _ in range(work.per_identity + work.queue_per_identity):
            group.start_soon(lambda: work.run(held, identity=subject, lane="people"))
        assert await anyio.to_thread.run_sync(started.wait, SAFETY_S)
        await anyio.wait_all_tasks_blocked()
        assert work.waiting(subject) == work.per_identity + work.queue_per_identity
        try:
            yield
        finally:
            release.set()


def small_call() -> dict[str, object]:
    return {"image": image_arg(png(320, 200))}


async def test_the_flooders_next_call_gets_429_and_another_persons_call_is_served(tmp_path):
    services = make_services(tmp_path)
    viewer = token_for(services, "vera", "viewer")
    with anyio.fail_after(SAFETY_S):
        async with flooder_holding_its_share(services, "vera"):
            async with client_for(services, viewer) as flooder:
                refused = await flooder.post(CLASSIFY, json=small_call())
            async with client_for(services, token_for(services, "olga", "operator")) as other:
                served = await other.post(CLASSIFY, json=small_call())
            async with client_for(services, token_for(services, "pc-7", "agent")) as agent:
                frame = image_arg(png(320, 200))
                validated = await agent.post(
                    "/api/v1/validate", json={"action_type": "click_anchor", "before": frame, "after": frame}
                )
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.json()["code"] == "image-work-busy" and refused.json()["retryable"] is True
    assert served.status_code == 200
    assert validated.status_code == 200


async def test_the_flooders_next_call_is_a_retryable_tool_error_on_mcp(tmp_path, serve):
    services = make_services(tmp_path)
    base = await serve(create_app(services=services))
    token = token_for(services, "vera", "viewer")
    with anyio.fail_after(SAFETY_S):
        async with (
            flooder_holding_its_share(services, "vera"),
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=SAFETY_S) as http,
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
        ):
            result = await client.call_tool("classify_dialog", small_call())
    assert result.is_error
    error = result.meta["rpa/error"]
    assert error["code"] == "image-work-busy" and error["retryable"] is True
    assert error["details"]["retry_after_s"] >= 1


async def test_the_agents_reserved_slot_validates_while_people_hold_every_other(tmp_path):
    services = make_services(tmp_path, image_work_slots=3, image_work_reserved_slots=1)
    frame = image_arg(png(320, 200))
    with anyio.fail_after(SAFETY_S):
        async with flooder_holding_its_share(services, "vera"), flooder_holding_its_share(services, "victor"):
            assert services.image_work.running == 2  # the people's two slots, both held
            async with client_for(services, token_for(services, "pc-7", "agent")) as agent:
                validated = await agent.post(
                    "/api/v1/validate", json={"action_type": "click_anchor", "before": frame, "after": frame}
                )
    assert validated.status_code == 200


async def test_the_static_agent_token_is_not_one_identitys_share(tmp_path):
    """RPA_API_TOKEN serves many workstations: its calls are bounded by the slots, not by one share."""
    services = make_services(tmp_path)
    frame = image_arg(png(320, 200))
    with anyio.fail_after(SAFETY_S):
        async with flooder_holding_its_share(services, "agent:api-token"), client_for(services, AGENT_TOKEN) as agent:
            validated = await agent.post(
                "/api/v1/validate", json={"action_type": "click_anchor", "before": frame, "after": frame}
            )
    assert validated.status_code == 200
