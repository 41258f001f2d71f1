"""What MCP answers weigh: tools/list per role and toolset, resolve_dialog's answer with its crop.

Bytes are the JSON of the result as it goes on the wire (camelCase, nulls left out), measured
with the SDK client on the server object in memory: the same bytes Streamable HTTP carries,
without the SSE framing. resolve_dialog runs on 1080p dialog frames of the committed corpus
that the resolver pauses on (those return a crop), with the default crop, then with
`max_side` 240 and with `max_side` 240 and `quality` 60 (JPEG). A crop only a little larger than
`max_side` may grow: interpolation smears flat UI colours, which PNG compresses worse.
"""

from __future__ import annotations

import base64
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

import anyio
import cv2
from mcp import Client

from rpa_mcp.bench import corpus
from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.entrypoints.mcp_toolsets import TOOLSETS
from rpa_mcp.identity import ROLES, Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.settings import Settings


def wire_bytes(result: Any) -> int:
    return len(json.dumps(result.model_dump(by_alias=True, mode="json", exclude_none=True), separators=(",", ":")))


async def _tool_lists(settings: Settings) -> list[str]:
    services = build_services(settings)
    server = build_mcp_server(build_registry(), services)
    lines = ["tools/list bytes (tools) by role, every toolset:"]
    for role in sorted(ROLES):
        caller = Caller(f"bench-{role}", frozenset({role}), via="mcp", auth="internal")
        tools = await server.list_tools(caller)
        lines.append(f"  {role:9s} {_list_bytes(tools):7d} B ({len(tools)})")
    operator = Caller("bench-operator", frozenset({"operator"}), via="mcp", auth="internal")
    lines.append("operator, one toolset at a time (core tools included), then read-only:")
    for name in TOOLSETS:
        tools = await server.list_tools(operator, _selection(server, toolsets=frozenset({name})))
        lines.append(f"  {name:12s} {_list_bytes(tools):7d} B ({len(tools)})")
    tools = await server.list_tools(operator, _selection(server, read_only=True))
    lines.append(f"  read_only=1  {_list_bytes(tools):7d} B ({len(tools)})")
    return lines


def _selection(server: Any, **changes: Any) -> Any:
    from dataclasses import replace

    return replace(server.selection, **changes)


def _list_bytes(tools: list[Any]) -> int:
    from mcp.types import ListToolsResult

    return wire_bytes(ListToolsResult(tools=tools))


async def _resolve_answers(settings: Settings, limit: int) -> list[str]:
    from rpa_mcp.entrypoints.app import local_operator

    services = build_services(settings)
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    sizes: dict[str, list[int]] = {"screenshot": [], "default": [], "max_side=240": [], "max_side=240 quality=60": []}
    async with Client(server) as client:
        for frame in corpus().frames:
            if len(sizes["default"]) >= limit:
                break
            if frame.dialog is None or frame.size != (1920, 1080):
                continue
            png = cv2.imencode(".png", corpus().image(frame.file), [cv2.IMWRITE_PNG_COMPRESSION, 6])[1].tobytes()
            image = {"png_base64": base64.b64encode(png).decode("ascii")}
            first = await client.call_tool("resolve_dialog", {"image": image})
            if first.is_error or not (first.structured_content or {}).get("crop"):
                continue  # decided without a person: no crop to return
            sizes["screenshot"].append(len(png))
            sizes["default"].append(wire_bytes(first))
            for label, extra in (
                ("max_side=240", {"max_side": 240}),
                ("max_side=240 quality=60", {"max_side": 240, "quality": 60}),
            ):
                sizes[label].append(wire_bytes(await client.call_tool("resolve_dialog", {"image": image, **extra})))
    if not sizes["default"]:
        return ["resolve_dialog: no frame of the corpus paused with a crop"]
    lines = [f"resolve_dialog answer bytes, median of {len(sizes['default'])} paused 1080p frames:"]
    lines += [f"  {label:24s} {int(statistics.median(values)):7d} B" for label, values in sizes.items()]
    return lines


def run(argv: list[str]) -> str:
    limit = int(argv[0]) if argv else 3
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", jwt_secret="b" * 48)
        lines = anyio.run(_tool_lists, settings)
        lines += anyio.run(_resolve_answers, settings, limit)
    return "\n".join(lines)
