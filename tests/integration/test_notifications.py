"""Clients are told when a session's understanding changes, in both protocol eras."""

from __future__ import annotations

import json
import warnings

import anyio
import pytest
from mcp import Client, MCPDeprecationWarning
from mcp.client.streamable_http import streamable_http_client

from tests.integration.conftest import demo_events
from tests.subscriptions import updates_until

pytestmark = pytest.mark.anyio


async def test_a_modern_listener_hears_understanding_updates(stack):
    events = demo_events("type_observation_save")
    uri = f"rpa://sessions/{events[0]['session_id']}/understanding"
    client = await stack.mcp("operator")
    async with stack.http() as agent:
        assert (await agent.post("/api/v1/traces/stream/event", json=events[0])).status_code == 200
        async with client.listen(resource_subscriptions=[uri]) as sub:
            assert (await agent.post("/api/v1/traces/stream/event", json=events[1:4])).status_code == 200
            heard = await updates_until(sub, uri, timeout_s=10)
    assert heard and heard[-1] == uri  # the stream ended on the update, not by running dry
    understanding = json.loads((await client.read_resource(uri)).contents[0].text)
    assert understanding["steps"], "the update was sent for a change the listener can read"


async def test_a_legacy_session_hears_understanding_updates(stack):
    events = demo_events("type_observation_save")
    uri = f"rpa://sessions/{events[0]['session_id']}/understanding"
    heard = anyio.Event()
    uris: list[str] = []

    async def on_message(message: object) -> None:
        uris.append(str(getattr(getattr(message, "params", None), "uri", "")))
        if uris[-1] == uri:
            heard.set()

    async with stack.http("operator") as http, stack.http() as agent:
        await agent.post("/api/v1/traces/stream/event", json=events[0])
        async with Client(
            streamable_http_client(f"{stack.base}/mcp", http_client=http), mode="legacy", message_handler=on_message
        ) as client:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)  # resources/subscribe is deprecated (SEP-2575)
                await client.subscribe_resource(uri)
            assert (await agent.post("/api/v1/traces/stream/event", json=events[1:4])).status_code == 200
            with anyio.fail_after(10):
                await heard.wait()
            understanding = json.loads((await client.read_resource(uri)).contents[0].text)
    assert uri in uris
    assert understanding["steps"], "the update was sent for a change the subscriber can read"
