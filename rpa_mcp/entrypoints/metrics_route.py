"""`GET /metrics`: the Prometheus text, for a bearer token with the `viewer` or `operator` role.

A scraper gets its own read-only token (`rpa-mcp token --sub prometheus --role viewer`); the
bearer check is the same middleware as /mcp and /api (a 401 says why a token failed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from rpa_mcp.entrypoints.http_security import problem
from rpa_mcp.metrics_prometheus import PrometheusMetrics

METRICS_PATH = "/metrics"
METRICS_ROLES = frozenset({"viewer", "operator"})


def metrics_endpoint(metrics: PrometheusMetrics) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        caller = request.scope.get("rpa.caller")
        if caller is None or not caller.roles & METRICS_ROLES:
            detail = "the metrics need a token with the role viewer or operator (rpa-mcp token --role viewer)"
            return JSONResponse(
                problem(403, "forbidden", detail), status_code=403, media_type="application/problem+json"
            )
        body = await anyio.to_thread.run_sync(metrics.render)  # the queue depth is a database read
        return Response(body, media_type=metrics.content_type)

    return endpoint
