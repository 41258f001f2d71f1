"""The public tools as an MCP client calls them, for the benchmarks that measure accuracy.

The SDK's in-memory client on the server the registry builds: every call goes through the MCP
surface as a client's does (`tools/call`, the input model, `dispatch()`, the output model, the
answer's structured content), never through the services' own functions. `BlockingTools` offers
the same from synchronous code: a portal runs the client's event loop in a thread.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import cv2
import numpy as np
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client

from rpa_mcp.bootstrap import Services
from rpa_mcp.entrypoints.app import local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.ops import build_registry


class ToolFailed(RuntimeError):
    """A tool answered with an error (its text says why)."""


class Tools:
    """`call(tool, arguments)` -> the answer's structured content, over an MCP client session."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        if result.is_error:
            text = " ".join(getattr(block, "text", "") for block in result.content)
            raise ToolFailed(f"{tool}: {text}")
        return dict(result.structured_content or {})


@contextlib.asynccontextmanager
async def tools(services: Services) -> AsyncIterator[Tools]:
    """An MCP client session on the server every surface is built from (a local operator's)."""
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        yield Tools(client)


class BlockingTools:
    def __init__(self, portal: BlockingPortal, inner: Tools) -> None:
        self.portal = portal
        self.inner = inner

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.portal.call(self.inner.call, tool, arguments)


@contextlib.contextmanager
def blocking_tools(services: Services) -> Iterator[BlockingTools]:
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(tools(services)) as inner:
        yield BlockingTools(portal, inner)


def image_arg(image: np.ndarray) -> dict[str, str]:
    """A frame as a client sends it: PNG at a fast zlib level, base64."""
    png = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 1])[1].tobytes()
    return {"png_base64": base64.b64encode(png).decode("ascii")}


def windows_arg(title: str | None, process: str | None) -> list[dict[str, str]]:
    """The agent-reported window, when a set records one."""
    if not title and not process:
        return []
    return [{k: v for k, v in (("title", title), ("process", process)) if v}]
