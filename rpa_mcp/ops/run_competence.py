"""`run_<slug>`: a validated competence offered as its own tool, its parameters as typed, described arguments.

The tool's input model is made from the competence's declared parameters (``{name, type,
example, description, required}``): each becomes an argument of its type (``number``, or a
string; a date string shaped like its example), described for the LLM; a required one must be
given. Calling the tool proposes a replay (`propose_start_replay`) with those values as `params`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field, ValidationError, create_model

from rpa_mcp.ops.dispatch import validation_error
from rpa_mcp.ops.registry import StrictModel
from rpa_mcp.shadow.parameters import RESERVED, date_pattern

MACHINE_DESC = "Workstation to replay on (default: the machine the competence was observed on)."


def tool_name(slug: str) -> str:
    return "run_" + slug.replace("-", "_")


def input_model(competence: str, parameters: Sequence[Mapping[str, Any]]) -> type[StrictModel]:
    """The input model of run_<slug>: machine_id, and one argument per declared parameter."""
    fields: dict[str, Any] = {"machine_id": (str | None, Field(None, max_length=200, description=MACHINE_DESC))}
    for p in parameters:
        name = str(p["name"])
        if name in RESERVED:  # never produced by parameterize; a hand-written file could try
            continue
        description = str(p.get("description") or f"Value of '{name}'.")
        example = p.get("example")
        if example not in (None, ""):
            description += f" In the demonstration: {example!r}."
        required = bool(p.get("required", True))
        default: Any = ... if required else None
        kind: Any = float if p.get("type") == "number" else str
        constraints: dict[str, Any] = {}
        if kind is str:
            constraints = {"min_length": 1, "max_length": 500}
            if p.get("type") == "date" and isinstance(example, str) and example:
                constraints["pattern"] = date_pattern(example)
        fields[name] = (kind if required else kind | None, Field(default, description=description, **constraints))
    model: type[StrictModel] = create_model(f"Run_{competence}"[:60], __base__=StrictModel, **fields)
    return model


def start_arguments(
    competence: str, parameters: Sequence[Mapping[str, Any]], arguments: Mapping[str, Any]
) -> dict[str, Any]:
    """propose_start_replay's arguments from run_<slug>'s (refused with the argument at fault)."""
    nested = arguments.get("params")
    given = {**(nested if isinstance(nested, dict) else {}), **{k: v for k, v in arguments.items() if k != "params"}}
    secrets = {k: v for k, v in given.items() if str(k).startswith("secret:")}
    try:
        checked = input_model(competence, parameters).model_validate(
            {k: v for k, v in given.items() if k not in secrets}
        )
    except ValidationError as exc:
        raise validation_error(exc) from exc
    values = checked.model_dump(exclude_none=True)
    machine = values.pop("machine_id", None)
    out: dict[str, Any] = {"competence": competence, "params": {**values, **secrets}}
    if machine is not None:
        out["machine_id"] = machine
    return out
