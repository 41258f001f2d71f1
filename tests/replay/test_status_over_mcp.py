"""get_replay_status through the registry's dispatch and the MCP surface carries the evidence crops."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.replay import model as m
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeOcr
from tests.replay.kit import FakeAgent, FakeValidator, JumpClock, Verdict, drain, steps

pytestmark = pytest.mark.anyio
SECRET = "test-secret-key-that-is-long-enough-0123456789"


@pytest.fixture
async def paused(tmp_path: Path):
    """A replay paused on a WRONG_APPLICATION verdict, with an evidence crop around the action point."""
    validator = FakeValidator()
    validator.script = [Verdict("FAILURE", "WRONG_APPLICATION")]
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET)
    services = build_services(settings, clock=JumpClock(), ocr=FakeOcr(), replay_validator=validator)
    service = services.replay
    replay_id = await service.start(steps=steps(2), competence="c", version=1, machine_id="pc-1")
    await drain(service, [FakeAgent(service, clock=services.clock)], services.clock)
    assert service.store.get_replay(replay_id)["pause_reason"] == m.VALIDATION_FAILED
    yield services, replay_id
    services.db.close()


async def test_dispatch_on_the_mcp_surface_returns_the_crops_with_their_bbox(paused):
    services, replay_id = paused
    status = await dispatch(
        build_registry(), services, "get_replay_status", {"replay_id": replay_id}, local_operator(), surface="mcp"
    )
    crops = status["current_action"]["evidence"]
    assert crops and crops[0]["mime_type"] == "image/png" and crops[0]["data_base64"]
    x, y, w, h = crops[0]["bbox"]
    assert w > 0 and h > 0 and x >= 0 and y >= 0
    assert status["actions"][0]["evidence"] == crops


async def test_an_mcp_client_gets_the_status_and_the_crops_as_images(paused):
    services, replay_id = paused
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        result = await client.call_tool("get_replay_status", {"replay_id": replay_id})
    assert not result.is_error, result.content[0].text
    assert result.structured_content["current_action"]["failure_category"] == "WRONG_APPLICATION"
    assert any(c.type == "image" and c.mime_type == "image/png" for c in result.content)


async def test_a_crop_listed_twice_in_the_status_is_sent_once(paused):
    services, replay_id = paused
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        result = await client.call_tool("get_replay_status", {"replay_id": replay_id})
    images = [c.data for c in result.content if c.type == "image"]
    assert images and len(images) == len(set(images))
    assert result.structured_content["current_action"]["evidence"][0]["data_base64"] is None
