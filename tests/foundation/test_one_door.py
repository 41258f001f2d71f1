"""Resource reads, completions and the generated run_<slug> tools go through dispatch(): audited,
rate-limited, role-checked and redacted like any tool call, on every surface."""

from __future__ import annotations

import dataclasses

import pytest
from mcp import Client
from mcp.types import PromptReference, ResourceTemplateReference

from rpa_mcp import functions
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.ratelimit import RateLimiter
from tests.conftest import token_for
from tests.foundation.helpers import asgi_client

pytestmark = pytest.mark.anyio
OPERATOR = Caller("nurse-alice", frozenset({"operator"}))
VIEWER = Caller("viewer-vic", frozenset({"viewer"}))
JWT_LIKE = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLWJ5dGVz"
IR = {
    "name": "Admission patient",
    "domain": "generic",
    "version": 1,
    "source": {"session_id": "s1", "machine_id": "PC-1"},
    "steps": [{"index": 1, "intent": "Click 'Admission'", "action_type": "click_anchor", "target": {"label": "A"}}],
}


def _event(**fields: object) -> dict[str, object]:
    return {"session_id": "s-door", "machine_id": "PC-1", "ts": 1_764_000_000, "type": "focus", **fields}


async def test_a_resource_read_is_one_audited_operation_and_its_text_is_redacted(services):
    services.shadow.ingest([_event(window_title=f"Portail - {JWT_LIKE}")])
    server = build_mcp_server(build_registry(), services, local_caller=OPERATOR)
    async with Client(server) as client:
        contents = (await client.read_resource("rpa://sessions/s-door/events")).contents[0]
    assert JWT_LIKE not in contents.text and "[redacted]" in contents.text
    services.audit.flush()
    rows = services.audit.rows(operation="read_resource")
    assert [(r["actor"], r["outcome"]) for r in rows] == [("nurse-alice", "ok")]
    assert "rpa://sessions/s-door/events" in rows[0]["args_summary"]


async def test_an_unknown_resource_is_refused_and_audited(services):
    server = build_mcp_server(build_registry(), services, local_caller=OPERATOR)
    async with Client(server) as client:
        with pytest.raises(Exception, match="not-found"):
            await client.read_resource("rpa://nothing/here")
    services.audit.flush()
    assert [r["code"] for r in services.audit.rows(operation="read_resource")] == ["not-found"]


async def test_resource_reads_are_rate_limited_per_identity(services):
    limited = dataclasses.replace(services, rate_limiter=RateLimiter(services.clock, per_minute=2, burst=2))
    server = build_mcp_server(build_registry(), limited, local_caller=OPERATOR)
    async with Client(server) as client:
        await client.read_resource("rpa://machines")
        await client.read_resource("rpa://machines")
        with pytest.raises(Exception, match="rate-limited"):
            await client.read_resource("rpa://machines")


async def test_a_completion_reads_through_dispatch_as_the_caller(services):
    services.competences.save("Admission patient", IR)
    server = build_mcp_server(build_registry(), services, local_caller=VIEWER)
    async with Client(server) as client:
        ref = PromptReference(type="ref/prompt", name="supervise-replay")
        found = await client.complete(ref, {"name": "competence", "value": "Adm"})
        catalog = ResourceTemplateReference(type="ref/resource", uri="rpa://catalog/dialogs/{dialog_id}")
        dialogs = await client.complete(catalog, {"name": "dialog_id", "value": ""})
    assert found.completion.values == ["Admission patient"]
    assert dialogs.completion.values  # the catalog's ids, read with get_catalog
    services.audit.flush()
    assert [r["actor"] for r in services.audit.rows(operation="list_competences")] == ["viewer-vic"]
    assert [r["actor"] for r in services.audit.rows(operation="get_catalog")] == ["viewer-vic"]


async def test_run_tools_are_registry_operations_on_every_surface(services):
    services.competences.save("Admission patient", IR, status="validated")
    registry = build_registry()
    assert "run_admission_patient" in {op.name for op in registry.listing("mcp", services)}
    assert "run_admission_patient" in {t["function"]["name"] for t in functions.openai_tools(registry, services)}
    assert "run_admission_patient" not in {t["function"]["name"] for t in functions.openai_tools(registry)}

    ctx = functions.FunctionContext(caller=OPERATOR, services=services, registry=registry)
    via_functions = await functions.call("run_admission_patient", {"machine_id": "PC-1"}, ctx)
    assert via_functions["operation"] == "start_replay" and via_functions["token"]

    app = create_app(services=services, registry=registry)
    async with asgi_client(app, token_for(services, "nurse-alice", "operator")) as http:
        via_rest = await http.post("/api/v1/tools/run_admission_patient", json={"machine_id": "PC-1"})
        unknown = await http.post("/api/v1/tools/run_nothing_here", json={})
    assert via_rest.status_code == 200 and via_rest.json()["operation"] == "start_replay"
    assert unknown.status_code == 404 and unknown.json()["code"] == "not-found"

    services.audit.flush()
    rows = services.audit.rows(operation="run_admission_patient")
    assert sorted(r["via"] for r in rows) == ["functions", "rest"]


async def test_a_run_tool_proposes_and_apply_start_replay_takes_its_token(services):
    services.competences.save("Admission patient", IR, status="validated")
    registry = build_registry()
    ctx = functions.FunctionContext(caller=OPERATOR, services=services, registry=registry)
    proposal = await functions.call("run_admission_patient", {"machine_id": "PC-1"}, ctx)
    assert "Admission patient" in proposal["summary"] and "PC-1" in proposal["summary"]
    jti = proposal["approval_url"].rsplit("/", 1)[1]  # act is approved by a person (default)
    services.confirmations.decide(jti, Caller("dr-martin", frozenset({"approver"}), via="web"), True)
    started = await functions.call("apply_start_replay", {"token": proposal["token"]}, ctx)
    assert started["competence"] == "Admission patient" and started["machine_id"] == "PC-1"


async def test_a_viewer_cannot_call_a_run_tool(services):
    services.competences.save("Admission patient", IR, status="validated")
    ctx = functions.FunctionContext(caller=VIEWER, services=services, registry=build_registry())
    refused = await functions.call("run_admission_patient", {}, ctx)
    assert refused["error"]["code"] == "forbidden"


async def test_a_run_tool_disappears_with_its_competence(services):
    services.competences.save("Admission patient", IR, status="validated")
    registry = build_registry()
    assert registry.resolve("run_admission_patient", services) is not None
    services.competences.delete("Admission patient", None, "validated")
    assert registry.resolve("run_admission_patient", services) is None
    ctx = functions.FunctionContext(caller=OPERATOR, services=services, registry=registry)
    gone = await functions.call("run_admission_patient", {}, ctx)
    assert gone["error"]["code"] == "not-found"
