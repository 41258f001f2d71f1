"""`rpa-mcp stdio`: the MCP server on standard input and output, for a local client (Claude Desktop).

The client starts this process itself; there is no HTTP, so no bearer header: the identity is
the access token in `RPA_TOKEN` (minted with `rpa-mcp token`), checked at start and again at
every request (an expired or revoked token stops working mid-session, as over HTTP). Everything
else is the HTTP server's: the same registry and `dispatch()`, so the same roles, rate limits,
audit rows and redaction. Only this server's own tokens are accepted (not an identity
provider's). The watchdog of running replays is the serving process's (`rpa-mcp serve`); this
one only answers its client. Nothing but the protocol is written on stdout; logs go to stderr.
"""

from __future__ import annotations

from dataclasses import replace

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.entrypoints.mcp import RpaMCPServer, build_mcp_server
from rpa_mcp.errors import StartupRefused
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.settings import Settings


def stdio_server(settings: Settings, services: Services | None = None) -> RpaMCPServer:
    """The MCP server of one local client, acting as the holder of `RPA_TOKEN`; refused without a valid one."""
    if settings.token is None:
        raise StartupRefused("RPA_TOKEN is not set: mint a token with `rpa-mcp token --sub <name> --role operator`")
    services = services or build_services(settings)
    token = settings.token.get_secret_value()

    def identity() -> Caller | None:
        caller = services.access_tokens.verify(token)
        return replace(caller, via="mcp") if caller is not None else None

    if identity() is None:
        raise StartupRefused(
            "RPA_TOKEN is not a valid token here (expired, or signed with another key); mint a new one"
        )
    return build_mcp_server(build_registry(), services, local_caller=identity)


async def serve_stdio(server: RpaMCPServer) -> None:
    services = server.services
    async with services.db.async_reads():
        server.publisher.bind_loop()
        services.wakeups.start()  # changes made by the serving replicas reach this client too
        try:
            await server.run_stdio_async()
        finally:
            services.wakeups.stop()
            services.audit.close()  # the last audit rows are on disk before the process ends
