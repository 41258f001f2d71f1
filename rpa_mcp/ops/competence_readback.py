"""Declaring a competence's read-back: which record a completed run is read back from, and what must match.

`set_readback` (write: proposed, approved, audited) saves a new version of the competence, in its own
folder, with `readback: {url, fields}` set (or removed with `readback: null`). What the approver sees:
the URL with its placeholders, the allowed base it falls under (RPA_READBACK_URLS), each field and the
value it must hold. Refused before anything is saved: a URL outside the allow-list (naming the setting),
a placeholder that is not a parameter of the competence, a field path that is not a dotted path. A run's
outcome becomes `verified` only through a read-back declared this way (or written in the competence
file, which is checked the same way when it is saved).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import anyio.to_thread
from pydantic import Field

from rpa_mcp.competences.model import ReadBack
from rpa_mcp.competences.records import LoadedCompetence
from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops.registry import OpContext, Operation, Preview, StrictModel
from rpa_mcp.replay.readback import PLACEHOLDER, SETTING, check_template


class SetReadbackInput(StrictModel):
    name: str = Field(min_length=1, max_length=200, description="Competence name (or its slug).")
    version: int | None = Field(None, ge=1, description="Version to start from; default the current one.")
    readback: ReadBack | None = Field(
        description="The read-back: url (an absolute URL under a base of RPA_READBACK_URLS, the run's parameters "
        "as {{name}}, e.g. https://fhir.example/fhir/Patient?identifier={{patient_id}}) and fields (dotted path "
        "into the JSON answer -> the text it must hold, e.g. {'entry.0.resource.id': '{{patient_id}}'}); null "
        "removes it."
    )


class SetReadbackOutput(StrictModel):
    name: str = Field(description="Competence name.")
    status: str = Field(description="candidate or validated: the folder the new version was saved in.")
    version: int = Field(description="The new version, which carries the read-back.")
    replaced_version: int | None = Field(None, description="The version it replaced as current (kept).")
    readback: dict[str, Any] | None = Field(None, description="The read-back now declared (null: none).")
    next_step: str = Field(description="What to do next.")


def _load(ctx: OpContext, args: SetReadbackInput) -> LoadedCompetence:
    return ctx.services.competences.get(args.name, version=args.version)


def _checked(loaded: LoadedCompetence, readback: ReadBack | None, allowed: tuple[str, ...]) -> dict[str, Any] | None:
    """The read-back as it will be saved, or InvalidInput / ReadbackNotAllowed naming the field."""
    if readback is None:
        return None
    check_template(readback.url, allowed, field="readback.url")
    declared = [str(p.get("name")) for p in loaded.workflow.get("parameters") or []]
    if declared:  # a placeholder the run will not give can never be filled
        places = [("readback.url", readback.url), *((f"readback.fields.{k}", v) for k, v in readback.fields.items())]
        for where, text in places:
            for name in PLACEHOLDER.findall(text):
                if name not in declared:
                    raise InvalidInput(
                        f"{where} uses {{{{{name}}}}}, which is not a parameter of {loaded.name!r}: it takes "
                        f"{', '.join(declared)}",
                        field=where,
                    )
    return readback.model_dump()


def _base(url: str, allowed: tuple[str, ...]) -> str | None:
    """The allowed base the URL falls under (shown to the approver)."""
    return next((b for b in allowed if url.lower().startswith(b.rstrip("/").lower())), None)


async def _preview(ctx: OpContext, args: SetReadbackInput) -> Preview:
    loaded = await anyio.to_thread.run_sync(_load, ctx, args)
    allowed = tuple(ctx.services.settings.readback_urls)
    wanted = _checked(loaded, args.readback, allowed)
    before = loaded.workflow.get("readback")
    if wanted is None:
        summary = f"Remove the read-back of competence '{loaded.name}' version {loaded.version}: its runs end " + (
            "completed at best, never verified." if before else "it declares none (a new version is saved anyway)."
        )
    else:
        checks = "; ".join(f"{path} = {value!r}" for path, value in wanted["fields"].items())
        summary = (
            f"Declare the read-back of competence '{loaded.name}' version {loaded.version} ({loaded.status}): "
            f"after a completed run, GET {wanted['url']} (under {_base(wanted['url'], allowed)}, allowed by "
            f"{SETTING}) and compare {checks}. A run whose fields all match ends verified; a mismatch, an error or "
            "a timeout leave it completed with the read-back's error."
        )
    return Preview(
        summary=summary + f" Saved as a new {loaded.status} version.",
        details={
            "competence": loaded.name,
            "status": loaded.status,
            "from_version": loaded.version,
            "readback": wanted,
            "replaces": before,
            "allowed_base": _base(wanted["url"], allowed) if wanted else None,
        },
        binding={
            "competence": loaded.slug,
            "version": loaded.version,
            "sha256": loaded.sha256,
            "readback": hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest(),
        },
    )


async def set_readback(ctx: OpContext, args: SetReadbackInput) -> SetReadbackOutput:
    services = ctx.services
    loaded = await anyio.to_thread.run_sync(_load, ctx, args)
    wanted = _checked(loaded, args.readback, tuple(services.settings.readback_urls))
    ir = {k: v for k, v in loaded.workflow.items() if k != "readback"}
    if wanted is not None:
        ir["readback"] = wanted
    saved = await anyio.to_thread.run_sync(
        lambda: services.competences.save(loaded.name, ir, status=loaded.status, machine_id=loaded.machine_id)
    )
    services.notifier.resource_updated(f"rpa://competences/{saved.status}/{saved.slug}")
    return SetReadbackOutput(
        name=saved.name,
        status=saved.status,
        version=saved.version,
        replaced_version=saved.replaced_version,
        readback=wanted,
        next_step=(
            f"Runs of version {saved.version} are read back once completed: get_replay_status shows readback and "
            "the outcome verified when every field matches."
            if wanted
            else f"Runs of version {saved.version} are not read back."
        ),
    )


READBACK_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        name="set_readback",
        title="Declare a competence's read-back",
        description="Declare (or remove) how the record a competence changes is read back after a completed run: an "
        "HTTP GET under an allowed base (RPA_READBACK_URLS) whose JSON fields must equal the run's values. Only "
        "then can a run end verified. Saves a new version; the approver sees the URL and every field.",
        input=SetReadbackInput,
        output=SetReadbackOutput,
        risk="write",
        handler=set_readback,
        preview=_preview,
    ),
)
