"""Function calling for in-app agent loops: the registry as OpenAI/Anthropic tools.

The schemas come from the same pydantic models as the MCP tools (`op.input.model_json_schema()`),
with the same names and descriptions. `call()` runs through the same `dispatch()` as MCP and
REST (surface `functions`): role check, rate limit, input validation, confirmation gate
(propose_/apply_), audit, output validation and redaction. Its result is exactly the MCP
structured content; an error is `{"error": {"code", "message", "retryable", "details"}}` with
the same stable codes as MCP (`_meta["rpa/error"]`) and REST (problem+json `code`).

    from rpa_mcp.functions import FunctionContext, call, openai_tools

    ctx = FunctionContext(caller=Caller("nurse-app", frozenset({"operator"})), services=services)
    tools = openai_tools(services=services)     # pass to the model (run_<slug> tools included)
    result = await call("list_machines", {}, ctx)

Arguments may be a dict or the JSON text OpenAI-style providers send.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rpa_mcp.errors import InvalidInput, RpaError
from rpa_mcp.ops import schemas
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.json_input import JsonLimits, limits_of, loads
from rpa_mcp.ops.registry import Caller, Operation, Registry, Surface

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services

SURFACE: Surface = "functions"


@dataclass
class FunctionContext:
    """Who calls and with which services; `registry` defaults to `build_registry()` (built once)."""

    caller: Caller
    services: Services
    registry: Registry | None = None
    progress: Any = None  # async (done, total, message) -> None, as OpContext.progress
    _built: Registry | None = field(default=None, init=False, repr=False)

    def get_registry(self) -> Registry:
        if self.registry is not None:
            return self.registry
        if self._built is None:
            self._built = _default_registry()
        return self._built


_DEFAULT: Registry | None = None


def _default_registry() -> Registry:
    global _DEFAULT
    if _DEFAULT is None:
        from rpa_mcp.ops import build_registry

        _DEFAULT = build_registry()
    return _DEFAULT


def operations(registry: Registry | None = None, services: Services | None = None) -> list[Operation]:
    """The operations exposed to function calling, in registry order.

    With `services`, the operations generated from the server's data (one `run_<slug>` per
    validated competence) follow the static ones; without, only the static ones.
    """
    reg = registry or _default_registry()
    return reg.listing(SURFACE, services) if services is not None else reg.for_surface(SURFACE)


def input_schema(op: Operation) -> dict[str, Any]:
    """The JSON schema of an operation's arguments: the very one MCP publishes."""
    return schemas.input_schema(op)


def openai_tools(registry: Registry | None = None, services: Services | None = None) -> list[dict[str, Any]]:
    """`[{"type": "function", "function": {name, description, parameters}}]` for OpenAI-compatible APIs."""
    return [
        {
            "type": "function",
            "function": {"name": op.name, "description": op.description, "parameters": input_schema(op)},
        }
        for op in operations(registry, services)
    ]


def anthropic_tools(registry: Registry | None = None, services: Services | None = None) -> list[dict[str, Any]]:
    """`[{name, description, input_schema}]` for the Anthropic Messages API."""
    return [
        {"name": op.name, "description": op.description, "input_schema": input_schema(op)}
        for op in operations(registry, services)
    ]


def error_payload(exc: RpaError) -> dict[str, Any]:
    """The error shape of function calling: always the four keys."""
    return {
        "error": {"code": exc.code, "message": exc.message, "retryable": exc.retryable, "details": dict(exc.details)}
    }


def parse_arguments(arguments: dict[str, Any] | str | None, limits: JsonLimits | None = None) -> dict[str, Any]:
    """A dict, the JSON text of one (decoded strictly), or nothing (= no arguments)."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        arguments = loads(arguments, limits or JsonLimits(), where="(arguments)")
    if not isinstance(arguments, dict):
        raise InvalidInput("arguments must be a JSON object", field="(arguments)")
    return arguments


async def call(name: str, arguments: dict[str, Any] | str | None, context: FunctionContext) -> dict[str, Any]:
    """Run one tool call; never raises an `RpaError` (it becomes `{"error": {...}}`)."""
    caller = replace(context.caller, via=SURFACE)
    try:
        args = parse_arguments(arguments, limits_of(context.services.settings))
    except RpaError as exc:  # dispatch never saw it: audit the refusal here, like dispatch would
        context.services.audit.record(
            actor=caller.subject,
            operation=name,
            args={"(raw)": str(arguments)[:200]},
            outcome="error",
            code=exc.code,
            via=SURFACE,
        )
        return error_payload(exc)
    try:
        return await dispatch(
            context.get_registry(), context.services, name, args, caller, surface=SURFACE, progress=context.progress
        )
    except RpaError as exc:
        return error_payload(exc)


def is_error(result: dict[str, Any]) -> bool:
    return set(result) == {"error"} and isinstance(result["error"], dict) and "code" in result["error"]


__all__ = [
    "FunctionContext",
    "anthropic_tools",
    "call",
    "error_payload",
    "input_schema",
    "is_error",
    "openai_tools",
    "operations",
]
