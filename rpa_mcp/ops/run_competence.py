"""`run_<slug>`: one tool per validated competence, generated from a template.

Each validated competence is offered as its own operation `run_<slug>` (hyphens of the slug
become underscores). Calling it proposes a supervised replay of that competence, exactly like
`propose_start_replay` with `competence` filled in: it changes nothing and returns a preview
and a token for `apply_start_replay`. The operations are generated when they are listed or
called (`Registry.resolve` / `Registry.listing`), so a promotion or a deletion changes the
tool list at once (clients are told), and they reach MCP, REST (`/api/v1/tools/run_<slug>`)
and function calling through the same `dispatch()`.

`run_input(competence)` builds a competence's input model from the loaded competence (its IR is
`competence.workflow`): the target machine, one typed, described argument per parameter the
workflow declares (`parameters: [{name, type, example, description, required}]`: a number, or a
string — a date shaped like its example —, required unless said otherwise), and `params` for
the values of its secrets (`secret:<name>`) and of undeclared placeholders. The declared
arguments are passed to the replay as parameters of the same name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, create_model

from rpa_mcp.competences import LoadedCompetence
from rpa_mcp.errors import RpaError
from rpa_mcp.ops.gate import ProposalOutput, propose_of
from rpa_mcp.ops.registry import OpContext, Operation, OperationTemplate, StrictModel
from rpa_mcp.ops.replay_models import StartReplayInput
from rpa_mcp.ops.replay_start import START_REPLAY
from rpa_mcp.shadow.parameters import RESERVED, date_pattern

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services

PREFIX = "run_"
PROPOSE_START = propose_of(START_REPLAY)


class RunCompetenceInput(StrictModel):
    """The arguments of a run_<slug> tool (the competence is the tool itself)."""

    machine_id: str | None = Field(
        None, max_length=200, description="Machine to replay on; default the machine the competence was observed on."
    )
    params: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="Values for the workflow's {{placeholders}}."
    )


def tool_name(slug: str) -> str:
    """The operation offering a validated competence: run_ + its slug with underscores."""
    return PREFIX + slug.replace("-", "_")


def declared_parameters(competence: LoadedCompetence) -> list[dict[str, Any]]:
    found = competence.workflow.get("parameters") if isinstance(competence.workflow, dict) else None
    return [p for p in found or [] if isinstance(p, dict) and p.get("name") and p["name"] not in RESERVED]


def run_input(competence: LoadedCompetence) -> type[BaseModel]:
    """The input model of one competence's run tool: its declared parameters as typed, described arguments."""
    parameters = declared_parameters(competence)
    if not parameters:
        return RunCompetenceInput
    fields: dict[str, Any] = {}
    for p in parameters:
        description = str(p.get("description") or f"Value of '{p['name']}'.")
        example = p.get("example")
        if example not in (None, ""):
            description += f" In the demonstration: {example!r}."
        required = bool(p.get("required", True))
        kind: Any = float if p.get("type") == "number" else str
        constraints: dict[str, Any] = {}
        if kind is str:
            constraints = {"min_length": 1, "max_length": 500}
            if p.get("type") == "date" and isinstance(example, str) and example:
                constraints["pattern"] = date_pattern(example)
        default: Any = ... if required else None
        fields[str(p["name"])] = (
            kind if required else kind | None,
            Field(default, description=description, **constraints),
        )
    model: type[BaseModel] = create_model(  # fields are built at run time
        f"Run_{competence.slug.replace('-', '_')}"[:60], __base__=RunCompetenceInput, **fields
    )
    return model


def _description(competence: LoadedCompetence) -> str:
    names = [p["name"] for p in declared_parameters(competence)]
    takes = f" It takes {', '.join(names)}; the preview shows the values it will type." if names else ""
    return (
        f"Propose a supervised replay of the validated competence '{competence.name}' (version "
        f"{competence.version}, {competence.steps} steps).{takes} Changes nothing: returns a preview and a token; "
        "call apply_start_replay with the token once the person agrees (and approved on the page, when an "
        "approval_url is given)."
    )


def run_operation(competence: LoadedCompetence) -> Operation:
    """The run_<slug> operation of one validated competence."""
    model = run_input(competence)

    async def handler(ctx: OpContext, args: BaseModel) -> BaseModel:
        values: dict[str, Any] = args.model_dump()
        machine_id = values.pop("machine_id", None)
        params = {**values.pop("params", {}), **{k: v for k, v in values.items() if v is not None}}
        proposal = StartReplayInput(competence=competence.name, machine_id=machine_id, params=params)
        return await PROPOSE_START.handler(ctx, proposal)

    return Operation(
        name=tool_name(competence.slug),
        title=f"Run: {competence.name}",
        description=_description(competence),
        input=model,
        output=ProposalOutput,
        risk="read",  # a proposal: the replay itself needs apply_start_replay
        handler=handler,
        roles=START_REPLAY.allowed_roles,
        idempotent=False,
        destructive=False,
    )


def run_operations(services: Services) -> list[Operation]:
    """One run_<slug> per validated competence, as the competence folders hold them now."""
    out = []
    for summary in services.competences.list(status="validated"):
        try:
            loaded = services.competences.get(summary.slug, None, "validated")
        except RpaError:  # removed or made invalid since the listing
            continue
        out.append(run_operation(loaded))
    return out


RUN_COMPETENCE = OperationTemplate(
    pattern="run_<slug>",
    prefix=PREFIX,
    title="Run: <competence>",
    description="One tool per validated competence (its slug with underscores): proposes a supervised replay of "
    "that competence, like propose_start_replay with `competence` filled in. Changes nothing; returns a preview "
    "and a token for apply_start_replay. The list changes when competences are promoted or deleted (clients "
    "that listen are told).",
    input=RunCompetenceInput,
    output=ProposalOutput,
    risk="read",
    roles=START_REPLAY.allowed_roles,
    instances=run_operations,
)

TEMPLATES: tuple[OperationTemplate, ...] = (RUN_COMPETENCE,)
