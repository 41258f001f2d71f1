"""Competence operations: list, read, promote (write) and delete to the trash (dangerous); declaring a
read-back is in `competence_readback`.

Promotion and deletion change the tool list (a validated competence is offered as
`run_<slug>`), so both tell the notifier.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio.to_thread
from pydantic import Field

from rpa_mcp.competences import yamlio
from rpa_mcp.competences.ports import Competences
from rpa_mcp.competences.slug import slugify
from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops.competence_readback import READBACK_OPERATIONS
from rpa_mcp.ops.registry import OpContext, Operation, Preview, Resource, StrictModel
from rpa_mcp.ops.run_competence import tool_name

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services

StatusArg = Literal["candidate", "validated"]
NAME_DESC = "Competence name (or its slug), as listed by list_competences."


def _store(services: Services) -> Competences:
    return services.competences


def _shown(services: Services, path: Path) -> str:
    """A stored path as shown to clients: relative to the data folder."""
    try:
        return path.relative_to(services.settings.data_dir).as_posix()
    except ValueError:
        return path.name


# --- list ---------------------------------------------------------------------------
class ListCompetencesInput(StrictModel):
    status: StatusArg | None = Field(None, description="Only candidate or only validated competences; both if omitted.")


class CompetenceInfo(StrictModel):
    name: str = Field(description="Human-readable name.")
    slug: str = Field(description="File name stem; validated competences are offered as the tool run_<slug>.")
    status: StatusArg = Field(description="candidate (persisted, not yet trusted) or validated.")
    version: int = Field(description="Current version number.")
    versions: list[int] = Field(description="Every version kept in this folder, current included.")
    steps: int = Field(description="Number of steps of the current version.")
    machine_id: str | None = Field(description="Machine the workflow was observed on.")
    updated_at: str = Field(description="Last change of the current file (ISO 8601, UTC).")
    path: str = Field(description="File of the current version, relative to the data folder.")


class CompetenceProblem(StrictModel):
    path: str = Field(description="The file that was not picked up, relative to the data folder.")
    status: str = Field(description="Folder it lies in.")
    reason: str = Field(description="Why it was not picked up, and what to do.")


class ListCompetencesOutput(StrictModel):
    competences: list[CompetenceInfo] = Field(description="Valid competences, by folder then slug.")
    problems: list[CompetenceProblem] = Field(description="Files found in the folders but not usable (fix or remove).")


async def list_competences(ctx: OpContext, args: ListCompetencesInput) -> ListCompetencesOutput:
    s = ctx.services
    listing = await anyio.to_thread.run_sync(_store(s).list, args.status)
    return ListCompetencesOutput(
        competences=[
            CompetenceInfo(
                name=c.name,
                slug=c.slug,
                status=c.status,
                version=c.version,
                versions=list(c.versions),
                steps=c.steps,
                machine_id=c.machine_id,
                updated_at=c.updated_at,
                path=_shown(s, c.path),
            )
            for c in listing.competences
        ],
        problems=[
            CompetenceProblem(path=_shown(s, p.path), status=p.status, reason=p.reason) for p in listing.problems
        ],
    )


# --- get ----------------------------------------------------------------------------
class GetCompetenceInput(StrictModel):
    name: str = Field(min_length=1, max_length=200, description=NAME_DESC)
    version: int | None = Field(None, ge=1, description="A kept version; the current one if omitted.")
    status: StatusArg | None = Field(
        None, description="Where to look; if omitted, the highest version across candidate and validated."
    )


class GetCompetenceOutput(StrictModel):
    name: str = Field(description="Human-readable name.")
    slug: str = Field(description="File name stem.")
    status: StatusArg = Field(description="candidate or validated.")
    version: int = Field(description="Version returned.")
    current: bool = Field(description="Whether it is the current version of its folder.")
    versions: list[int] = Field(description="Every version kept in that folder.")
    steps: int = Field(description="Number of steps.")
    machine_id: str | None = Field(description="Machine the workflow was observed on.")
    updated_at: str = Field(description="Last change of the file (ISO 8601, UTC).")
    path: str = Field(description="File, relative to the data folder.")
    workflow: dict[str, Any] = Field(description="The workflow IR: name, domain, version, source, created_at, steps.")


async def get_competence(ctx: OpContext, args: GetCompetenceInput) -> GetCompetenceOutput:
    c = await anyio.to_thread.run_sync(_store(ctx.services).get, args.name, args.version, args.status)
    return GetCompetenceOutput(
        name=c.name,
        slug=c.slug,
        status=c.status,
        version=c.version,
        current=c.current,
        versions=list(c.versions),
        steps=c.steps,
        machine_id=c.machine_id,
        updated_at=c.updated_at,
        path=_shown(ctx.services, c.path),
        workflow=c.workflow,
    )


# --- delete (dangerous) ---------------------------------------------------------------
class DeleteCompetenceInput(StrictModel):
    name: str = Field(min_length=1, max_length=200, description=NAME_DESC)
    version: int | None = Field(None, ge=1, description="Delete only this version; the whole competence if omitted.")
    status: StatusArg | None = Field(None, description="Needed only when the name exists as candidate and validated.")


class DeleteCompetenceOutput(StrictModel):
    name: str = Field(description="Competence name.")
    status: StatusArg = Field(description="Folder it was removed from.")
    versions_deleted: list[int] = Field(description="Versions moved to the trash.")
    trash_path: str = Field(description="Trash folder holding the files (relative to the data folder).")
    current_version: int | None = Field(description="Version now current in that folder, if any is left.")


async def preview_delete(ctx: OpContext, args: DeleteCompetenceInput) -> Preview:
    s = ctx.services
    p = await anyio.to_thread.run_sync(_store(s).preview_delete, args.name, args.version, args.status)
    files = [_shown(s, f) for f in p.files]
    if args.version is None:
        what = f"all {len(p.versions)} version(s) {', '.join(f'v{n}' for n in p.versions)} of"
    else:
        what = f"version {args.version} of"
    then = f"; version {p.restores_version} becomes current again" if p.restores_version else ""
    if p.status == "validated" and args.version is None:
        then += f"; the tool {tool_name(p.slug)} disappears"
    summary = (
        f"Move {what} the {p.status} competence '{p.name}' ({p.steps} steps) to the trash "
        f"({len(files)} file(s): {', '.join(files)}){then}. Nothing is erased; an administrator can restore it."
    )
    details = {
        "competence": p.name,
        "slug": p.slug,
        "status": p.status,
        "versions": list(p.versions),
        "files": files,
        "steps": p.steps,
        "restores_version": p.restores_version,
        "changes_tools": p.status == "validated",
    }
    return Preview(summary=summary, details=details, diff=None, binding=p.binding)


async def delete_competence(ctx: OpContext, args: DeleteCompetenceInput) -> DeleteCompetenceOutput:
    s = ctx.services
    store = _store(s)
    preview = await anyio.to_thread.run_sync(store.preview_delete, args.name, args.version, args.status)
    done = await anyio.to_thread.run_sync(store.delete, args.name, args.version, args.status)
    s.notifier.resource_updated(f"rpa://competences/{preview.status}/{preview.slug}")
    s.notifier.tools_changed()
    return DeleteCompetenceOutput(
        name=preview.name,
        status=preview.status,
        versions_deleted=list(done.versions),
        trash_path=_shown(s, done.trash_path),
        current_version=preview.current_after,
    )


# --- promote (write) ------------------------------------------------------------------
class PromoteCompetenceInput(StrictModel):
    name: str = Field(min_length=1, max_length=200, description="Name of a candidate competence.")


class PromoteCompetenceOutput(StrictModel):
    name: str = Field(description="Competence name.")
    slug: str = Field(description="File name stem; it is now offered as the tool run_<slug>.")
    version: int = Field(description="Its version number in validated/.")
    path: str = Field(description="File, relative to the data folder.")
    replaced_version: int | None = Field(description="Validated version it replaced (kept as an archive).")


async def preview_promote(ctx: OpContext, args: PromoteCompetenceInput) -> Preview:
    s = ctx.services
    p = await anyio.to_thread.run_sync(_store(s).preview_promote, args.name)
    renumber = f" as version {p.new_version}" if p.new_version != p.version else ""
    replaces = (
        f"; it replaces validated version {p.replaces_version} (kept as {p.slug}.v{p.replaces_version}.yaml)"
        if p.replaces_version
        else ""
    )
    summary = (
        f"Promote candidate competence '{p.name}' version {p.version} ({p.steps} steps) to validated{renumber}"
        f"{replaces}. It will be offered as the tool {tool_name(p.slug)}."
    )
    details = {
        "competence": p.name,
        "slug": p.slug,
        "candidate_version": p.version,
        "validated_version": p.new_version,
        "replaces_version": p.replaces_version,
        "steps": p.steps,
        "from": _shown(s, p.source),
        "to": _shown(s, p.target),
    }
    return Preview(summary=summary, details=details, diff=p.diff, binding=p.binding)


async def promote_competence(ctx: OpContext, args: PromoteCompetenceInput) -> PromoteCompetenceOutput:
    s = ctx.services
    saved = await anyio.to_thread.run_sync(_store(s).promote, args.name)
    s.notifier.resource_updated(f"rpa://competences/candidate/{saved.slug}")
    s.notifier.resource_updated(f"rpa://competences/validated/{saved.slug}")
    s.notifier.tools_changed()
    return PromoteCompetenceOutput(
        name=saved.name,
        slug=saved.slug,
        version=saved.version,
        path=_shown(s, saved.path),
        replaced_version=saved.replaced_version,
    )


# --- resources ------------------------------------------------------------------------
async def competence_resource(services: Services, status: str, name: str) -> str:
    """The current version of one competence, as YAML."""
    if status not in ("candidate", "validated"):
        raise InvalidInput("status must be candidate or validated", field="status")
    folder: StatusArg = "validated" if status == "validated" else "candidate"
    slugify(name)
    c = await anyio.to_thread.run_sync(_store(services).get, name, None, folder)
    return yamlio.dump(c.workflow)


async def competences_resource(services: Services) -> str:
    """Every competence (summary) and every problem found in the folders, as YAML."""
    listing = await anyio.to_thread.run_sync(_store(services).list, None)
    return yamlio.dump(
        {
            "competences": [
                {
                    "name": c.name,
                    "slug": c.slug,
                    "status": c.status,
                    "version": c.version,
                    "steps": c.steps,
                    "uri": f"rpa://competences/{c.status}/{c.slug}",
                }
                for c in listing.competences
            ],
            "problems": [
                {"path": _shown(services, p.path), "status": p.status, "reason": p.reason} for p in listing.problems
            ],
        }
    )


# People read the competences (the workflows of every workstation, with the values of their
# demonstrations); a desktop agent has no use for them.
PEOPLE = frozenset({"operator", "viewer", "approver"})

RESOURCES = (
    Resource(
        "rpa://competences/{status}/{name}",
        "competence",
        "A competence's current version as YAML (status: candidate or validated; name: its slug).",
        "application/yaml",
        competence_resource,
        roles=PEOPLE,
    ),
    Resource(
        "rpa://competences",
        "competences",
        "Every competence (name, status, version, steps) and the files that could not be read.",
        "application/yaml",
        competences_resource,
        roles=PEOPLE,
    ),
)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        name="list_competences",
        title="List competences",
        description=(
            "List persisted competences (workflows) with their status, version and step count, and any file in "
            "the competence folders that could not be read (under problems)."
        ),
        input=ListCompetencesInput,
        output=ListCompetencesOutput,
        risk="read",
        handler=list_competences,
        idempotent=True,
        roles=PEOPLE,
    ),
    Operation(
        name="get_competence",
        title="Read a competence",
        description="Return one competence's workflow (its current version, or the version named).",
        input=GetCompetenceInput,
        output=GetCompetenceOutput,
        risk="read",
        handler=get_competence,
        idempotent=True,
        roles=PEOPLE,
    ),
    Operation(
        name="delete_competence",
        title="Delete a competence",
        description=(
            "Move a competence (or one of its versions) to the server's trash folder. Nothing is erased; "
            "deleting a validated competence removes its run_<slug> tool."
        ),
        input=DeleteCompetenceInput,
        output=DeleteCompetenceOutput,
        risk="dangerous",
        handler=delete_competence,
        preview=preview_delete,
    ),
    Operation(
        name="promote_competence",
        title="Promote a competence to validated",
        description=(
            "Move a candidate competence to validated, keeping any previous validated version. A validated "
            "competence is offered as its own tool run_<slug>."
        ),
        input=PromoteCompetenceInput,
        output=PromoteCompetenceOutput,
        risk="write",
        handler=promote_competence,
        preview=preview_promote,
    ),
    *READBACK_OPERATIONS,
)
