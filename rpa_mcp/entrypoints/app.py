"""The ASGI application: MCP at /mcp, REST under /api/v1, the approval pages, health."""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Mount, Route

from rpa_mcp import __version__
from rpa_mcp.bootstrap import Services, build_services, public_base_url
from rpa_mcp.entrypoints.http_security import BearerAuth, BodyLimit, HostOriginGuard
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.entrypoints.mcp_body import McpBodyGuard
from rpa_mcp.entrypoints.rest import rest_routes
from rpa_mcp.errors import RpaError
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.json_input import limits_of
from rpa_mcp.ops.registry import ROLES, Caller, Registry
from rpa_mcp.settings import Settings

logger = logging.getLogger(__name__)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class StartupRefused(RpaError):
    code = "startup-refused"


def allowed_hosts(settings: Settings) -> list[str]:
    hosts = [h for name in LOOPBACK_NAMES for h in (name, f"{name}:*")]
    hosts += settings.allowed_hosts
    if settings.public_url:
        hosts.append(settings.public_url.split("://", 1)[-1].split("/", 1)[0])
    return hosts


def allowed_origins(settings: Settings) -> list[str]:
    origins = [
        f"{scheme}://{name}{port}" for scheme in ("http", "https") for name in LOOPBACK_NAMES for port in ("", ":*")
    ]
    origins += settings.allowed_origins
    if settings.public_url:
        origins.append("/".join(settings.public_url.split("/", 3)[:3]))
    return origins


def create_app(
    settings: Settings | None = None,
    *,
    services: Services | None = None,
    registry: Registry | None = None,
) -> Starlette:
    settings = settings or (services.settings if services else Settings())
    if settings.auth_disabled and not settings.is_loopback:
        raise StartupRefused(
            f"RPA_AUTH_DISABLED=true is only allowed on a loopback bind, not {settings.host}; "
            "configure tokens instead (rpa-mcp token --help)"
        )
    services = services or build_services(settings)
    registry = registry or build_registry()
    verify = None if settings.auth_disabled else services.access_tokens.verify
    mcp_server = build_mcp_server(registry, services)
    services.mcp_server = mcp_server  # type: ignore[attr-defined]  # used by tests and the demo
    hosts, origins = allowed_hosts(settings), allowed_origins(settings)
    mcp_app = mcp_server.streamable_http_app(
        streamable_http_path="/mcp",
        max_request_body_size=settings.max_body_bytes,
        host=settings.host,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        ),
    )
    base = public_base_url(settings)
    metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"

    async def healthz(request: Request) -> JSONResponse:
        ok = services.db.ping()
        return JSONResponse(
            {"status": "ok" if ok else "degraded", "store": "ok" if ok else "down", "version": __version__},
            status_code=200 if ok else 503,
        )

    async def resource_metadata(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "resource": f"{base}/mcp",
                "bearer_methods_supported": ["header"],
                "scopes_supported": list(ROLES),
                "resource_name": "rpa-mcp",
            }
        )

    routes: list[BaseRoute] = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource/mcp", resource_metadata, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource", resource_metadata, methods=["GET"]),
        *rest_routes(registry, services),
        *_web_routes(services),
        Mount("/", app=mcp_app),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run(), anyio.create_task_group() as tg:
            services.notifier.bind_loop()  # type: ignore[attr-defined]  # the MCP notifier
            stop = anyio.Event()
            if settings.watchdog_enabled and services.replay is not None:
                runner = _watchdog_runner()
                if runner is not None:
                    tg.start_soon(runner, services.replay, stop)
            try:
                yield
            finally:
                stop.set()
                tg.cancel_scope.cancel()

    return Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(BodyLimit, max_bytes=settings.max_body_bytes),
            Middleware(HostOriginGuard, hosts=hosts, origins=origins),
            Middleware(
                BearerAuth,
                verify=verify,
                resource_metadata_url=metadata_url,
                clock=services.clock,
                lockout_failures=settings.auth_lockout_failures,
                lockout_s=settings.auth_lockout_s,
            ),
            Middleware(McpBodyGuard, path="/mcp", max_bytes=settings.max_body_bytes, limits=limits_of(settings)),
        ],
    )


def _web_routes(services: Services) -> list[BaseRoute]:
    try:
        web = importlib.import_module("rpa_mcp.entrypoints.web")
    except ModuleNotFoundError:
        return []
    routes: list[BaseRoute] = web.web_routes(services, services.access_tokens.verify)
    return routes


def _watchdog_runner() -> Any:
    try:
        module = importlib.import_module("rpa_mcp.replay.service")
    except ModuleNotFoundError:
        return None
    return getattr(module, "run_watchdog", None)


def local_operator() -> Caller:
    return Caller("local", frozenset(ROLES), via="mcp", auth="internal")
