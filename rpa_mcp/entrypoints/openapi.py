"""The REST API as an OpenAPI 3.1 document, generated from the registry (the same pydantic models).

Every operation of the REST surface appears as `POST /api/v1/tools/<name>` and under each of
its own paths (`Http` routes: GET reads the query string, POST the JSON body, `{name}` path
segments fill the argument of that name); an operation template (`run_<slug>`) appears once
as `POST /api/v1/tools/run_{slug}`. Error answers are `application/problem+json` (`Problem`).

The document is deterministic (registry order, no server URL, no date): the server serves it
at `GET /api/v1/openapi.json` (bearer token required, like every `/api/v1` route) and the same
rendering is committed as `docs/reference/openapi.json`.
"""

from __future__ import annotations

import re
import typing
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from rpa_mcp import __version__
from rpa_mcp.entrypoints.rest import PROTOCOL_HEADER, Problem
from rpa_mcp.ops.registry import Http, Operation, Registry

OPENAPI_PATH = "/api/v1/openapi.json"
REF = "#/components/schemas/{model}"
JSON = "application/json"
PROBLEM = "application/problem+json"
DESCRIPTION = (
    "The REST surface of rpa-mcp: every operation of the registry (the same ones MCP and function calling "
    "offer), the desktop agent's replay wire (see docs/replay-wire-contract.md) and the shadow event stream. "
    "Operations of risk write, act and dangerous exist only as propose_<name> / apply_<name>. Every route "
    "needs `Authorization: Bearer <token>` (an access token from `rpa-mcp token`, or the static agent token)."
)


def _body_model(op: Operation, http: Http) -> type[BaseModel]:
    """The model of the output field a `body_field` route answers as its whole body."""
    assert http.body_field is not None
    annotation = op.output.model_fields[http.body_field].annotation
    for arg in (annotation, *typing.get_args(annotation)):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    raise TypeError(f"{op.name}.{http.body_field} is not a model: it cannot be a route's body")


def _models(registry: Registry) -> list[tuple[type[BaseModel], JsonSchemaMode]]:
    wanted: list[tuple[type[BaseModel], JsonSchemaMode]] = [(Problem, "serialization")]
    for op in registry.for_surface("rest"):
        wanted += [(op.input, "validation"), (op.output, "serialization")]
        wanted += [(_body_model(op, h), "serialization") for h in op.http if h.body_field]
    for t in registry.templates:
        if "rest" in t.surfaces:
            wanted += [(t.input, "validation"), (t.output, "serialization")]
    return list(dict.fromkeys(wanted))


def _errors() -> dict[str, Any]:
    return {
        "default": {
            "description": "An error: its stable `code`, what went wrong and what to do (see the errors reference).",
            "content": {PROBLEM: {"schema": {"$ref": REF.format(model="Problem")}}},
        }
    }


