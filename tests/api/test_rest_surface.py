"""What the property-based run found, each kept as a plain test of the REST surface."""

from __future__ import annotations

import pytest

from rpa_mcp.entrypoints.app import create_app
from tests.conftest import token_for
from tests.foundation.helpers import asgi_client

pytestmark = pytest.mark.anyio


@pytest.fixture
async def http(services):
    async with asgi_client(create_app(services=services), token_for(services, "alice", "operator")) as client:
        yield client


async def test_a_method_a_route_does_not_take_is_a_405_naming_the_ones_it_does(http):
    for method in ("TRACE", "PUT", "QUERY", "GET"):
        answer = await http.request(method, "/api/v1/tools/list_machines")
        assert answer.status_code == 405 and answer.headers["allow"] == "POST", method
        assert answer.json()["code"] == "method-not-allowed" and answer.json()["details"]["allowed"] == ["POST"]


async def test_a_static_path_is_not_mistaken_for_a_templated_one(http):
    answer = await http.request("OPTIONS", "/api/v1/replay/start_replay")  # not /api/v1/replay/{replay_id}
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"


async def test_an_unknown_path_under_the_api_is_a_problem_document(http):
    answer = await http.get("/api/v1/nothing/here")
    assert answer.status_code == 404 and answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "not-found"


async def test_a_body_that_is_not_utf8_is_refused_naming_the_body(http):
    answer = await http.post("/api/v1/tools/list_machines", content=b"\xff\xfe\x00{")
    assert answer.status_code == 400 and answer.json()["code"] == "malformed-json"


@pytest.mark.parametrize("value", [0, 1, "true", None])
async def test_a_json_value_of_another_type_is_refused_not_converted(http, value):
    answer = await http.post("/api/v1/tools/list_sessions", json={"active_only": value})
    assert answer.status_code == 422 and answer.json()["details"]["field"] == "active_only"


async def test_query_strings_are_typed_as_the_schema_says(http, services):
    services.shadow.ingest([{"session_id": "s1", "machine_id": "PC-1", "ts": 1_764_000_000, "type": "scroll"}])
    for active_only in ("true", "false"):
        listed = await http.get("/api/v1/traces/stream/sessions", params={"active_only": active_only})
        assert listed.status_code == 200 and [s["session_id"] for s in listed.json()["sessions"]] == ["s1"]
    since = await http.get("/api/v1/shadow/s1/understanding", params={"since_ts": "1764000000.5"})
    assert since.status_code == 200
    for name, value, path in (
        ("active_only", "yes", "/api/v1/traces/stream/sessions"),
        ("since_ts", "soon", "/api/v1/shadow/s1/understanding"),
    ):
        wrong = await http.get(path, params={name: value})
        assert wrong.status_code == 422 and wrong.json()["details"]["field"] == name


async def test_a_query_parameter_given_twice_is_refused(http):
    answer = await http.get("/api/v1/traces/stream/sessions?machine_id=A&machine_id=B")
    assert answer.status_code == 422 and answer.json()["details"]["field"] == "machine_id"


@pytest.mark.parametrize("header", ["two", "²".encode(), "9" * 5000, "-1"])
async def test_a_protocol_header_that_is_no_small_integer_is_a_422(services, header):
    async with asgi_client(create_app(services=services), "agent-static-token-0123456789") as agent:
        answer = await agent.get(
            "/api/v1/replay/next",
            params={"machine_id": "PC-1", "wait": "0"},
            headers={"X-Replay-Protocol-Version": header},
        )
    assert answer.status_code == 422 and answer.json()["details"]["field"] == "x-replay-protocol-version"
