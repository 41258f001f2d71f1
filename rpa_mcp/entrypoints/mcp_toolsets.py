"""Which tools one MCP connection sees: toolsets, read-only mode, bounded `run_<slug>` tools; icons.

A connection picks its toolsets and read-only mode in the URL it connects to
(`/mcp?toolsets=replay,dialogs&read_only=1`); without them the settings' defaults apply
(`RPA_MCP_TOOLSETS`, `RPA_MCP_READ_ONLY`). `get_catalog` and `read_resource` are in every
selection (`core`). The generated `run_<slug>` tools are listed only when
`RPA_MCP_RUN_TOOLS` allows some, at most that many (a client may cap its tools at 40); a
competence is otherwise started with `propose_start_replay`. A tool outside the connection's
selection is refused when called, as if it did not exist. Roles still decide first: the
selection only narrows what the caller's roles allow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from mcp.types import Icon

from rpa_mcp.ops import MODULES
from rpa_mcp.ops.gate import expand
from rpa_mcp.ops.registry import Operation
from rpa_mcp.ops.run_competence import PREFIX as RUN_PREFIX
from rpa_mcp.settings import Settings

# area module -> toolset; `core` is always selected
AREA_TOOLSET = {
    "catalog": "core",
    "shadow": "observe",
    "competences": "competences",
    "run_competence": "competences",
    "dialogs": "dialogs",
    "validation": "validation",
    "replay": "replay",
    "replay_agent": "replay",
}
PROPOSE_PREFIX = "propose_"
TOOLSETS = ("observe", "competences", "replay", "dialogs", "validation")
TOOLSET_OF: dict[str, str] = {
    exposed.name: AREA_TOOLSET[area]
    for area, module in MODULES.items()
    for op in getattr(module, "OPERATIONS", ())
    for exposed in expand(op)
} | {"read_resource": "core"}


@dataclass(frozen=True)
class Selection:
    """What one connection asked to see."""

    toolsets: frozenset[str]
    read_only: bool
    run_tools: int  # how many generated run_<slug> tools may be listed (0: none)

    def admits(self, op: Operation) -> bool:
        if self.read_only and (op.risk != "read" or op.name.startswith(PROPOSE_PREFIX)):
            return False  # a proposal changes nothing, but serves only the apply_ this mode leaves out
        return toolset_of(op.name) in self.toolsets | {"core"}


def toolset_of(name: str) -> str:
    return "competences" if name.startswith(RUN_PREFIX) and name not in TOOLSET_OF else TOOLSET_OF.get(name, "core")


def parse_toolsets(value: str) -> frozenset[str]:
    """`a,b` (or `all`) as toolset names; an unknown name is refused so that a typo does not hide tools."""
    names = {n.strip() for n in value.split(",") if n.strip()}
    if "all" in names:
        return frozenset(TOOLSETS)
    unknown = names - set(TOOLSETS)
    if unknown:
        raise ValueError(f"unknown toolsets {sorted(unknown)}; known: {', '.join(TOOLSETS)} (or all)")
    return frozenset(names)


def default_selection(settings: Settings) -> Selection:
    return Selection(parse_toolsets(settings.mcp_toolsets), settings.mcp_read_only, settings.mcp_run_tools)


def selection_of(request: Any, default: Selection) -> Selection:
    """The selection in the connection's URL query (`toolsets`, `read_only`), else the default.

    An unknown toolset name in the URL selects nothing but `core` (the tool list then says so by
    being short) rather than failing every request of the connection.
    """
    query = getattr(request, "scope", {}).get("query_string", b"") if request is not None else b""
    if not query:
        return default
    values = parse_qs(query.decode("latin-1"))
    toolsets, read_only = default.toolsets, default.read_only
    if "toolsets" in values:
        try:
            toolsets = parse_toolsets(",".join(values["toolsets"]))
        except ValueError:
            toolsets = frozenset()
    if "read_only" in values:
        read_only = values["read_only"][-1].lower() in ("1", "true", "yes")
    return Selection(toolsets, read_only, default.run_tools)


# --- icons: one small SVG per toolset, served at /icons/<name>.svg ---------------------------------------------
_SHAPES = {
    "rpa-mcp": '<rect x="3" y="5" width="18" height="12" rx="2"/><path d="M8 21h8M12 17v4"/>',
    "core": '<circle cx="12" cy="12" r="8"/>',
    "observe": '<path d="M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12z"/><circle cx="12" cy="12" r="3"/>',
    "competences": '<path d="M4 4h12l4 4v12H4z"/><path d="M8 12h8M8 16h5"/>',
    "replay": '<path d="M7 4l12 8-12 8z"/>',
    "dialogs": '<rect x="3" y="4" width="18" height="14" rx="2"/><path d="M8 14h8"/>',
    "validation": '<path d="M4 13l5 5L20 6"/>',
    "prompt": '<path d="M4 5h16v11H9l-5 4z"/>',
}
ICON_NAMES = tuple(_SHAPES)


def icon_svg(name: str) -> str | None:
    shape = _SHAPES.get(name)
    if shape is None:
        return None
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" fill="none" '
        f'stroke="#1f5f8b" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">{shape}</svg>'
    )


def icon(base_url: str, name: str) -> list[Icon]:
    return [Icon(src=f"{base_url}/icons/{name}.svg", mime_type="image/svg+xml", sizes=["any"])]