def _json(ref: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": ref}}}


def _path_params(path: str) -> list[str]:
    return re.findall(r"{(\w+)}", path)


def _operation(
    op_id: str,
    summary: str,
    description: str,
    tag: str,
    input_ref: dict[str, Any],
    input_schema: dict[str, Any],
    responses: dict[str, Any],
    *,
    method: str,
    path: str,
) -> dict[str, Any]:
    params: list[dict[str, Any]] = []
    props: dict[str, Any] = input_schema.get("properties", {})
    required = set(input_schema.get("required", []))
    for name in _path_params(path):
        params.append({"name": name, "in": "path", "required": True, "schema": props.get(name, {"type": "string"})})
    if "protocol_version" in props:
        params.append(
            {
                "name": PROTOCOL_HEADER,
                "in": "header",
                "required": False,
                "description": "Replay protocol the agent speaks (2 = receipt/start acks); absent means 1.",
                "schema": {"type": "string", "pattern": "^[0-9]{1,3}$"},
            }
        )
    spec: dict[str, Any] = {
        "operationId": op_id,
        "summary": summary,
        "description": description,
        "tags": [tag],
        "responses": responses,
    }
    if method == "get":
        for name, prop in props.items():
            if name in _path_params(path) or name == "protocol_version":
                continue
            params.append({"name": name, "in": "query", "required": name in required, "schema": prop})
    else:
        spec["requestBody"] = {"required": False, "content": {JSON: {"schema": input_ref}}}
    if params:
        spec["parameters"] = params
    return spec


def openapi_document(registry: Registry) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST surface of this registry."""
    models = _models(registry)
    refs, defs = models_json_schema(models, ref_template=REF)
    components: dict[str, Any] = dict(defs.get("$defs", {}))

    def ref(model: type[BaseModel], mode: JsonSchemaMode) -> dict[str, Any]:
        return refs[(model, mode)]

    def resolved(model: type[BaseModel]) -> dict[str, Any]:
        target = ref(model, "validation")["$ref"].rsplit("/", 1)[-1]
        schema: dict[str, Any] = components[target]
        return schema

    paths: dict[str, dict[str, Any]] = {}
    for op in registry.for_surface("rest"):
        answer = _json(ref(op.output, "serialization"), op.output.__doc__ or "The operation's result.")
        responses = {"200": answer, **_errors()}
        tool_path = f"/api/v1/tools/{op.name}"
        paths.setdefault(tool_path, {})["post"] = _operation(
            op.name,
            op.title,
            op.description,
            "tools",
            ref(op.input, "validation"),
            resolved(op.input),
            responses,
            method="post",
            path=tool_path,
        )
        for http in op.http:
            method = http.method.lower()
            route_responses = responses
            if http.body_field:
                body = _body_model(op, http)
                route_responses = {
                    "200": _json(ref(body, "serialization"), body.__doc__ or "The answer."),
                    "204": {"description": f"No {http.body_field} (a long poll that waited without one)."},
                    **_errors(),
                }
            paths.setdefault(http.path, {})[method] = _operation(
                f"{op.name}_{method}_{re.sub(r'[^a-z0-9]+', '_', http.path.removeprefix('/api/v1/')).strip('_')}",
                op.title,
                op.description,
                "agent" if "agent" in op.allowed_roles and op.allowed_roles == frozenset({"agent"}) else "tools",
                ref(op.input, "validation"),
                resolved(op.input),
                route_responses,
                method=method,
                path=http.path,
            )
    for t in registry.templates:
        if "rest" not in t.surfaces:
            continue
        prefix = t.prefix
        path = f"/api/v1/tools/{prefix}{{slug}}"
        spec = _operation(
            t.pattern.replace("<", "").replace(">", ""),
            t.title,
            t.description,
            "tools",
            ref(t.input, "validation"),
            resolved(t.input),
            {"200": _json(ref(t.output, "serialization"), t.output.__doc__ or "The result."), **_errors()},
            method="post",
            path=path,
        )
        spec["parameters"] = [
            {
                "name": "slug",
                "in": "path",
                "required": True,
                "description": "The competence's slug, hyphens written as underscores.",
                "schema": {"type": "string", "pattern": "^[a-z0-9_]{1,200}$"},
            }
        ]
        paths[path] = {"post": spec}
    paths[OPENAPI_PATH] = {
        "get": {
            "operationId": "openapi",
            "summary": "This document",
            "description": "The OpenAPI 3.1 document of the REST API (the committed docs/reference/openapi.json).",
            "tags": ["meta"],
            "responses": {"200": _json({"type": "object"}, "The OpenAPI document."), **_errors()},
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "rpa-mcp REST API", "version": __version__, "description": DESCRIPTION},
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "security": [{"bearer": []}],
        "tags": [
            {"name": "tools", "description": "The registry's operations (the same as the MCP tools)."},
            {"name": "agent", "description": "The desktop agent's replay wire (role agent)."},
            {"name": "meta", "description": "About the API itself."},
        ],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An access token (`rpa-mcp token --sub NAME --role ROLE`) or the static "
                    "RPA_API_TOKEN of desktop agents.",
                }
            },
        },
    }


__all__ = ["OPENAPI_PATH", "openapi_document"]
