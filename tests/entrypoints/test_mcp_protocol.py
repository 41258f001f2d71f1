"""Protocol hygiene of the MCP surface: error codes per era, truthful capabilities, resumption, icons."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.entrypoints.app import create_app, local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.ops import build_registry
from tests.conftest import token_for
from tests.foundation.helpers import asgi_client

pytestmark = pytest.mark.anyio
ERAS = {"2026-07-28": "auto", "2025-11-25": "legacy"}


@pytest.mark.parametrize("era", list(ERAS))
async def test_an_unknown_prompt_or_a_missing_argument_is_invalid_params(services, era):
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server, mode=ERAS[era]) as client:
        assert client.protocol_version == era
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("no-such-prompt")
        needing = next(p for p in (await client.list_prompts()).prompts if any(a.required for a in p.arguments or []))
        with pytest.raises(MCPError) as missing:
            await client.get_prompt(needing.name, {})
    assert unknown.value.error.code == -32602 and missing.value.error.code == -32602


@pytest.mark.parametrize(("era", "code"), [("2026-07-28", -32602), ("2025-11-25", -32002)])
@pytest.mark.parametrize("uri", ["rpa://no-such/thing", "https://example.org/elsewhere"])
async def test_an_unknown_or_foreign_resource_is_not_found_in_the_code_of_the_era(services, era, code, uri):
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server, mode=ERAS[era]) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource(uri)
    assert raised.value.error.code == code


@pytest.mark.parametrize("era", list(ERAS))
async def test_capabilities_advertise_list_changed_and_no_logging(services, era):
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server, mode=ERAS[era]) as client:
        capabilities = client.server_capabilities
    assert capabilities.tools.list_changed is True
    assert capabilities.logging is None  # nothing sends notifications/message


async def test_a_legacy_session_hears_tools_list_changed_as_advertised(services):
    seen: list[str] = []

    async def on_message(message: object) -> None:
        seen.append(type(getattr(message, "root", message)).__name__)

    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server, mode="legacy", message_handler=on_message) as client:
        assert client.server_capabilities.tools.list_changed
        await client.list_tools()  # the publisher knows a session once it has called something
        await client.call_tool("list_competences", {})
        server.publisher.tools_changed()
        await client.list_tools()
        for _ in range(50):
            if "ToolListChangedNotification" in seen:
                break
            await client.list_tools()
    assert "ToolListChangedNotification" in seen


async def test_resuming_a_stream_with_last_event_id_is_a_400_not_a_500(services, serve):
    base = await serve(create_app(services=services))
    token = token_for(services, "alice", "operator")
    session_ids: list[str] = []

    async def remember(response: httpx2.Response) -> None:
        if "mcp-session-id" in response.headers:
            session_ids.append(response.headers["mcp-session-id"])

    async with (
        httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=30, event_hooks={"response": [remember]}
        ) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        r = await http.get(
            f"{base}/mcp",
            headers={
                "Accept": "text/event-stream",
                "Last-Event-ID": "0",
                "Mcp-Session-Id": session_ids[0],
                "MCP-Protocol-Version": "2025-11-25",
            },
        )
    assert r.status_code == 400 and r.json()["error"]["code"] == -32600


async def test_the_server_tools_and_prompts_carry_icons_that_are_served(services):
    app = create_app(services=services)
    server = app.state.mcp_server
    async with Client(server) as client:
        assert client.server_info.icons == server.icons
    tools = await server.list_tools(local_operator())
    prompts = await server.list_prompts()
    assert server.icons and all(t.icons for t in tools) and all(p.icons for p in prompts)
    async with asgi_client(app) as http:
        for src in {server.icons[0].src, tools[0].icons[0].src, prompts[0].icons[0].src}:
            r = await http.get(urlsplit(src).path)
            assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
        assert (await http.get("/icons/nope.svg")).status_code == 404
