"""The confirmation gate: turns each write/act/dangerous operation into propose_/apply_.

propose_X validates exactly what X checks (its `preview`), changes nothing and returns a
token; apply_X takes only the token, re-checks the binding, consumes the token atomically,
and only then runs X's handler with the arguments stored at proposal time.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from rpa_mcp.errors import InternalError
from rpa_mcp.ops.registry import OpContext, Operation, Preview, StrictModel


class ApplyInput(StrictModel):
    token: str = Field(min_length=16, max_length=4096, description="The token returned by the matching propose_ call.")


class ProposalOutput(StrictModel):
    operation: str = Field(description="The operation apply_ will run.")
    summary: str = Field(description="What will happen, built from server-side data: show it to the person.")
    details: dict[str, Any] = Field(description="Server-side facts behind the summary.")
    diff: str | None = Field(None, description="What changes, when this replaces something.")
    token: str = Field(description="Single-use confirmation token for apply_<operation>.")
    expires_at: float = Field(description="Epoch seconds after which the token is refused.")
    approval_mode: str = Field(
        description="'token': apply after the person agrees in chat; 'human': a person must approve on the page."
    )
    approval_status: str = Field(description="not_required | pending | approved | rejected.")
    approval_url: str | None = Field(None, description="Page where a person approves or rejects (human mode).")
    next_step: str = Field(description="What to do next.")


def propose_of(op: Operation) -> Operation:
    """propose_<name> of a gated operation: runs its preview, changes nothing, returns a token."""
    assert op.preview is not None
    preview_fn = op.preview

    async def handler(ctx: OpContext, args: BaseModel) -> ProposalOutput:
        preview: Preview = await preview_fn(ctx, args)
        proposal = ctx.services.confirmations.propose(
            operation=op.name,
            risk=op.risk,
            proposer=ctx.caller.subject,
            args=args.model_dump(mode="json"),
            summary=preview.summary,
            details=preview.details,
            diff=preview.diff,
            binding=preview.binding,
            issuer=ctx.caller.issuer,
            via=ctx.caller.via,
        )
        if proposal.approval_mode == "human":
            step = (
                f"Show the summary to the person and ask them to approve it at {proposal.approval_url}; "
                f"then call apply_{op.name} with the token."
            )
        else:
            step = f"Show the summary to the person; only after they agree, call apply_{op.name} with the token."
        return ProposalOutput(
            operation=op.name,
            summary=preview.summary,
            details=preview.details,
            diff=preview.diff,
            token=proposal.token,
            expires_at=proposal.expires_at,
            approval_mode=proposal.approval_mode,
            approval_status=proposal.approval_status,
            approval_url=proposal.approval_url,
            next_step=step,
        )

    return Operation(
        name=f"propose_{op.name}",
        title=f"Propose: {op.title}",
        description=f"Step 1 of 2 (changes nothing): {op.description} Returns a preview and a single-use token.",
        input=op.input,
        output=ProposalOutput,
        risk="read",
        handler=handler,
        roles=op.allowed_roles,
        surfaces=op.surfaces,
        idempotent=False,
        destructive=False,
        http=op.http,
    )


def _apply(op: Operation) -> Operation:
    assert op.preview is not None
    preview_fn, run = op.preview, op.handler

    async def handler(ctx: OpContext, args: BaseModel) -> BaseModel:
        assert isinstance(args, ApplyInput)
        confirmations = ctx.services.confirmations
        record = confirmations.check(args.token, operation=op.name, caller=ctx.caller.subject, issuer=ctx.caller.issuer)
        stored = op.input.model_validate(record.args)
        confirmations.check_binding(record, (await preview_fn(ctx, stored)).binding)
        confirmations.consume(record, caller=ctx.caller.subject)
        result = await run(ctx, stored)
        if not isinstance(result, op.output):
            raise InternalError(f"{op.name} returned an unexpected result")
        return result

    return Operation(
        name=f"apply_{op.name}",
        title=f"Apply: {op.title}",
        description=f"Step 2 of 2: {op.description} Takes only the token from propose_{op.name}.",
        input=ApplyInput,
        output=op.output,
        risk=op.risk,
        handler=handler,
        roles=op.allowed_roles,
        surfaces=op.surfaces,
        idempotent=False,
        destructive=op.destructive if op.destructive is not None else op.risk == "dangerous",
    )


def expand(op: Operation) -> tuple[Operation, ...]:
    if not op.needs_confirmation:
        return (op,)
    if op.preview is None:
        raise ValueError(f"operation {op.name} has risk {op.risk} but no preview")
    return (propose_of(op), _apply(op))
