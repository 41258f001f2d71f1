"""The REST surface: `/api/v1/tools/<name>` for every operation, plus each operation's own paths.

Errors are problem+json with the error's HTTP status and stable code (same code as MCP).
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rpa_mcp.bootstrap import Services
from rpa_mcp.errors import InvalidInput, RateLimited, RpaError
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.json_input import limits_of, loads
from rpa_mcp.ops.registry import Caller, Http, Operation, Registry

PROTOCOL_HEADER = "x-replay-protocol-version"
OFF_LOOP_BYTES = 256 * 1024  # bodies larger than this are decoded in a worker thread (the event loop stays free)


def problem_response(exc: RpaError) -> JSONResponse:
    body = {
        "type": f"urn:rpa-mcp:error:{exc.code}",
        "title": exc.code,
        "status": exc.http_status,
        "detail": exc.message,
        **exc.to_dict(),
    }
    headers = {"retry-after": str(max(1, int(exc.retry_after_s + 0.999)))} if isinstance(exc, RateLimited) else None
    return JSONResponse(body, status_code=exc.http_status, media_type="application/problem+json", headers=headers)


async def decode_body(raw: bytes, services: Services) -> Any:
    """The request body as strict JSON (400 naming the problem otherwise), large ones off the event loop."""
    limits = limits_of(services.settings)
    if len(raw) > OFF_LOOP_BYTES:
        return await anyio.to_thread.run_sync(loads, raw, limits)
    return loads(raw, limits)


async def _arguments(request: Request, op: Operation, http: Http | None, services: Services) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if http is not None and http.method == "GET":
        args.update(request.query_params)
    else:
        raw = await request.body()
        if raw.strip():
            body = await decode_body(raw, services)
            if isinstance(body, list):
                list_fields = [
                    n for n, f in op.input.model_fields.items() if getattr(f.annotation, "__origin__", None) is list
                ]
                if len(list_fields) != 1:
                    raise InvalidInput("the body must be a JSON object", field="(body)")
                body = {list_fields[0]: body}
            if not isinstance(body, dict):
                raise InvalidInput("the body must be a JSON object", field="(body)")
            args.update(body)
    args.update(request.path_params)
    version = request.headers.get(PROTOCOL_HEADER)
    if "protocol_version" in op.input.model_fields:
        if version is not None and not version.strip().isdigit():
            raise InvalidInput(f"{PROTOCOL_HEADER} must be an integer", field=PROTOCOL_HEADER)
        args.setdefault("protocol_version", int(version) if version else 1)
    return args


def _endpoint(registry: Registry, services: Services, op: Operation, http: Http | None) -> Any:
    async def endpoint(request: Request) -> Response:
        caller: Caller | None = request.scope.get("rpa.caller")
        if caller is None:
            return problem_response(RpaError("no authenticated caller"))
        try:
            args = await _arguments(request, op, http, services)
            result = await dispatch(
                registry,
                services,
                op.name,
                args,
                Caller(caller.subject, caller.roles, via="rest", auth=caller.auth),
                surface="rest",
            )
        except RpaError as exc:
            return problem_response(exc)
        if http is not None and http.body_field is not None:
            body = result.get(http.body_field)
            return Response(status_code=204) if body is None else JSONResponse(body)
        return JSONResponse(result)

    return endpoint


def rest_routes(registry: Registry, services: Services) -> list[Route]:
    routes: list[Route] = []
    for op in registry.for_surface("rest"):
        routes.append(Route(f"/api/v1/tools/{op.name}", _endpoint(registry, services, op, None), methods=["POST"]))
        for http in op.http:
            routes.append(Route(http.path, _endpoint(registry, services, op, http), methods=[http.method]))
    # Static paths first: /api/v1/replay/next must win over /api/v1/replay/{replay_id}.
    return sorted(routes, key=lambda r: ("{" in r.path, r.path.count("{")))
