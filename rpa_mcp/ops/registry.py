"""THE registry: one declarative `Operation` per tool.

MCP tools, REST routes and function-calling schemas are generated from these objects;
`dispatch()` (ops/dispatch.py) applies auth scope, confirmation, rate limit, audit,
redaction and output validation once for all of them.

An operation of risk `write`, `act` or `dangerous` is never callable as such: the
registry exposes it only as `propose_<name>` (runs `preview`, changes nothing, returns a
token) and `apply_<name>` (takes the token only, then runs `handler`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rpa_mcp.identity import ROLES, Caller

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services

Risk = Literal["read", "draft", "write", "act", "dangerous"]
Surface = Literal["mcp", "rest", "functions"]
CONFIRMED_RISKS: frozenset[str] = frozenset({"write", "act", "dangerous"})
ALL_SURFACES: frozenset[Surface] = frozenset({"mcp", "rest", "functions"})

DEFAULT_ROLES: dict[str, frozenset[str]] = {
    "read": frozenset({"operator", "viewer", "agent", "approver"}),
    "draft": frozenset({"operator", "agent"}),
    "write": frozenset({"operator"}),
    "act": frozenset({"operator"}),
    "dangerous": frozenset({"operator"}),
}


class StrictModel(BaseModel):
    """Base of every input/output model: unknown fields are refused, descriptions reach the LLM."""

    model_config = ConfigDict(extra="forbid")


class NoInput(StrictModel):
    pass


@dataclass
class OpContext:
    caller: Caller
    services: Services
    request_id: str = ""
    progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None

    async def report_progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if self.progress is not None:
            await self.progress(done, total, message)


class Preview(StrictModel):
    """What a proposal shows a person: built from server-side data, never from LLM text."""

    summary: str = Field(description="One sentence: what will happen, where, on which version.")
    details: dict[str, Any] = Field(default_factory=dict, description="Server-side facts behind the summary.")
    diff: str | None = Field(None, description="What changes, when the proposal replaces something.")
    binding: dict[str, Any] = Field(
        default_factory=dict,
        description="Server-side state the token is bound to (e.g. competence version); re-checked at apply.",
        exclude=True,
    )


Handler = Callable[[OpContext, Any], Awaitable[BaseModel]]
PreviewFn = Callable[[OpContext, Any], Awaitable[Preview]]


@dataclass(frozen=True)
class Http:
    """An extra REST route for an operation (agent and legacy paths), besides /api/v1/tools/<name>.

    GET routes read arguments from the query string; POST from the JSON body. `{name}`
    segments of the path fill the argument of that name. With `body_field`, the route answers
    that field of the output as the whole body, and `204 No Content` when it is null (the
    agent's long poll answers the action object itself, no envelope).
    """

    method: Literal["GET", "POST", "DELETE"]
    path: str
    body_field: str | None = None


@dataclass(frozen=True)
class Operation:
    name: str
    title: str
    description: str
    input: type[BaseModel]
    output: type[BaseModel]
    risk: Risk
    handler: Handler
    preview: PreviewFn | None = None  # required for write/act/dangerous
    roles: frozenset[str] | None = None  # default: DEFAULT_ROLES[risk]
    http: tuple[Http, ...] = ()
    surfaces: frozenset[Surface] = ALL_SURFACES
    idempotent: bool = False
    destructive: bool | None = None  # default: risk == "dangerous"
    audit_args: Callable[[dict[str, Any]], Any] | None = None  # what the audit row keeps of the raw arguments

    @property
    def allowed_roles(self) -> frozenset[str]:
        return self.roles if self.roles is not None else DEFAULT_ROLES[self.risk]

    @property
    def needs_confirmation(self) -> bool:
        return self.risk in CONFIRMED_RISKS


@dataclass
class Registry:
    """All operations by name, as the surfaces see them (propose_/apply_ already expanded)."""

    operations: dict[str, Operation] = field(default_factory=dict)
    confirmed: dict[str, Operation] = field(default_factory=dict)  # the gated operations themselves
    resources: list[Resource] = field(default_factory=list)

    def get(self, name: str) -> Operation | None:
        return self.operations.get(name)

    def for_surface(self, surface: Surface) -> list[Operation]:
        return [op for op in self.operations.values() if surface in op.surfaces]


ResourceReader = Callable[..., Awaitable[str | bytes]]


@dataclass(frozen=True)
class Resource:
    """A readable `rpa://` resource; `{name}` segments of the URI are passed as keyword arguments."""

    uri: str
    name: str
    description: str
    mime_type: str
    read: ResourceReader  # async (services, **params) -> str | bytes

    @classmethod
    def of(cls, spec: Resource | tuple[str, str, str, str, ResourceReader]) -> Resource:
        return spec if isinstance(spec, Resource) else cls(*spec)


__all__ = [
    "ALL_SURFACES",
    "CONFIRMED_RISKS",
    "DEFAULT_ROLES",
    "ROLES",
    "Caller",
    "Handler",
    "Http",
    "NoInput",
    "OpContext",
    "Operation",
    "Preview",
    "PreviewFn",
    "Registry",
    "Resource",
    "ResourceReader",
    "Risk",
    "StrictModel",
    "Surface",
]
