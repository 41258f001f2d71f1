"""The OpenAPI 3.1 document: generated from the registry, served, committed, valid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openapi_spec_validator import validate

from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.entrypoints.openapi import OPENAPI_PATH, openapi_document
from rpa_mcp.ops import build_registry
from tests.conftest import token_for
from tests.foundation.helpers import asgi_client

pytestmark = pytest.mark.anyio
COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "reference" / "openapi.json"


def test_the_document_is_valid_openapi_3_1():
    document = openapi_document(build_registry())
    validate(document)
    assert document["openapi"] == "3.1.0"


def test_every_rest_operation_and_route_is_in_the_document():
    registry = build_registry()
    paths = openapi_document(registry)["paths"]
    for op in registry.for_surface("rest"):
        assert paths[f"/api/v1/tools/{op.name}"]["post"]["operationId"] == op.name
        for http in op.http:
            assert http.method.lower() in paths[http.path]
    assert "post" in paths["/api/v1/tools/run_{slug}"]
    next_answers = paths["/api/v1/replay/next"]["get"]["responses"]
    assert next_answers["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/NextAction"}
    assert "204" in next_answers


async def test_the_server_serves_the_committed_document_to_an_authenticated_caller(services):
    app = create_app(services=services)
    async with asgi_client(app, token_for(services, "vic", "viewer")) as viewer:
        served = await viewer.get(OPENAPI_PATH)
        refused = await viewer.get(OPENAPI_PATH, headers={"Authorization": ""})
    assert refused.status_code == 401
    assert served.status_code == 200 and served.json() == json.loads(COMMITTED.read_text(encoding="utf-8"))
