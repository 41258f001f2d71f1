"""The ASGI application: MCP at /mcp, REST under /api/v1 (and its OpenAPI document), the approval pages, health."""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import anyio
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from rpa_mcp import __version__
from rpa_mcp.auth.explain import explain as explain_refusal
from rpa_mcp.bootstrap import Services, build_services, public_base_url
from rpa_mcp.confirmation.sweep import run_scrub_sweep
from rpa_mcp.console import console_routes
from rpa_mcp.console.oidc import build_sign_in
from rpa_mcp.entrypoints.home import home_endpoint
from rpa_mcp.entrypoints.host_guard import HostOriginGuard
from rpa_mcp.entrypoints.http_security import BearerAuth, BodyLimit
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.entrypoints.mcp_body import McpBodyGuard
from rpa_mcp.entrypoints.mcp_sessions import mcp_http_app
from rpa_mcp.entrypoints.mcp_toolsets import icon_svg
from rpa_mcp.entrypoints.metrics_route import METRICS_PATH, metrics_endpoint
from rpa_mcp.entrypoints.openapi import OPENAPI_PATH, openapi_document
from rpa_mcp.entrypoints.rest import rest_routes
from rpa_mcp.errors import StartupRefused
from rpa_mcp.identity import ROLES, Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.json_input import limits_of
from rpa_mcp.ops.registry import Registry
from rpa_mcp.replay.service import run_watchdog
from rpa_mcp.settings import Settings

logger = logging.getLogger(__name__)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def extra_hosts(settings: Settings) -> list[str]:
    """Host values besides this server's loopback names on its own port: the public URL's, configured ones."""
    hosts = list(settings.allowed_hosts)
    if settings.public_url:
        hosts.append(settings.public_url.split("://", 1)[-1].split("/", 1)[0])
    return hosts


def extra_origins(settings: Settings) -> list[str]:
    origins = list(settings.allowed_origins)
    if settings.public_url:
        origins.append("/".join(settings.public_url.split("/", 3)[:3]))
    return origins


def allowed_hosts(settings: Settings) -> list[str]:
    """For the MCP SDK's own (second) check, which knows no ports: any port of a loopback name."""
    return [h for name in LOOPBACK_NAMES for h in (name, f"{name}:*")] + extra_hosts(settings)


