"""validate_action's expected.json_schema is data: nothing is fetched, patterns never backtrack, size is bounded."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from rpa_mcp.errors import InvalidInput
from rpa_mcp.validation.caller_schema import SchemaLimits, compile_caller_schema
from tests.security.conftest import client_for, image_arg, operator, png

pytestmark = pytest.mark.anyio
EVIL = "^(a+)+$"  # exponential on a backtracking engine: "a" * 27 + "!" takes seconds in Python's re


def probe(schema: object, output: object) -> dict:
    frame = image_arg(png())
    return {
        "action_type": "t2a_decision",
        "before": frame,
        "after": frame,
        "expected": {"json_schema": schema, "output": output},
    }


class _Target(http.server.BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self) -> None:
        type(self).hits += 1
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"type": "integer"}')

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def internal_service():
    """An 'internal' HTTP service on loopback that must never be reached through a schema."""
    _Target.hits = 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Target)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/internal"
    server.shutdown()
    server.server_close()


async def test_a_remote_ref_is_422_and_the_target_is_never_contacted(services, internal_service):
    async with client_for(services, operator(services)) as client:
        r = await client.post("/api/v1/validate", json=probe({"$ref": internal_service}, 1))
        nested = await client.post(
            "/api/v1/validate",
            json=probe({"properties": {"a": {"items": {"$ref": internal_service + "#/x"}}}}, {"a": [1]}),
        )
        relative = await client.post("/api/v1/validate", json=probe({"$id": internal_service, "$ref": "other"}, 1))
    for answer in (r, nested, relative):
        assert answer.status_code == 422, answer.text
        assert answer.json()["code"] == "invalid-input" and answer.json()["details"]["field"] == "expected.json_schema"
    assert _Target.hits == 0


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "file:///etc/passwd"},
        {"$ref": "#/$defs/missing"},
        {"$dynamicRef": "#nowhere"},
        {"$schema": "https://meta.example/schema"},
        {"type": "string", "pattern": "(a)\\1"},
        {"type": "string", "pattern": "(?=a)a"},
        {"patternProperties": {"^x": {}}, "unevaluatedProperties": False},
        {"type": "strin"},
    ],
)
async def test_unresolvable_unsupported_or_invalid_schemas_are_422(services, schema):
    async with client_for(services, operator(services)) as client:
        r = await client.post("/api/v1/validate", json=probe(schema, "x"))
    assert r.status_code == 422, r.text
    assert r.json()["details"]["field"] == "expected.json_schema"


async def test_local_references_and_embedded_ids_still_resolve(services):
    schema = {
        "$defs": {"code": {"type": "string", "pattern": "^[A-Z]\\d{2}$"}},
        "type": "object",
        "properties": {"code": {"$ref": "#/$defs/code"}, "inner": {"$ref": "urn:inner"}},
        "additionalProperties": False,
        "$comment": "urn:inner is embedded below",
        "dependentSchemas": {"inner": {"$id": "urn:inner", "type": "object"}},
    }
    async with client_for(services, operator(services)) as client:
        ok = await client.post("/api/v1/validate", json=probe(schema, {"code": "J18", "inner": {}}))
        bad = await client.post("/api/v1/validate", json=probe(schema, {"code": "j18", "extra": 1}))
    assert ok.status_code == 200 and ok.json()["verdict"] == "SUCCESS", ok.text
    assert bad.status_code == 200 and bad.json()["failure_category"] == "SCHEMA_INVALID"


async def test_schema_size_and_depth_are_bounded(tmp_path):
    from tests.security.conftest import make_services

    services = make_services(tmp_path, max_schema_bytes=2048, max_schema_depth=6)
    deep: dict = {"type": "object"}
    for _ in range(10):
        deep = {"properties": {"a": deep}}
    async with client_for(services, operator(services)) as client:
        big = await client.post("/api/v1/validate", json=probe({"enum": ["x" * 3000]}, "x"))
        nested = await client.post("/api/v1/validate", json=probe(deep, {}))
    assert big.status_code == 422 and big.json()["details"]["max_bytes"] == 2048
    assert nested.status_code == 422 and nested.json()["details"]["max_depth"] == 6


def test_catastrophic_patterns_are_matched_in_linear_time():
    validator = compile_caller_schema({"type": "string", "pattern": EVIL})
    assert not validator.is_valid("a" * 1_000_000 + "!")
    assert validator.is_valid("a" * 1_000_000)
    keys = compile_caller_schema({"patternProperties": {EVIL: {"type": "integer"}}, "additionalProperties": False})
    assert not keys.is_valid({"a" * 100_000 + "!": 1})  # the additional-properties test runs the patterns too
    assert keys.is_valid({"a" * 100_000: 1})
    names = compile_caller_schema({"propertyNames": {"pattern": EVIL}})
    assert not names.is_valid({"a" * 100_000 + "!": 1})


def test_the_linear_engine_releases_the_gil_while_it_matches():
    """Other threads (the event loop among them) keep running during a long match.

    Python's `re` holds the GIL for the whole of each match: the ticker moves only between
    matches (a few dozen times), never during one.
    """
    validator = compile_caller_schema({"type": "string", "pattern": EVIL})
    subject = "a" * 30_000_000 + "!"
    ticks, started, done = 0, threading.Event(), threading.Event()

    def ticker() -> None:
        nonlocal ticks
        started.set()
        while not done.is_set():
            ticks += 1
            time.sleep(0)  # hand the GIL back at once: the count grows only while the matcher lets go of it

    thread = threading.Thread(target=ticker)
    thread.start()
    assert started.wait(timeout=60)
    before = ticks
    results = [validator.is_valid(subject) for _ in range(5)]
    during = ticks - before
    done.set()
    thread.join(timeout=60)
    assert results == [False] * 5
    assert during >= 500  # measured here: ~5,000 on RE2, ~30 on Python's re


def test_the_limits_are_settings_with_defaults():
    assert SchemaLimits() == SchemaLimits(max_bytes=65536, max_depth=32)
    with pytest.raises(InvalidInput):
        compile_caller_schema({"enum": ["x" * 100]}, SchemaLimits(max_bytes=64, max_depth=8))
