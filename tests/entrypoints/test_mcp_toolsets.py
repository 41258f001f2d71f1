"""One MCP connection sees the toolsets it asked for, read-only when it asked, run_<slug> tools only when allowed."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import create_app, local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.entrypoints.mcp_toolsets import TOOLSETS, toolset_of
from rpa_mcp.errors import ConfigurationError
from rpa_mcp.ops import build_registry
from tests.conftest import token_for

pytestmark = pytest.mark.anyio
IR = {
    "name": "Admission patient",
    "domain": "generic",
    "version": 1,
    "source": {"session_id": "s1", "machine_id": "PC-1"},
    "steps": [{"index": 1, "intent": "Click 'Admission'", "action_type": "click_anchor", "target": {"label": "A"}}],
}


async def tools_at(base: str, token: str, query: str = "") -> dict[str, object]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        Client(streamable_http_client(f"{base}/mcp{query}", http_client=http)) as client,
    ):
        listed = await client.list_tools()
        refused = await client.call_tool("propose_start_replay", {"competence": "x"})
        return {"names": {t.name for t in listed.tools}, "ttl_ms": listed.ttl_ms, "refused": refused}


async def test_the_url_selects_toolsets_and_read_only_mode_per_connection(services, serve):
    base = await serve(create_app(services=services))
    token = token_for(services, "alice", "operator")
    everything = await tools_at(base, token)
    dialogs = await tools_at(base, token, "?toolsets=dialogs")
    read_only = await tools_at(base, token, "?read_only=1")
    assert {toolset_of(n) for n in everything["names"]} == {"core", *TOOLSETS}
    assert dialogs["names"] == {"get_catalog", "read_resource", "classify_dialog", "resolve_dialog"}
    assert read_only["names"] and "propose_start_replay" not in read_only["names"]
    assert "get_replay_status" in read_only["names"]
    assert not any(n.startswith(("propose_", "apply_", "shadow_start")) for n in read_only["names"])
    # a tool left out is refused when called, not only hidden
    assert (
        "tool" not in everything["refused"].meta["rpa/error"]["details"]
    )  # reached the operation (no such competence)
    for connection in (dialogs, read_only):
        error = connection["refused"].meta["rpa/error"]
        assert error["code"] == "not-found" and error["details"]["tool"] == "propose_start_replay"
    assert everything["ttl_ms"] > 0


async def test_the_settings_give_the_default_selection(settings, clock, shared_ocr):
    narrowed = settings.model_copy(update={"mcp_toolsets": "replay", "mcp_read_only": True})
    services = build_services(narrowed, clock=clock, ocr=shared_ocr)
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert names == {"get_catalog", "read_resource", "get_replay_status", "list_replays", "resolve_target"}


def test_an_unknown_toolset_in_the_settings_is_refused_at_start(settings, clock, shared_ocr):
    services = build_services(settings.model_copy(update={"mcp_toolsets": "replay,typo"}), clock=clock, ocr=shared_ocr)
    with pytest.raises(ConfigurationError):
        build_mcp_server(build_registry(), services, local_caller=local_operator())


async def test_run_tools_are_opt_in_and_bounded(settings, clock, shared_ocr):
    default = build_services(settings, clock=clock, ocr=shared_ocr)
    for name in ("Admission patient", "Sortie patient", "Transfert patient"):
        default.competences.save(name, {**IR, "name": name}, status="validated")
    server = build_mcp_server(build_registry(), default, local_caller=local_operator())
    async with Client(server) as client:
        off = {t.name for t in (await client.list_tools()).tools}
        refused = await client.call_tool("run_admission_patient", {"machine_id": "PC-1"})
    assert not any(n.startswith("run_") for n in off)
    assert refused.is_error and refused.meta["rpa/error"]["code"] == "not-found"

    bounded = build_services(settings.model_copy(update={"mcp_run_tools": 2}), clock=clock, ocr=shared_ocr)
    server = build_mcp_server(build_registry(), bounded, local_caller=local_operator())
    async with Client(server) as client:
        listed = await client.list_tools()
        called = await client.call_tool("run_admission_patient", {"machine_id": "PC-1"})
    assert len([t for t in listed.tools if t.name.startswith("run_")]) == 2
    assert not called.is_error and listed.ttl_ms == 0  # the list changes with the competences: not cached


async def test_schemas_carry_no_titles_and_output_schemas_no_descriptions(services):
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        assert not keywords_in(tool.input_schema) & {"title"}
        assert not keywords_in(tool.output_schema) & {"title", "description"}
        assert "description" in keywords_in(tool.input_schema) or not tool.input_schema.get("properties")
    understanding = next(t for t in tools if t.name == "get_understanding")
    assert "$defs" in understanding.output_schema  # shared definitions stay shared within a schema


def keywords_in(schema: object, *, names: bool = False) -> set[str]:
    """The JSON Schema keywords used anywhere in a schema (property and definition names excluded)."""
    found: set[str] = set()
    if isinstance(schema, list):
        for item in schema:
            found |= keywords_in(item)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if not names:
                found.add(key)
            found |= keywords_in(value, names=key in ("properties", "$defs") and not names)
    return found
