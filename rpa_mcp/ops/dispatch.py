"""`dispatch()`: the one path every surface takes to run an operation.

Order: strict JSON checks of the arguments -> find the operation and the surface -> role check ->
rate limit -> validate input -> handler -> validate output -> redact; one audit row whatever the
outcome (arguments refused as non-JSON are audited by shape only). The handler runs
in an audit scope: its first write commits together with its audit row, and arguments that
cannot be audited (NaN, infinities) are refused before it runs.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import Any

from pydantic import BaseModel, ValidationError

from rpa_mcp.bootstrap import Services
from rpa_mcp.errors import Forbidden, InternalError, InvalidInput, NotFound, RpaError
from rpa_mcp.identity import Caller
from rpa_mcp.ops import json_input
from rpa_mcp.ops.redaction import redact
from rpa_mcp.ops.registry import OpContext, Operation, Registry, Surface

logger = logging.getLogger(__name__)


def validation_error(exc: ValidationError, *, prefix: str = "") -> InvalidInput:
    """A pydantic error as InvalidInput naming every bad field."""
    problems = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        problems.append({"field": prefix + loc, "problem": err["msg"]})
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return InvalidInput(f"{first['field']}: {first['problem']}{more}", field=first["field"], errors=problems)


async def dispatch(
    registry: Registry,
    services: Services,
    name: str,
    arguments: dict[str, Any] | None,
    caller: Caller,
    *,
    surface: Surface,
    progress: Any = None,
) -> dict[str, Any]:
    started = time.perf_counter()
    op = registry.get(name)
    outcome, code = "ok", None
    request_id = secrets.token_hex(6)
    scope = None
    readable = False
    try:
        json_input.check(arguments or {}, json_input.limits_of(services.settings))
        readable = True
        if op is None or surface not in op.surfaces:
            raise NotFound(f"unknown operation {name!r}", operation=name)
        if not caller.has_any(op.allowed_roles):
            raise Forbidden(
                f"{name} needs one of the roles {sorted(op.allowed_roles)}; you have {sorted(caller.roles) or 'none'}",
                operation=name,
            )
        services.rate_limiter.check(caller.subject, name)
        args = parse_input(op, arguments or {})
        ctx = OpContext(caller=caller, services=services, request_id=request_id, progress=progress)
        with services.audit.scope(
            actor=caller.subject,
            operation=name,
            args=audit_view(op, arguments or {}),
            raw=arguments,
            via=surface,
            request_id=request_id,
        ) as scope:
            result = await op.handler(ctx, args)
        return render_output(op, result)
    except RpaError as exc:
        outcome, code = "error", exc.code
        raise
    except Exception as exc:
        outcome, code = "error", InternalError.code
        logger.exception("operation %s failed", name)
        raise InternalError(f"{name} failed unexpectedly; the server log has the details") from exc
    finally:
        if not (outcome == "ok" and scope is not None and scope.logged):
            # (an operation that wrote committed its row with its first write; a later error adds one)
            services.audit.record(
                actor=caller.subject,
                operation=name,
                args=audit_view(op, arguments or {}) if readable else {"unreadable_arguments": True},
                outcome=outcome,
                code=code,
                duration_ms=(time.perf_counter() - started) * 1000,
                via=surface,
                request_id=request_id,
                wait=not (outcome == "ok" and op is not None and op.risk == "read"),  # reads: group commit
            )


def audit_view(op: Operation | None, arguments: dict[str, Any]) -> Any:
    """The arguments as the audit row keeps them (an operation may strip what must never be stored)."""
    if op is not None and op.audit_args is not None:
        try:
            return op.audit_args(arguments)
        except Exception:  # malformed input: keep its shape only, never its content
            return {"unreadable_arguments": True}
    return arguments


def parse_input(op: Operation, arguments: dict[str, Any]) -> BaseModel:
    if not isinstance(arguments, dict):
        raise InvalidInput("arguments must be a JSON object", field="(arguments)")
    try:
        return op.input.model_validate(arguments)
    except ValidationError as exc:
        raise validation_error(exc) from exc


def render_output(op: Operation, result: BaseModel) -> dict[str, Any]:
    if not isinstance(result, op.output):
        raise TypeError(f"{op.name} returned {type(result).__name__}, not {op.output.__name__}")
    data = result.model_dump(mode="json", by_alias=True)
    op.output.model_validate(data)  # the published schema is what we return
    redacted: dict[str, Any] = redact(data)
    return redacted