def allowed_origins(settings: Settings) -> list[str]:
    loopback = [
        f"{scheme}://{name}{port}" for scheme in ("http", "https") for name in LOOPBACK_NAMES for port in ("", ":*")
    ]
    return loopback + extra_origins(settings)


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
    verify = None if settings.auth_disabled else bearer_verifier(services)
    mcp_server = build_mcp_server(registry, services)
    hosts, origins = allowed_hosts(settings), allowed_origins(settings)
    mcp_app = mcp_http_app(
        mcp_server,
        path="/mcp",
        max_body_bytes=settings.max_body_bytes,
        security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        ),
        max_sessions=settings.mcp_max_sessions,
        per_identity=settings.mcp_sessions_per_identity,
        idle_timeout_s=settings.mcp_session_idle_s,
    )
    base = public_base_url(settings)
    metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"

    async def healthz(request: Request) -> JSONResponse:
        ok = services.db.ping()
        leading = services.leadership is not None and services.leadership.leading
        return JSONResponse(
            {
                "status": "ok" if ok else "degraded",
                "store": "ok" if ok else "down",
                "backend": services.db.dialect,
                "watchdog": "leader" if leading else "standby",
                "version": __version__,
            },
            status_code=200 if ok else 503,
        )

    api_document = openapi_document(registry)

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(api_document)

    async def resource_metadata(request: Request) -> JSONResponse:
        document: dict[str, Any] = {
            "resource": f"{base}/mcp",
            "bearer_methods_supported": ["header"],
            "scopes_supported": list(ROLES),
            "resource_name": "rpa-mcp",
        }
        if services.provider_tokens is not None:  # the hospital's identity provider signs people in
            document["authorization_servers"] = [services.provider_tokens.issuer]
        return JSONResponse(document)

    async def icons(request: Request) -> Response:
        svg = icon_svg(request.path_params["name"])
        if svg is None:
            return JSONResponse({"code": "not-found"}, status_code=404)
        return Response(svg, media_type="image/svg+xml", headers={"cache-control": "public, max-age=86400"})

    routes: list[BaseRoute] = [
        # /mcp first: the router tries routes in order, and the REST surface has one per operation
        *mcp_app.routes,
        Route("/healthz", healthz, methods=["GET"]),
        Route("/", home_endpoint(base), methods=["GET"]),
        Route(METRICS_PATH, metrics_endpoint(services.metrics), methods=["GET"]),
        Route("/icons/{name}.svg", icons, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource/mcp", resource_metadata, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource", resource_metadata, methods=["GET"]),
        *rest_routes(registry, services, extra=[Route(OPENAPI_PATH, openapi, methods=["GET"])]),
        *console_routes(
            services,
            registry,
            services.console_credentials if token_sign_in(settings) else None,
            access_token=bearer_verifier(services),  # refused there, with a message that says why
            oidc=build_sign_in(settings, services.provider_tokens),
        ),
        Mount("/", app=mcp_app),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run(), services.db.async_reads(), anyio.create_task_group() as tg:
            mcp_server.publisher.bind_loop()
            services.wakeups.start()  # wake-ups from the other replicas (LISTEN on PostgreSQL)
            stop = anyio.Event()
            if settings.watchdog_enabled:  # one replica at a time scans (the leader)
                tg.start_soon(partial(run_watchdog, services.replay, stop, leader=services.leadership))
            tg.start_soon(run_scrub_sweep, services.confirmations, stop)  # expired proposals keep no secret
            try:
                yield
            finally:
                stop.set()
                services.wakeups.stop()
                services.leadership.release()
                tg.cancel_scope.cancel()
                services.audit.close()  # the last rows and the checkpoint are on disk before the process ends

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(BodyLimit, max_bytes=settings.max_body_bytes),
            Middleware(
                HostOriginGuard,
                hosts=extra_hosts(settings),
                origins=extra_origins(settings),
                default_port=settings.port,
            ),
            Middleware(
                BearerAuth,
                verify=verify,
                # only an authorization server makes the OAuth discovery worth starting
                resource_metadata_url=metadata_url if services.provider_tokens is not None else None,
                throttle=services.sign_in_throttle,
                explain=None if verify is None else partial(explain_refusal, tokens=services.access_tokens),
            ),
            Middleware(McpBodyGuard, path="/mcp", max_bytes=settings.max_body_bytes, limits=limits_of(settings)),
        ],
    )
    app.state.mcp_server = mcp_server  # the MCP server object, for in-memory clients (tests, the demo)
    return app


def freeze_startup_heap() -> None:
    """Take every object alive now out of the cyclic garbage collector's generations (`gc.freeze`).

    A full collection walks every tracked object; with the SDK, pydantic's schemas and the
    registry loaded that took 100-180 ms on the test machine, during which no request moved
    (every call in flight then, the p99 of eight concurrent MCP clients). What start-up built
    lives as long as the process: call this once the server is built, just before it serves.
    """
    gc.collect()
    gc.freeze()


def bearer_verifier(services: Services) -> Any:
    """This server's own tokens, and the identity provider's access tokens when one is configured."""
    own, provider = services.access_tokens.verify, services.provider_tokens
    if provider is None:
        return own

    async def verify(token: str) -> Caller | None:
        caller: Caller | None = own(token)
        return caller if caller is not None else await provider.verify(token)

    return verify


def token_sign_in(settings: Settings) -> bool:
    """Console sign-in with a pasted console credential: for development, or explicitly kept beside OIDC."""
    if settings.console_token_sign_in is not None:
        return settings.console_token_sign_in
    return not (settings.oidc_issuer and settings.oidc_client_id)


def local_operator() -> Caller:
    return Caller("local", frozenset(ROLES), via="mcp", auth="internal")
