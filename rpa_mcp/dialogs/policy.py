"""Policies and workflow declarations: what may answer a dialog without a person.

Rules, enforced here in code whatever the catalog file or a workflow says:
- category A, ids starting with `windows-`/`defender-`, and `unknown` are always `pause`;
- entries tagged deletion / identity / clinical are always `pause`;
- a declaration may change a policy only when the entry has `declarative_override: true`.
`DeclaredModal` itself refuses a non-pause declaration of a windows-/defender- id with
`InvalidInput` (field `policy`), before any catalog is consulted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rpa_mcp.dialogs.catalog import LOCKED_PREFIXES, UNKNOWN_ID, DialogCatalog, DialogEntry, Policy, is_locked_id
from rpa_mcp.errors import InvalidInput


class DeclaredModal(BaseModel):
    """A workflow's `expected_modals` item: this dialog may appear, answer it this way."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dialog_id: str = Field(min_length=1, max_length=80, description="A catalog id, e.g. easily-save-confirm.")
    policy: Policy = Field(description="auto (click `button`), pause, or skip.")
    button: str | None = Field(
        None, max_length=80, description="For auto: the button key or label (fr/en) to click; default auto_button."
    )

    @model_validator(mode="after")
    def _system_dialogs_cannot_be_overridden(self) -> DeclaredModal:
        # Raised as InvalidInput (not ValueError) on purpose: pydantic lets it through unchanged,
        # so every surface reports the stable code and the field.
        if (self.dialog_id.startswith(LOCKED_PREFIXES) or self.dialog_id == UNKNOWN_ID) and self.policy != "pause":
            raise InvalidInput(
                f"declared_modals: {self.dialog_id} is a system dialog; only a person may answer it, "
                f"so it can only be declared pause (got {self.policy})",
                field="policy",
                dialog_id=self.dialog_id,
            )
        if self.button is not None and self.policy != "auto":
            raise InvalidInput("declared_modals: button is only meaningful with policy auto", field="button")
        return self


@dataclass(frozen=True)
class EffectivePolicy:
    policy: Policy
    button_key: str | None  # the button to click when policy is auto
    source: str  # catalog | declaration | locked


def is_locked(entry: DialogEntry) -> bool:
    """Only a person may answer it (entry.locked, re-derived so a catalog edit cannot relax it)."""
    return entry.locked or is_locked_id(entry.id) or entry.category in ("A", "E")


def check_declarations(catalog: DialogCatalog, declared: Sequence[DeclaredModal]) -> dict[str, DeclaredModal]:
    """Validate declarations against the catalog; raises InvalidInput naming the item and field."""
    out: dict[str, DeclaredModal] = {}
    for i, decl in enumerate(declared):
        where = f"declared_modals[{i}]"
        entry = catalog.get(decl.dialog_id)
        if entry is None:
            raise InvalidInput(
                f"{where}.dialog_id: {decl.dialog_id!r} is not in the dialog catalog", field=f"{where}.dialog_id"
            )
        if decl.dialog_id in out:
            raise InvalidInput(f"{where}.dialog_id: {decl.dialog_id} is declared twice", field=f"{where}.dialog_id")
        if decl.policy != "pause" and is_locked(entry):
            raise InvalidInput(
                f"{where}.policy: {entry.id} (category {entry.category}) can only be answered by a person; "
                f"it cannot be declared {decl.policy}",
                field=f"{where}.policy",
            )
        if decl.policy != entry.policy and decl.policy != "pause" and not entry.declarative_override:
            raise InvalidInput(
                f"{where}.policy: {entry.id} is not overridable by a workflow (catalog policy {entry.policy})",
                field=f"{where}.policy",
            )
        if decl.policy == "auto":
            key = decl.button or entry.auto_button
            if key is None:
                raise InvalidInput(
                    f"{where}.button: {entry.id} has no default button; name the one to click", field=f"{where}.button"
                )
            if entry.button_for_label(key) is None:
                labels = ", ".join(f"{b.key} ({b.en}/{b.fr})" for b in entry.buttons) or "none"
                raise InvalidInput(
                    f"{where}.button: {key!r} is not a button of {entry.id}: {labels}", field=f"{where}.button"
                )
        out[decl.dialog_id] = decl
    return out


def effective_policy(entry: DialogEntry, declared: dict[str, DeclaredModal] | None = None) -> EffectivePolicy:
    """The policy that applies to this entry given (already checked) declarations."""
    if is_locked(entry):
        return EffectivePolicy("pause", None, "locked")
    decl = (declared or {}).get(entry.id)
    # Making a dialog stricter (pause) is always allowed; anything else needs declarative_override.
    if decl is not None and (decl.policy == "pause" or entry.declarative_override):
        if decl.policy != "auto":
            return EffectivePolicy(decl.policy, None, "declaration")
        spec = entry.button_for_label(decl.button or entry.auto_button or "")
        if spec is None:
            return EffectivePolicy("pause", None, "declaration")
        return EffectivePolicy("auto", spec.key, "declaration")
    if entry.policy == "auto":
        return EffectivePolicy("auto", entry.auto_button, "catalog")
    return EffectivePolicy(entry.policy, None, "catalog")
