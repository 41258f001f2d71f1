"""`GET /`: a small page for a person who opens the server's address in a browser.

No sign-in, nothing secret: where the MCP endpoint, the console, the health check and the
API's description are, and which documents to read first.
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import HTMLResponse

from rpa_mcp import __version__

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rpa-mcp</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;line-height:1.5}}
code{{background:#eee;padding:0 .2rem}}</style></head>
<body><h1>rpa-mcp {version}</h1>
<p>An MCP server for supervised desktop automation. This page needs no sign-in and shows nothing private.</p>
<ul>
<li><a href="/console">Operator console</a>: approvals, replays, sessions, competences, audit.</li>
<li>MCP endpoint for LLM clients: <code>{base}/mcp</code> (Streamable HTTP, bearer token:
<code>rpa-mcp token --sub NAME --role operator</code>).</li>
<li>REST API for desktop agents under <code>/api/v1/</code>, described by <code>/api/v1/openapi.json</code>.</li>
<li>Health: <a href="/healthz">/healthz</a>.</li>
</ul>
<p>Documents (in the source distribution): <code>docs/getting-started.md</code>, <code>docs/clients.md</code>,
<code>docs/console.md</code>, <code>docs/operations.md</code>.</p>
</body></html>
"""


def home_endpoint(base: str) -> Callable[[Request], Awaitable[HTMLResponse]]:
    """The route's endpoint; `base` is this server's public base URL (RPA_PUBLIC_URL or the bind)."""
    body = PAGE.format(version=__version__, base=html.escape(base))

    async def home(request: Request) -> HTMLResponse:
        return HTMLResponse(body, headers={"cache-control": "no-cache"})

    return home
