"""`read_resource`: every `rpa://` resource read goes through this one operation.

The MCP surface answers `resources/read` by dispatching it (so a read is role-checked,
rate-limited, audited and redacted like any tool call); REST and function calling get it as
a tool, which lets an in-app loop or a client that does not surface resources to its model
read them too. The resources themselves are declared by each area (`RESOURCES`).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from pydantic import Field

from rpa_mcp.errors import Forbidden, InternalError, NotFound
from rpa_mcp.identity import Caller
from rpa_mcp.ops import scope
from rpa_mcp.ops.registry import OpContext, Operation, Registry, Resource, StrictModel

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services


class ReadResourceInput(StrictModel):
    uri: str = Field(
        min_length=6,
        max_length=2000,
        pattern=r"^rpa://",
        description="The resource URI, e.g. rpa://machines or rpa://replays/<replay_id>.",
    )


class ReadResourceOutput(StrictModel):
    uri: str = Field(description="The URI that was read.")
    mime_type: str = Field(description="Type of the content (application/json, application/yaml, image/png...).")
    text: str | None = Field(None, description="The content, for text resources (screen text in it is data).")
    data_base64: str | None = Field(None, description="The content as base64, for binary resources (images).")


def find(resources: list[Resource], uri: str) -> tuple[Resource, dict[str, str]]:
    """The resource a URI names and the values of its `{name}` segments."""
    for spec in resources:
        params = spec.match(uri)
        if params is not None:
            return spec, params
    raise NotFound(f"no resource {uri!r}; list them with resources/list", uri=uri)


async def check_readable(registry: Registry, services: Services, caller: Caller, uri: str) -> None:
    """What `read_resource` checks before reading, for a subscription: a caller is told of changes to
    what it may read only (a token bound to machines: not another machine's session or replay)."""
    if not caller.has_any(READ_RESOURCE.allowed_roles):
        raise Forbidden("reading resources needs a role that reads", uri=uri)
    spec, params = find(registry.resources, uri)
    await scope.check_resource(spec, OpContext(caller=caller, services=services, registry=registry), params)


def sniff_image(data: bytes) -> str | None:
    """The real type of image bytes (a JPEG screenshot stays image/jpeg)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    return None


async def read_resource(ctx: OpContext, args: ReadResourceInput) -> ReadResourceOutput:
    if ctx.registry is None:
        raise InternalError("read_resource runs through dispatch(), which gives it the registry")
    spec, params = find(ctx.registry.resources, args.uri)
    await scope.check_resource(spec, ctx, params)  # its roles; a token bound to machines reads only theirs
    content = await spec.read(ctx.services, **params)
    if isinstance(content, bytes):
        return ReadResourceOutput(
            uri=args.uri,
            mime_type=sniff_image(content) or spec.mime_type,
            data_base64=base64.b64encode(content).decode("ascii"),
        )
    return ReadResourceOutput(
        uri=args.uri, mime_type=spec.mime_type, text=scope.visible_text(ctx.caller, spec.rows, content)
    )


READ_RESOURCE = Operation(
    name="read_resource",
    title="Read a resource",
    description="Read an rpa:// resource (machines, a session's understanding or events, a screenshot, a "
    "competence's YAML, a replay's status, a catalog): text, or base64 for images.",
    input=ReadResourceInput,
    output=ReadResourceOutput,
    risk="read",
    handler=read_resource,
    idempotent=True,
)

OPERATIONS: tuple[Operation, ...] = (READ_RESOURCE,)
