"""The action -> signals -> verdict matrix (catalog/validator_matrix.yaml), validated at load.

Aggregation is data: each action lists named signals (a checker + its params) and ordered
rules. The first rule whose conditions all hold decides; a condition on a signal whose
checker had nothing to judge (score None) never holds.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rpa_mcp.errors import InvalidInput
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import DiffSettings
from rpa_mcp.validation.model import FailureCategory, VerdictKind

MATRIX_FILE = "validator_matrix.yaml"
ACTION_TYPES: tuple[str, ...] = (
    "click_anchor",
    "double_click_anchor",
    "right_click_anchor",
    "type_text",
    "keyboard_shortcut",
    "switch_tab",
    "close_tab",
    "new_tab",
    "save",
    "dialog_button",
    "extract_text",
    "t2a_decision",
    "wait",
    "wait_for_element",
    "scroll",
    "paste_and_execute",
    "screenshot_evidence",
    "pause_for_human",
    "drag_drop_anchor",
    "open_application",
    "close_application",
    "focus_window",
    "navigate_url",
    "select_option",
    "toggle_checkbox",
    "upload_file",
    "key_press",
    "set_checked",
)
REQUIREMENTS = ("target.label", "target.bbox", "expected.window_title", "expected.text", "expected.json_schema",
                "expected.output")  # fmt: skip
TAB_ACTIONS = frozenset({"switch_tab", "close_tab", "new_tab"})
TITLE_ONLY_CHECKERS = frozenset({"TitleBarChecker"})
_CONDITION = re.compile(r"^\s*(>=|<=|>|<)\s*([01](?:\.\d+)?)\s*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Condition(_Strict):
    op: Literal[">=", "<=", ">", "<"]
    value: float

    @classmethod
    def parse(cls, text: str) -> Condition:
        match = _CONDITION.match(str(text))
        if not match:
            raise ValueError(f"condition {text!r} is not '<op> <number in 0..1>' (e.g. '>=0.85')")
        value = float(match.group(2))
        if value > 1.0:
            raise ValueError(f"condition {text!r}: threshold above 1")
        return cls(op=match.group(1), value=value)

    def holds(self, score: float | None) -> bool:
        if score is None:
            return False
        return {
            ">=": score >= self.value,
            "<=": score <= self.value,
            ">": score > self.value,
            "<": score < self.value,
        }[self.op]

    def __str__(self) -> str:
        return f"{self.op}{self.value:g}"


class SignalSpec(_Strict):
    checker: str = Field(description="Name of the checker that produces this signal.")
    params: dict[str, Any] = Field(default_factory=dict)
    cost: int | None = Field(None, ge=0, description="Evaluation order override (default: the checker's cost).")

    @field_validator("checker")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in ALL_CHECKERS:
            raise ValueError(f"unknown checker {value!r} (known: {', '.join(sorted(ALL_CHECKERS))})")
        return value


class Rule(_Strict):
    id: str
    when: dict[str, Condition]
    verdict: VerdictKind
    category: FailureCategory | None = None
    confidence: float = Field(0.8, ge=0.0, le=1.0)
    reason: str = ""

    @field_validator("when", mode="before")
    @classmethod
    def _parse_conditions(cls, value: Any) -> Any:
        if not isinstance(value, dict) or not value:
            raise ValueError("`when` must map at least one signal to a condition (no verdict without evidence)")
        return {k: (Condition.parse(str(v)) if isinstance(v, str | int | float) else v) for k, v in value.items()}

    @model_validator(mode="after")
    def _category(self) -> Rule:
        if self.verdict is VerdictKind.FAILURE and self.category is None:
            raise ValueError(f"rule {self.id!r}: a FAILURE rule needs a category")
        if self.verdict is not VerdictKind.FAILURE and self.category is not None:
            raise ValueError(f"rule {self.id!r}: only FAILURE rules carry a category")
        return self


class ActionSpec(_Strict):
    description: str
    primary: str
    secondary: str
    fallback: str
    verdicts: list[VerdictKind]
    failure_categories: list[FailureCategory] = Field(default_factory=list)
    target_latency_ms: int = Field(gt=0)
    cost: Literal["low", "medium", "high"]
    wait_after_ms: int = Field(ge=0)
    requires: list[str] = Field(default_factory=list)
    signals: dict[str, SignalSpec] = Field(default_factory=dict)
    rules: list[Rule] = Field(default_factory=list)

    @property
    def checkers(self) -> list[str]:
        return sorted({s.checker for s in self.signals.values()})

    @field_validator("requires")
    @classmethod
    def _known_requirements(cls, value: list[str]) -> list[str]:
        for item in value:
            if item not in REQUIREMENTS:
                raise ValueError(f"unknown requirement {item!r} (known: {', '.join(REQUIREMENTS)})")
        return value

    @model_validator(mode="after")
    def _coherent(self) -> ActionSpec:
        if VerdictKind.UNCERTAIN not in self.verdicts:
            raise ValueError("UNCERTAIN must be a possible verdict (the default when no rule decides)")
        seen: set[str] = set()
        for rule in self.rules:
            if rule.id in seen:
                raise ValueError(f"rule id {rule.id!r} appears twice")
            seen.add(rule.id)
            for name in rule.when:
                if name not in self.signals:
                    raise ValueError(f"rule {rule.id!r} uses undefined signal {name!r}")
            if rule.verdict not in self.verdicts:
                raise ValueError(f"rule {rule.id!r} gives {rule.verdict} which is not in verdicts")
            if rule.category is not None and rule.category not in self.failure_categories:
                raise ValueError(f"rule {rule.id!r}: category {rule.category} not in failure_categories")
            if rule.verdict is VerdictKind.SUCCESS:
                used = {self.signals[name].checker for name in rule.when}
                if used <= TITLE_ONLY_CHECKERS:
                    raise ValueError(f"rule {rule.id!r}: SUCCESS on the title bar alone (anti-pattern)")
        self._title_before_success()
        return self

    def _title_before_success(self) -> None:
        """The title's word that another application is in front comes before any SUCCESS.

        Whatever the pixels in the clicked box say (a button of the window that came in front can look
        like the target), a success against the front window's title is the one verdict never given.
        """
        for index, rule in enumerate(self.rules):
            titled = {self.signals[name].checker for name in rule.when} <= TITLE_ONLY_CHECKERS
            if rule.category is FailureCategory.WRONG_APPLICATION and titled:
                early = [r.id for r in self.rules[:index] if r.verdict is VerdictKind.SUCCESS]
                if early:
                    raise ValueError(
                        f"rule {early[0]!r} gives SUCCESS before rule {rule.id!r} reads the front window's title: "
                        f"put {rule.id!r} first (a success must not stand while another application is in front)"
                    )
                return


class CheckerSpec(_Strict):
    cost: int = Field(ge=0, description="Relative cost: conditions are evaluated cheapest first.")
    target_latency_ms: int = Field(gt=0)
    description: str = ""


class Defaults(_Strict):
    diff: DiffSettingsModel
    max_crops: int = Field(4, ge=0, le=10)
    crop_margin: int = Field(12, ge=0, le=200)


class DiffSettingsModel(_Strict):
    pixel_threshold: int = Field(24, ge=1, le=255)
    min_changed_pixels: int = Field(50, ge=1)
    min_blob_pixels: int = Field(20, ge=0)
    clock_zone_right: int = Field(240, ge=0)
    clock_zone_bottom: int = Field(64, ge=0)

    def settings(self) -> DiffSettings:
        return DiffSettings(**self.model_dump())


class ValidatorMatrix(_Strict):
    version: int
    defaults: Defaults
    checkers: dict[str, CheckerSpec]
    actions: dict[str, ActionSpec]

    @model_validator(mode="after")
    def _complete(self) -> ValidatorMatrix:
        missing = [a for a in ACTION_TYPES if a not in self.actions]
        if missing:
            raise ValueError(f"action types missing from the matrix: {', '.join(missing)}")
        unknown = [a for a in self.actions if a not in ACTION_TYPES]
        if unknown:
            raise ValueError(f"unknown action types: {', '.join(unknown)}")
        for name in self.checkers:
            if name not in ALL_CHECKERS:
                raise ValueError(f"checkers: unknown checker {name!r}")
        for action, spec in self.actions.items():
            for signal, sig in spec.signals.items():
                if sig.checker not in self.checkers:
                    raise ValueError(f"{action}.{signal}: checker {sig.checker} has no cost entry under `checkers`")
                region = sig.params.get("region")
                if sig.checker == "PhashChecker" and action in TAB_ACTIONS and region in (None, "full"):
                    raise ValueError(f"{action}.{signal}: a global pHash cannot judge a tab (anti-pattern)")
                if sig.checker == "DialogClosedChecker" and region == "full":
                    raise ValueError(f"{action}.{signal}: a dialog closing is judged in its region, not globally")
        return self

    def cost(self, checker: str) -> int:
        return self.checkers[checker].cost

    def signal_cost(self, signal: SignalSpec) -> int:
        return signal.cost if signal.cost is not None else self.cost(signal.checker)

    def action(self, action_type: str) -> ActionSpec:
        spec = self.actions.get(action_type)
        if spec is None:
            raise InvalidInput(
                f"action_type {action_type!r} is not one of: {', '.join(ACTION_TYPES)}", field="action_type"
            )
        return spec


Defaults.model_rebuild()


def load_validator_matrix(path: Path | str) -> ValidatorMatrix:
    """Read and validate the matrix; raises InvalidInput naming the file and the problem."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read the validator matrix ({exc})", field="validator_matrix") from exc
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{path}: not valid YAML ({exc})", field="validator_matrix") from exc
    try:
        return ValidatorMatrix.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:10]
        )
        raise InvalidInput(f"{path}: invalid validator matrix: {problems}", field="validator_matrix") from exc


def check_matrix(catalog_dir: Path | str) -> list[str]:
    """Problems found in `<catalog_dir>/validator_matrix.yaml` (empty list = fine); for `catalog check`."""
    try:
        load_validator_matrix(Path(catalog_dir) / MATRIX_FILE)
    except InvalidInput as exc:
        return [exc.message]
    return []
