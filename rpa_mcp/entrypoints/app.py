"""The ASGI application: MCP at /mcp, REST under /api/v1, the approval pages, health."""

from __future__ import annotations

import contextlib
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
from rpa_mcp.console import console_routes
from rpa_mcp.console.oidc import build_sign_in
from rpa_mcp.entrypoints.http_security import BearerAuth, BodyLimit, HostOriginGuard
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.entrypoints.mcp_body import McpBodyGuard
from rpa_mcp.entrypoints.rest import rest_routes
from rpa_mcp.errors import RpaError
from rpa_mcp.identity import ROLES, Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.json_input import limits_of
from rpa_mcp.ops.registry import Registry
from rpa_mcp.replay.service import run_watchdog
from rpa_mcp.settings import Settings

logger = logging.getLogger(__name__)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class StartupRefused(RpaError):
    """The server refuses to start with these settings (the message says which and what to do)."""

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
    verify = None if settings.auth_disabled else bearer_verifier(services)
    mcp_server = build_mcp_server(registry, services)
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
        document: dict[str, Any] = {
            "resource": f"{base}/mcp",
            "bearer_methods_supported": ["header"],
            "scopes_supported": list(ROLES),
            "resource_name": "rpa-mcp",
        }
        if services.provider_tokens is not None:  # the hospital's identity provider signs people in
            document["authorization_servers"] = [services.provider_tokens.issuer]
        return JSONResponse(document)

    routes: list[BaseRoute] = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource/mcp", resource_metadata, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource", resource_metadata, methods=["GET"]),
        *rest_routes(registry, services),
        *console_routes(
            services,
            registry,
            services.access_tokens.verify if token_sign_in(settings) else None,
            oidc=build_sign_in(settings, services.provider_tokens),
        ),
        Mount("/", app=mcp_app),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run(), anyio.create_task_group() as tg:
            mcp_server.publisher.bind_loop()
            stop = anyio.Event()
            if settings.watchdog_enabled:
                tg.start_soon(run_watchdog, services.replay, stop)
            try:
                yield
            finally:
                stop.set()
                tg.cancel_scope.cancel()

    app = Starlette(
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
    app.state.mcp_server = mcp_server  # the MCP server object, for in-memory clients (tests, the demo)
    return app


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
    """Console sign-in with a pasted token: for development, or explicitly kept beside OIDC."""
    if settings.console_token_sign_in is not None:
        return settings.console_token_sign_in
    return not (settings.oidc_issuer and settings.oidc_client_id)


def local_operator() -> Caller:
    return Caller("local", frozenset(ROLES), via="mcp", auth="internal")
