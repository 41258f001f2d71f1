"""An image travels once over MCP (image content), and callers can make returned crops cheaper."""

from __future__ import annotations

import base64
import json

import cv2
import numpy as np
import pytest
from mcp import Client, MCPError

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.testing import ScriptedOcr
from tests.conftest import token_for
from tests.dialogs.helpers import synthetic_dialog
from tests.security.conftest import client_for, png

pytestmark = pytest.mark.anyio
AGENT = Caller("agent:DESKTOP-01", frozenset({"agent"}), via="rest", auth="api-token")


@pytest.fixture
def services(settings, clock):
    return build_services(settings, clock=clock, ocr=ScriptedOcr(["Yes", "No", "User Account Control"]))


def screenshot() -> dict[str, str]:
    image, _ = synthetic_dialog()
    return {"png_base64": base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")}


def decoded(data: str) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(base64.b64decode(data), np.uint8), cv2.IMREAD_UNCHANGED)


async def test_a_crop_is_sent_once_as_image_content_never_inside_the_json(services):
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        result = await client.call_tool("resolve_dialog", {"image": screenshot()})
    images = [block for block in result.content if block.type == "image"]
    assert not result.is_error and result.structured_content["decision"] == "pause"
    assert len(images) == 1 and images[0].mime_type == "image/png" and decoded(images[0].data) is not None
    assert result.structured_content["crop"]["data_base64"] is None
    assert images[0].data not in result.content[0].text and images[0].data[:64] not in json.dumps(result.meta or {})


async def test_rest_keeps_the_crop_inside_the_answer(services):
    out = await dispatch(
        build_registry(("dialogs",)), services, "resolve_dialog", {"image": screenshot()}, AGENT, surface="rest"
    )
    assert decoded(out["crop"]["data_base64"]) is not None


async def test_max_side_and_quality_make_the_returned_crop_smaller(services):
    registry = build_registry(("dialogs",))
    plain = await dispatch(registry, services, "resolve_dialog", {"image": screenshot()}, AGENT, surface="rest")
    small = await dispatch(
        registry,
        services,
        "resolve_dialog",
        {"image": screenshot(), "max_side": 120, "quality": 60},
        AGENT,
        surface="rest",
    )
    assert small["crop"]["mime_type"] == "image/jpeg" and max(decoded(small["crop"]["data_base64"]).shape[:2]) == 120
    assert len(small["crop"]["data_base64"]) < len(plain["crop"]["data_base64"])


@pytest.mark.parametrize(("field", "value"), [("max_side", 8), ("quality", 100)])
async def test_crop_options_out_of_range_are_refused_naming_the_field(services, field, value):
    from rpa_mcp.errors import InvalidInput

    with pytest.raises(InvalidInput) as refused:
        await dispatch(
            build_registry(("dialogs",)),
            services,
            "resolve_dialog",
            {"image": screenshot(), field: value},
            AGENT,
            surface="rest",
        )
    assert refused.value.details["field"] == field


async def test_an_image_operation_reports_progress_when_the_caller_asks(services):
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with Client(server) as client:
        result = await client.call_tool("resolve_dialog", {"image": screenshot()}, progress_callback=on_progress)
    assert not result.is_error and [p[:2] for p in progress] == [(0, 1), (1, 1)]


async def test_a_stored_screenshot_named_in_a_result_is_a_resource_link_read_under_the_read_scope(services):
    async with client_for(services, token_for(services, "agent-any", "agent")) as agent:
        for machine, shade in (("WS-ALPHA", 60), ("WS-BRAVO", 190)):
            shot = base64.b64encode(png(64, 48, shade)).decode()
            event = {"session_id": f"s-{machine}", "machine_id": machine, "ts": 1.8e9, "type": "screenshot"}
            answer = await agent.post("/api/v1/traces/stream/event", json={"events": [{**event, "screenshot": shot}]})
            assert answer.status_code == 200, answer.text
    who = [Caller("agent-alpha", frozenset({"agent"}), machines=frozenset({"WS-ALPHA"}))]
    server = build_mcp_server(build_registry(), services, local_caller=lambda: who[0])
    async with Client(server) as client:
        result = await client.call_tool("read_resource", {"uri": "rpa://sessions/s-WS-ALPHA/events"})
        links = [block for block in result.content if block.type == "resource_link"]
        (read,) = (await client.read_resource(links[0].uri)).contents
        who[0] = Caller("agent-bravo", frozenset({"agent"}), machines=frozenset({"WS-BRAVO"}))
        with pytest.raises(MCPError) as hidden:
            await client.read_resource(links[0].uri)
    assert not result.is_error and len(links) == 1 and links[0].uri.startswith("rpa://screenshots/")
    assert decoded(read.blob) is not None
    assert hidden.value.error.data["code"] == "not-found"
