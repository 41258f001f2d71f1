"""THE registry: one declarative `Operation` per tool.

MCP tools, REST routes and function-calling schemas are generated from these objects;
`dispatch()` (ops/dispatch.py) applies auth scope, confirmation, rate limit, audit,
redaction and output validation once for all of them.

An operation of risk `write`, `act` or `dangerous` is never callable as such: the
registry exposes it only as `propose_<name>` (runs `preview`, changes nothing, returns a
token) and `apply_<name>` (takes the token only, then runs `handler`).

An `OperationTemplate` generates operations from data at call time (one `run_<slug>` per
validated competence): `Registry.resolve()` and `Registry.listing()` include them, so they
reach every surface through the same `dispatch()`; the reference documents the template.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
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
    registry: Registry | None = None  # set by dispatch(): the registry the operation was found in

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
    # The workstations a request acts for; a token bound to machines may act only for those (dispatch checks).
    machines: Callable[[OpContext, Any], Awaitable[Iterable[str | None]]] | None = None
    # A read: the workstations whose data it returns (None: the entity named does not exist); a token bound
    # to machines reads only theirs, others are not-found (ops/scope.py). `rows`: the output field listing
    # items with a `machine_id`, of which such a token sees only its machines'.
    reads: Callable[[OpContext, Any], Awaitable[Iterable[str | None]]] | None = None
    rows: str | None = None

    @property
    def allowed_roles(self) -> frozenset[str]:
        return self.roles if self.roles is not None else DEFAULT_ROLES[self.risk]

    @property
    def needs_confirmation(self) -> bool:
        return self.risk in CONFIRMED_RISKS


@dataclass(frozen=True)
class OperationTemplate:
    """A family of operations generated from data when they are listed or called.

    `instances(services)` returns the operations that exist now (e.g. one per validated
    competence); each name starts with `prefix`. `pattern`, `title`, `description`, `input`,
    `output`, `risk` and `roles` describe the family for the generated reference and the
    OpenAPI document, which stay the same whatever data the server holds.
    """

    pattern: str  # e.g. "run_<slug>"
    prefix: str  # e.g. "run_"
    title: str
    description: str
    input: type[BaseModel]
    output: type[BaseModel]
    risk: Risk
    roles: frozenset[str]
    instances: Callable[[Services], Sequence[Operation]]
    surfaces: frozenset[Surface] = ALL_SURFACES


@dataclass
class Registry:
    """All operations by name, as the surfaces see them (propose_/apply_ already expanded)."""

    operations: dict[str, Operation] = field(default_factory=dict)
    confirmed: dict[str, Operation] = field(default_factory=dict)  # the gated operations themselves
    resources: list[Resource] = field(default_factory=list)
    templates: list[OperationTemplate] = field(default_factory=list)

    def get(self, name: str) -> Operation | None:
        """A static operation (not one generated by a template)."""
        return self.operations.get(name)

    def for_surface(self, surface: Surface) -> list[Operation]:
        """The static operations of a surface."""
        return [op for op in self.operations.values() if surface in op.surfaces]

    def generated(self, services: Services) -> list[Operation]:
        """The operations the templates generate now, first name wins, never shadowing a static one."""
        out: dict[str, Operation] = {}
        for template in self.templates:
            for op in template.instances(services):
                if op.name not in self.operations and op.name not in out:
                    out[op.name] = op
        return list(out.values())

    def resolve(self, name: str, services: Services) -> Operation | None:
        """A static operation, else the generated one of that name (templates are asked only for their prefix)."""
        op = self.operations.get(name)
        if op is not None or not any(name.startswith(t.prefix) for t in self.templates):
            return op
        return next((g for g in self.generated(services) if g.name == name), None)

    def listing(self, surface: Surface, services: Services) -> list[Operation]:
        """Every operation of a surface as it stands now: static ones, then generated ones."""
        return self.for_surface(surface) + [op for op in self.generated(services) if surface in op.surfaces]


ResourceReader = Callable[..., Awaitable[str | bytes]]


@dataclass(frozen=True)
class Resource:
    """A readable `rpa://` resource; `{name}` segments of the URI are passed as keyword arguments."""

    uri: str
    name: str
    description: str
    mime_type: str
    read: ResourceReader  # async (services, **params) -> str | bytes
    # Who may read it (default: every role that may call read_resource); whose data it is (async
    # (services, **params) -> machines, None for an entity that does not exist); the JSON field listing
    # items with a `machine_id`. A token bound to machines reads only theirs (ops/scope.py).
    roles: frozenset[str] | None = None
    owners: Callable[..., Awaitable[Iterable[str | None]]] | None = None
    rows: str | None = None

    @classmethod
    def of(cls, spec: Resource | tuple[str, str, str, str, ResourceReader]) -> Resource:
        return spec if isinstance(spec, Resource) else cls(*spec)

    def match(self, uri: str) -> dict[str, str] | None:
        """The `{name}` segments of `uri` when it is one of this resource's URIs (each segment holds no '/')."""
        pattern = "".join(
            f"(?P<{part[1:-1]}>[^/]+)" if part.startswith("{") else re.escape(part)
            for part in re.split(r"(\{\w+\})", self.uri)
            if part
        )
        found = re.fullmatch(pattern, uri)
        return found.groupdict() if found else None


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
    "OperationTemplate",
    "Preview",
    "PreviewFn",
    "Registry",
    "Resource",
    "ResourceReader",
    "Risk",
    "StrictModel",
    "Surface",
]
