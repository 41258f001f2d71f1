"""The dialog catalog (catalog/dialogs.yaml): model, loader and checks.

Every entry is validated at load; a problem names the entry id and the field. The safety
rules (category A and windows-/defender- ids always `pause` and never overridable; deletion,
identity and clinical entries too) are checked here on the data AND enforced again in code
by `policy.py`, so a bad edit of the YAML cannot unlock anything.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rpa_mcp.errors import InternalError
from rpa_mcp.vision.ocr import normalize_text

Category = Literal["A", "B", "C", "D", "E"]
Policy = Literal["auto", "pause", "skip"]

LOCKED_PREFIXES = ("windows-", "defender-")
LOCKED_TAGS = frozenset({"deletion", "identity", "clinical"})
UNKNOWN_ID = "unknown"
# Ids that may be `skip` (a notice without buttons that blocks nothing). A dialog with buttons is never
# skipped: leaving it open would let a replay type into it.
SKIP_IDS = frozenset({"easily-toast-saved"})
# Ids that must be present and `pause`: the generic kinds every desktop shows, whatever the application.
GENERIC_IDS = (
    "app-save-changes",
    "app-confirm-delete",
    "app-error",
    "app-credential-prompt",
    "app-file-overwrite",
    "file-save-as",
    "file-open",
    "browser-perm-microphone",
    "browser-perm-camera",
    "browser-perm-location",
    "browser-perm-notifications",
    "browser-leave-site",
    "browser-js-alert",
)
REQUIRED_IDS = (
    "windows-uac",
    "windows-hello",
    "windows-smartscreen",
    "windows-credential-prompt",
    "defender-threat-found",
    "windows-confirm-delete",
    "windows-file-in-use",
    "browser-perm-microphone",
    "browser-perm-camera",
    "browser-perm-location",
    "browser-perm-notifications",
    "browser-leave-site",
    "browser-translate-prompt",
    "chrome-update",
    "edge-update",
    "notepad-save-changes",
    "office-save-changes",
    "outlook-reminder",
    "easily-save-confirm",
    "easily-toast-saved",
    "easily-required-field",
    "easily-clinical-warning",
    "easily-session-expired",
    "easily-delete-confirm",
    "app-confirm-delete",
    "app-error",
    "file-save-as",
    *GENERIC_IDS,
    UNKNOWN_ID,
)
# Policies that are not a matter of configuration (`settled_reason` says why, see also
# docs/concepts/dialogs.md): (policy, declarative_override or None when free).
SETTLED: dict[str, tuple[Policy, bool | None]] = {
    "easily-required-field": ("pause", None),
    "easily-clinical-warning": ("pause", False),
    "easily-save-confirm": ("auto", None),
    "browser-leave-site": ("pause", True),
    "notepad-save-changes": ("pause", True),
    "office-save-changes": ("pause", True),
    "file-save-as": ("pause", True),
    "browser-perm-microphone": ("pause", True),
    "browser-perm-camera": ("pause", True),
    "browser-perm-location": ("pause", True),
    "browser-perm-notifications": ("pause", True),
}


def settled_reason(dialog_id: str) -> str:
    """Why a dialog's policy is not a matter of configuration, in words for the catalog's editor."""
    if dialog_id == "easily-clinical-warning":
        return "a clinical warning always waits for a person, and no workflow may answer it"
    if dialog_id == "easily-required-field":
        return "a required field left empty needs a person to fill it"
    if dialog_id == "easily-save-confirm":
        return "confirming a save the workflow asked for is part of the step"
    if dialog_id == "file-save-as":
        return "where a file is saved is chosen by a person, unless the workflow declares its answer"
    if dialog_id.startswith("browser-perm-"):
        return "a permission is granted by a person, unless the workflow declares its answer"
    return "unsaved data is never discarded without a person, unless the workflow declares its answer"


_ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_FIELD_FIRST = re.compile(r"^([a-z_]+): (.*)$", re.S)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Titles(_Strict):
    en: tuple[str, ...] = Field(description="Exact English titles.")
    fr: tuple[str, ...] = Field(description="Exact French titles.")

    def all(self) -> tuple[str, ...]:
        return self.en + self.fr


class ButtonSpec(_Strict):
    key: str = Field(description="Stable key of the button (used by auto_button and declarations).")
    en: str = Field(min_length=1, description="English label.")
    fr: str = Field(min_length=1, description="French label.")
    also: tuple[str, ...] = Field((), description="Other labels of the same button (other versions of the software).")
    optional: bool = Field(
        False, description="Shown by some versions only: its absence does not count against a match."
    )

    @field_validator("key")
    @classmethod
    def _key_shape(cls, value: str) -> str:
        if not _KEY_RE.match(value):
            raise ValueError(f"{value!r} is not a lower_snake_case key")
        return value

    def labels(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.en, self.fr, *self.also)))


class MatchHints(_Strict):
    title_regex: str | None = Field(None, description="Searched in the normalized title (case-insensitive).")
    body_keywords: tuple[str, ...] = Field((), description="Any of them in the dialog text (normalized).")
    processes: tuple[str, ...] = Field((), description="Executable names reported by the agent.")

    @field_validator("title_regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"does not compile: {exc}") from exc
        return value


def _compiling(patterns: tuple[str, ...]) -> tuple[str, ...]:
    """`patterns` unchanged when every one compiles; a validation error naming the first that does not."""
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{pattern!r} does not compile: {exc}") from exc
    return patterns


class AppSignature(_Strict):
    """Words only this application draws, read in one region of the frame (its header, its brand)."""

    region: tuple[float, float, float, float] = Field(
        (0.0, 0.0, 1.0, 0.25), description="x, y, w, h as fractions of the frame where the words are drawn."
    )
    patterns: tuple[str, ...] = Field(
        min_length=1, description="Regexes searched in the normalized text read in the region; any one confirms."
    )

    @field_validator("patterns")
    @classmethod
    def _compile(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _compiling(value)

    @field_validator("region")
    @classmethod
    def _inside(cls, value: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        x, y, w, h = value
        if min(value) < 0 or w <= 0 or h <= 0 or x + w > 1 or y + h > 1:
            raise ValueError("must be x, y, w, h fractions of the frame (0..1, w and h > 0)")
        return value


class AppSpec(_Strict):
    """An application whose own dialogs may be answered or ignored without a person."""

    name: str = Field(min_length=1, description="What a person calls it.")
    processes: tuple[str, ...] = Field(min_length=1, description="Executable names that show its windows.")
    window_titles: tuple[str, ...] = Field(
        min_length=1, description="Regexes searched in the normalized title of its windows (case-insensitive)."
    )
    signature: AppSignature | None = Field(
        None, description="Words only it draws; without one, only the agent-reported window confirms it."
    )

    @field_validator("window_titles")
    @classmethod
    def _compile(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _compiling(value)


class DialogEntry(_Strict):
    id: str
    category: Category
    app_source: str = Field(min_length=1)
    titles: Titles
    buttons: tuple[ButtonSpec, ...] = ()
    policy: Policy
    auto_button: str | None = None
    declarative_override: bool
    tags: tuple[str, ...] = ()
    match: MatchHints = MatchHints()
    app: str | None = Field(
        None, description="Key of `apps`: the one application that shows it; it matches only there (auto/skip)."
    )
    generic: str | None = Field(
        None, description="The generic kind the same words give when its application is not confirmed."
    )

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not _ID_RE.match(value):
            raise ValueError(f"{value!r} is not a kebab-case id")
        return value

    @model_validator(mode="after")
    def _rules(self) -> DialogEntry:
        keys = [b.key for b in self.buttons]
        if len(set(keys)) != len(keys):
            raise ValueError("buttons: duplicate key")
        if self.id != UNKNOWN_ID and (not self.titles.en or not self.titles.fr):
            raise ValueError("titles: both en and fr titles are required")
        if self.policy == "auto":
            if self.auto_button is None:
                raise ValueError("auto_button: required when policy is auto")
            if self.auto_button not in keys:
                raise ValueError(f"auto_button: {self.auto_button!r} is not a key of buttons ({', '.join(keys)})")
        elif self.auto_button is not None:
            raise ValueError("auto_button: only allowed when policy is auto")
        if self.locked and (self.policy != "pause" or self.declarative_override):
            raise ValueError("policy: system, deletion, identity and clinical dialogs must be pause, not overridable")
        if self.id.startswith(LOCKED_PREFIXES) and self.category != "A":
            raise ValueError("category: windows-* and defender-* ids belong to category A")
        if (self.category == "E") != (self.id == UNKNOWN_ID):
            raise ValueError("category: E is reserved for the single `unknown` entry")
        if self.id == UNKNOWN_ID and self.policy != "pause":
            raise ValueError("policy: unknown must be pause")
        if self.policy == "skip" and self.buttons:
            raise ValueError("buttons: a skip entry has none (a dialog with buttons left open would take the input)")
        return self

    @property
    def locked(self) -> bool:
        """Never anything but `pause`, whatever a workflow declares."""
        return is_locked_id(self.id) or self.category in ("A", "E") or bool(LOCKED_TAGS & set(self.tags))

    def button(self, key: str) -> ButtonSpec | None:
        return next((b for b in self.buttons if b.key == key), None)

    def button_for_label(self, label: str) -> ButtonSpec | None:
        """A button by key or by its label in either language (normalized)."""
        wanted = normalize_text(label)
        for spec in self.buttons:
            if spec.key == label or wanted in (normalize_text(spec.en), normalize_text(spec.fr)):
                return spec
        return None


def is_locked_id(dialog_id: str) -> bool:
    return dialog_id.startswith(LOCKED_PREFIXES) or dialog_id == UNKNOWN_ID


class DialogCatalog(_Strict):
    version: int = Field(ge=1)
    system_processes: tuple[str, ...] = Field(
        (),
        description="Executables that host nothing but the system dialogs naming them (consent.exe, ...): "
        "reported as the dialog's process they decide the entry. Any other process only narrows candidates.",
    )
    apps: dict[str, AppSpec] = Field(
        default_factory=dict, description="The applications whose own dialogs may be auto or skip, by key."
    )
    dialogs: tuple[DialogEntry, ...]

    @model_validator(mode="after")
    def _whole(self) -> DialogCatalog:
        ids = [d.id for d in self.dialogs]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"dialogs: duplicate ids {', '.join(duplicates)}")
        missing = [i for i in REQUIRED_IDS if i not in ids]
        if missing:
            raise ValueError(f"dialogs: required ids missing: {', '.join(missing)}")
        for process in self.system_processes:
            hosts = [d for d in self.dialogs if process.casefold() in {p.casefold() for p in d.match.processes}]
            if not hosts:
                raise ValueError(f"system_processes: {process} is named by no entry's match.processes")
            unlocked = [d.id for d in hosts if not d.locked]
            if unlocked:
                raise ValueError(
                    f"system_processes: {process} also hosts {', '.join(unlocked)}; only a process hosting "
                    "nothing but system dialogs may decide an entry by its name"
                )
        by_id = {d.id: d for d in self.dialogs}
        generic = [i for i in GENERIC_IDS if by_id[i].policy != "pause" or by_id[i].app is not None]
        if generic:
            raise ValueError(f"dialogs: generic kinds are pause and bound to no application: {', '.join(generic)}")
        for entry in self.dialogs:
            self._check_binding(entry)
            if entry.policy == "skip" and entry.id not in SKIP_IDS:
                raise ValueError(f"dialogs[{entry.id}].policy: skip is reserved for {', '.join(sorted(SKIP_IDS))}")
            settled = SETTLED.get(entry.id)
            if settled and (entry.policy != settled[0] or settled[1] not in (None, entry.declarative_override)):
                raise ValueError(
                    f"dialogs[{entry.id}].policy: must be {settled[0]}"
                    + ("" if settled[1] is None else f" with declarative_override={str(settled[1]).lower()}")
                    + f" ({settled_reason(entry.id)})"
                )
        return self

    def _check_binding(self, entry: DialogEntry) -> None:
        """An entry answered or ignored without a person belongs to one declared application."""
        if entry.app is None and entry.policy in ("auto", "skip"):
            raise ValueError(
                f"dialogs[{entry.id}].app: required when policy is {entry.policy}; name the application "
                "declared under `apps:` that shows this dialog (it matches only when that application is confirmed)"
            )
        if entry.app is not None and entry.app not in self.apps:
            known = ", ".join(sorted(self.apps)) or "none declared"
            raise ValueError(f"dialogs[{entry.id}].app: {entry.app!r} is not declared under apps: ({known})")
        if entry.generic is not None and entry.generic not in GENERIC_IDS:
            raise ValueError(f"dialogs[{entry.id}].generic: {entry.generic!r} is not a generic kind")

    @cached_property
    def by_id(self) -> dict[str, DialogEntry]:
        return {d.id: d for d in self.dialogs}

    def get(self, dialog_id: str) -> DialogEntry | None:
        return self.by_id.get(dialog_id)

    @property
    def unknown(self) -> DialogEntry:
        return self.by_id[UNKNOWN_ID]


def _format_error(data: object, exc: ValidationError) -> str:
    problems = []
    entries = data.get("dialogs") if isinstance(data, dict) else None
    for err in exc.errors():
        loc = list(err["loc"])
        where = ".".join(str(p) for p in loc)
        if len(loc) >= 2 and loc[0] == "dialogs" and isinstance(loc[1], int) and isinstance(entries, list):
            raw = entries[loc[1]] if loc[1] < len(entries) else None
            entry_id = raw.get("id", f"#{loc[1]}") if isinstance(raw, dict) else f"#{loc[1]}"
            field = ".".join(str(p) for p in loc[2:]) or "(entry)"
            where = f"dialogs[{entry_id}].{field}"
        message = err["msg"].removeprefix("Value error, ")
        named = _FIELD_FIRST.match(message)
        if where.endswith(".(entry)") and named:  # a rule on the whole entry names its field first
            where, message = where.removesuffix("(entry)") + named.group(1), named.group(2)
        problems.append(f"{where}: {message}" if where else message)
    return "; ".join(problems)


def parse_dialog_catalog(data: object, *, source: str = "dialogs.yaml") -> DialogCatalog:
    try:
        return DialogCatalog.model_validate(data)
    except ValidationError as exc:
        raise InternalError(f"{source}: {_format_error(data, exc)}", source=source) from exc


def load_dialog_catalog(path: Path) -> DialogCatalog:
    """Load and validate catalog/dialogs.yaml; raises `InternalError` naming entry id and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InternalError(f"{path.name}: cannot be read ({exc.strerror})", source=str(path)) from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InternalError(f"{path.name}: not valid YAML ({exc})", source=str(path)) from exc
    return parse_dialog_catalog(data, source=path.name)


def check_catalog(catalog_dir: Path) -> list[str]:
    """Problems of catalog_dir/dialogs.yaml for `rpa-mcp catalog check` (empty list = fine)."""
    try:
        catalog = load_dialog_catalog(catalog_dir / "dialogs.yaml")
    except InternalError as exc:
        return [exc.message]
    problems = []
    n = len(catalog.dialogs)
    if not 40 <= n <= 120:
        problems.append(f"dialogs.yaml: {n} entries; the catalog is expected to hold about 60")
    return problems
