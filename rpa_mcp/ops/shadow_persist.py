"""Persisting what a shadow session understood as a candidate competence (propose/apply with a preview)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio.to_thread
from pydantic import Field

from rpa_mcp.confirmation.digest import digest
from rpa_mcp.errors import PreconditionFailed
from rpa_mcp.ops.registry import OpContext, Preview, StrictModel
from rpa_mcp.ops.shadow_understanding import SESSION_DESC
from rpa_mcp.shadow.ir import step_lines

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services


class PersistInput(StrictModel):
    session_id: str = Field(max_length=128, description=SESSION_DESC)
    name: str = Field(min_length=1, max_length=200, description="Competence name (its slug names the file).")
    domain: str = Field("generic", min_length=1, max_length=100, description="Business domain.")


class PersistOut(StrictModel):
    path: str = Field(description="File written, relative to the data folder.")
    name: str = Field(description="Competence name.")
    slug: str = Field(description="File name stem.")
    version: int = Field(description="Version written.")
    replaced_version: int | None = Field(description="Previous version, kept beside it as <slug>.v<N>.yaml.")
    session_reset: bool = Field(description="The session's understanding was reset for a next observation.")


def _built_for_persist(services: Services, args: PersistInput) -> tuple[dict[str, Any], dict[str, Any]]:
    built = services.shadow.build(args.session_id, args.name, args.domain)
    if built["status"] == "cancelled" or not built.get("workflow_ir"):
        raise PreconditionFailed(
            "the observation was cancelled: there is nothing to persist", session_id=args.session_id
        )
    session = services.traces.get_session(args.session_id) or {}
    return built["workflow_ir"], session


def _relative(services: Services, path: Any) -> str:
    try:
        return str(path.relative_to(services.settings.data_dir).as_posix())
    except (ValueError, AttributeError):
        return str(getattr(path, "name", path))


def _persist_preview(services: Services, args: PersistInput) -> Preview:
    ir, session = _built_for_persist(services, args)
    plan = services.competences.preview_save(args.name, ir, "candidate")
    steps = [s for s in ir["steps"]]
    reviewed = sum(
        1 for s in services.shadow.understanding(args.session_id)["steps"] if s["status"] in ("validated", "corrected")
    )
    machine = session.get("machine_id") or "an unknown machine"
    replaces = f", replacing version {plan.replaces_version} (kept as an archive)" if plan.replaces_version else ""
    summary = (
        f"Save the workflow '{plan.name}' as candidate competence '{plan.slug}' version {plan.new_version}"
        f"{replaces}: {plan.steps} step(s), {reviewed} of them validated by a person, observed on {machine}. "
        f"The understanding of session {args.session_id} is then reset."
    )
    comparable = {k: v for k, v in ir.items() if k != "created_at"}
    return Preview(
        summary=summary,
        details={
            "name": plan.name,
            "slug": plan.slug,
            "path": _relative(services, plan.path),
            "new_version": plan.new_version,
            "replaces_version": plan.replaces_version,
            "steps_count": plan.steps,
            "validated_steps": reviewed,
            "machine_id": session.get("machine_id"),
            "session_id": args.session_id,
            "steps": step_lines({"steps": steps}),
        },
        diff=plan.diff,
        binding={"workflow_sha256": digest(comparable), "replaces_version": plan.replaces_version},
    )


def _persist(services: Services, args: PersistInput) -> PersistOut:
    ir, session = _built_for_persist(services, args)
    saved = services.competences.save(args.name, ir, status="candidate", machine_id=session.get("machine_id"))
    services.shadow.reset(args.session_id)
    return PersistOut(
        path=_relative(services, saved.path),
        name=saved.name,
        slug=saved.slug,
        version=saved.version,
        replaced_version=saved.replaced_version,
        session_reset=True,
    )


async def preview_persist_competence(ctx: OpContext, args: PersistInput) -> Preview:
    return await anyio.to_thread.run_sync(_persist_preview, ctx.services, args)


async def persist_competence(ctx: OpContext, args: PersistInput) -> PersistOut:
    await ctx.report_progress(0, 1, "saving the competence")
    result = await anyio.to_thread.run_sync(_persist, ctx.services, args)
    await ctx.report_progress(1, 1, "competence saved")
    ctx.services.notifier.resource_updated("rpa://competences")
    return result
