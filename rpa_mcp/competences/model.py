"""The workflow IR as persisted: validated on every save and on every read.

Strict on purpose (`extra="forbid"`): a competence replays clicks on a hospital desktop,
so a file with a misspelt or unknown field is reported, not half-understood.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rpa_mcp.validation.model import OutcomeKind

MAX_STEPS = 1000
FIELD_PATH = re.compile(r"[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CompetenceSource(_Strict):
    session_id: str | None = Field(None, description="Shadow session the workflow was built from.")
    machine_id: str | None = Field(None, description="Machine the workflow was observed on.")


class StepExpected(_Strict):
    window_title: str | None = Field(None, max_length=1000, description="Window title once the step is done.")
    text: str | None = Field(None, max_length=500, description="Text that appears (a toast such as 'Enregistré').")


class StepOutcome(_Strict):
    kind: OutcomeKind = Field(
        "message",
        description="message (banner, toast), heading (a new page), dialog (a form opened by design), "
        "window_title, field_value or row.",
    )
    text: str = Field(min_length=1, max_length=500, description="What shows it; parameters as {{name}}.")
    source: Literal["demonstration", "person"] = Field(
        "demonstration", description="Seen after the person's action, or set by feedback."
    )


class CompetenceParameter(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$", description="Used in steps as {{name}}.")
    type: Literal["string", "number", "date"] = Field("string", description="What kind of value it takes.")
    example: str | int | float | None = Field(None, description="The value of the demonstration.")
    description: str = Field("", max_length=300, description="What it is, in the person's words.")
    required: bool = Field(True, description="A replay without it is refused.")


class CompetenceStep(_Strict):
    index: int = Field(ge=0, description="Position of the step in the workflow.")
    intent: str = Field(min_length=1, max_length=2000, description="What the step is for, in words.")
    action_type: str = Field(min_length=1, max_length=64, description="click, type, key, ...")
    target: dict[str, Any] | str | None = Field(None, description="What the action applies to (label, bbox, ...).")
    params: dict[str, Any] = Field(default_factory=dict, description="Action parameters.")
    expected_window_before: str | None = Field(None, description="Window title expected before the action.")
    expected_window_after: str | None = Field(None, description="Window title expected after the action.")
    success_strict: bool = Field(False, description="Whether an unverified outcome stops the replay.")
    wait_after_ms: int = Field(0, ge=0, le=600_000, description="Pause after the action.")
    expected_modals: list[str | dict[str, Any]] = Field(
        default_factory=list, description="Dialogs that may appear after this step (catalog ids)."
    )
    expected: StepExpected = Field(
        default_factory=lambda: StepExpected.model_validate({}),
        description="Evidence seen after the step when it was observed, checked when it is replayed.",
    )
    step_class: Literal["navigation", "input", "irreversible"] | None = Field(
        None, description="navigation, input or irreversible (save, validate, sign, send, delete, dispense)."
    )
    uncheckable: bool = Field(
        False, description="A person declared that this step's outcome cannot be checked on screen (shown at approval)."
    )
    expected_outcome: StepOutcome | None = Field(
        None, description="The step's post-condition: a replayed step succeeds only when it is seen again."
    )
    identity: str | None = Field(
        None,
        max_length=500,
        description="A record-selecting step: the identity text the person saw (name, identifier, birth date; "
        "parameters as {{name}}), compared with the target's text before the click.",
    )
    identity_partial: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="Words of the demonstrated record no parameter stands for (a first name after a surname "
        "typed as a parameter): a run checks the record by part of who it is, so it pauses before this click "
        "for a person unless identity_confirmed.",
    )
    identity_confirmed: bool = Field(
        False, description="A person validated this record step: any record read with the run's values is right."
    )

    @model_validator(mode="after")
    def _control_value(self) -> CompetenceStep:
        """select_option chooses a text (params.option); set_checked wants true, false or a {{parameter}}."""
        option, checked = self.params.get("option"), self.params.get("checked")
        if self.action_type == "select_option" and option is not None and not isinstance(option, str):
            raise ValueError("select_option: params.option is the option's text (a string, or {{parameter}})")
        if self.action_type == "set_checked" and not isinstance(checked, bool | str):
            raise ValueError("set_checked: params.checked is the wanted state: true, false or {{parameter}}")
        return self


class ReadBack(_Strict):
    """How the record a run changed is read back (HTTP GET, JSON answer) to turn `completed` into `verified`."""

    url: str = Field(
        min_length=8,
        max_length=2000,
        pattern=r"^https?://",
        description="Absolute URL under a base of RPA_READBACK_URLS; parameters as {{name}} (percent-encoded), "
        "e.g. https://fhir.example/fhir/Patient?identifier={{patient_id}}.",
    )
    fields: dict[str, str] = Field(
        min_length=1,
        max_length=20,
        description="Dotted path into the JSON answer (a number indexes a list: entry.0.resource.id) -> the "
        "expected text, parameters as {{name}}.",
    )

    @field_validator("url", "fields")
    @classmethod
    def _no_secret(cls, value: Any) -> Any:
        if "{{secret:" in str(value).replace(" ", ""):
            raise ValueError("a read-back never uses a secret parameter")
        return value

    @field_validator("fields")
    @classmethod
    def _paths(cls, value: dict[str, str]) -> dict[str, str]:
        for path, expected in value.items():
            if not FIELD_PATH.fullmatch(path) or len(path) > 200:
                raise ValueError(f"{path!r} is not a dotted path into the answer (e.g. entry.0.resource.id; 200 chars)")
            if not 0 < len(expected) <= 500:
                raise ValueError(f"the expected value of {path!r} must have 1 to 500 characters")
        return value


class Competence(_Strict):
    name: str = Field(min_length=1, max_length=200, description="Human-readable name (its slug names the file).")
    domain: str = Field("generic", min_length=1, max_length=100, description="Business domain.")
    version: int = Field(ge=1, description="Version number, assigned by the store on save.")
    source: CompetenceSource = Field(
        default_factory=lambda: CompetenceSource.model_validate({}), description="Where it was observed."
    )
    created_at: str | None = Field(None, description="When the workflow was built (ISO 8601).")
    parameters: list[CompetenceParameter] = Field(
        default_factory=list, max_length=50, description="Values a replay gives (the steps use them as {{name}})."
    )
    steps: list[CompetenceStep] = Field(min_length=1, max_length=MAX_STEPS, description="The steps, in order.")
    readback: ReadBack | None = Field(
        None, description="Optional: the record read back after a completed run (completed -> verified)."
    )

    @field_validator("created_at", mode="before")
    @classmethod
    def _iso(cls, value: Any) -> Any:
        # Epoch seconds and YAML timestamps are accepted and kept as ISO 8601 text.
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            return dt.datetime.fromtimestamp(value, dt.UTC).isoformat()
        if isinstance(value, dt.datetime | dt.date):
            return value.isoformat()
        return value

    @model_validator(mode="after")
    def _ordered_steps(self) -> Competence:
        indexes = [s.index for s in self.steps]
        if indexes != sorted(set(indexes)):
            raise ValueError(f"step indexes must be unique and increasing, got {indexes}")
        names = [p.name for p in self.parameters]
        if len(names) != len(set(names)):
            raise ValueError(f"parameter names must be unique, got {names}")
        return self

    def document(self) -> dict[str, Any]:
        """The dict written to YAML (unset optional fields included, so files read the same; no read-back
        block when none is declared)."""
        document = self.model_dump(mode="json")
        if document.get("readback") is None:
            document.pop("readback", None)
        return document
