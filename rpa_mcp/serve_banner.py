"""What `rpa-mcp serve` prints at start: the endpoint, the data folder, and how a client connects."""

from __future__ import annotations

import json

from rpa_mcp import __version__
from rpa_mcp.settings import Settings


def banner(base: str, token: str | None, settings: Settings, key: str) -> str:
    url = f"{base}/mcp"
    if token is None:
        auth = "DISABLED (local development)" if settings.auth_disabled else "bearer tokens"
        return f"""rpa-mcp {__version__} — MCP endpoint: {url}   operator console: {base}/console
data dir: {settings.data_dir.resolve()}   auth: {auth}
signing key: {key}
The operator token is printed on a terminal only (this output is not one, and may be a log).
Mint a token: rpa-mcp token --sub <name> --role operator   (client set-up: docs/clients.md)
Console sign-in (development): rpa-mcp token --console --sub <name> --role approver
"""
    cursor = json.dumps(
        {"mcpServers": {"rpa": {"url": url, "headers": {"Authorization": f"Bearer {token}"}}}}, indent=2
    )
    claude = json.dumps(
        {
            "mcpServers": {
                "rpa": {
                    "command": "npx",
                    "args": ["-y", "mcp-remote", url, "--header", f"Authorization: Bearer {token}"],
                }
            }
        },
        indent=2,
    )
    auth = (
        "DISABLED (local development)" if settings.auth_disabled else "bearer tokens (operator token below, valid 12 h)"
    )
    return f"""rpa-mcp {__version__} — MCP endpoint: {url}   operator console: {base}/console
data dir: {settings.data_dir.resolve()}   auth: {auth}
signing key: {key}

Operator token:
{token}

Cursor (~/.cursor/mcp.json):
{cursor}

Claude Desktop (claude_desktop_config.json, through mcp-remote):
{claude}

MCP Inspector CLI:
npx @modelcontextprotocol/inspector --cli {url} --transport http \\
    --header "Authorization: Bearer {token}" --method tools/list

The console ({base}/console) does not take this token: a person signs in there with the identity
provider, or (development) with a console credential: rpa-mcp token --console --sub <name> --role approver
"""
