"""What the validator is given and what it answers: plain, typed data (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from rpa_mcp.vision.images import BBox

Frame = Literal["before", "after"]
BoxSource = Literal["given", "located", "guessed"]
# which verdicts carry evidence crops: every one, all but a SUCCESS (a replay shows none for it), none
CropPolicy = Literal["always", "unless_success", "never"]
# what a step's post-condition is: a banner/toast, a new page's heading, a dialog or form opened by
# design, a changed window title, a field's new value, a row that appeared
OutcomeKind = Literal["message", "heading", "dialog", "window_title", "field_value", "row"]
OUTCOME_KINDS: tuple[str, ...] = ("message", "heading", "dialog", "window_title", "field_value", "row")


class VerdictKind(StrEnum):
    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    UNCERTAIN = "UNCERTAIN"


class FailureCategory(StrEnum):
    WRONG_APPLICATION = "WRONG_APPLICATION"
    WRONG_TARGET = "WRONG_TARGET"
    NO_VISUAL_CHANGE = "NO_VISUAL_CHANGE"
    UNEXPECTED_DIALOG = "UNEXPECTED_DIALOG"
    DIALOG_STILL_OPEN = "DIALOG_STILL_OPEN"
    TARGET_NOT_FOUND = "TARGET_NOT_FOUND"
    TEXT_MISMATCH = "TEXT_MISMATCH"
    SCHEMA_INVALID = "SCHEMA_INVALID"
    TIMEOUT = "TIMEOUT"
    # a message, banner or box the demonstration did not show (an error, a confirmation), or the
    # outcome it showed missing after the action
    UNEXPECTED_OUTCOME = "UNEXPECTED_OUTCOME"
    # the record's identity text read before a selection differs from the one demonstrated
    IDENTITY_MISMATCH = "IDENTITY_MISMATCH"
    # more than one row reads that identity (homonyms, the run's values shared by two rows): never clicked
    IDENTITY_AMBIGUOUS = "IDENTITY_AMBIGUOUS"
    # the target is covered by another window (reported by the agent): never clicked
    WINDOW_OCCLUDED = "WINDOW_OCCLUDED"


@dataclass(frozen=True)
class Target:
    """What the action aimed at: a label (tab, button, field) and/or its box in the BEFORE frame.

    `point` is the click point (BEFORE-frame pixels). Workflows recorded by the shadow area often
    carry a label and a point but no box: the validator then locates the label by OCR in a band
    around the point (`bbox_source="located"`) and only falls back to a box guessed around the
    point (`bbox_source="guessed"`, lower confidence). A caller that guessed a box itself says so
    with `bbox_source="guessed"`: the box is then treated as a point, never as evidence.
    `label_bbox` is the tight box of the label when it was located by OCR.
    """

    label: str | None = None
    bbox: BBox | None = None
    point: tuple[int, int] | None = None
    bbox_source: BoxSource = "given"
    label_bbox: BBox | None = None

    @property
    def needs_locating(self) -> bool:
        """A label to find and no trustworthy box: locate it around the click point."""
        has_point = self.point is not None or (self.bbox is not None and self.bbox_source == "guessed")
        return bool(self.label) and has_point and (self.bbox is None or self.bbox_source == "guessed")


@dataclass(frozen=True)
class Expected:
    """What should be true after the action (all optional; the matrix says which ones an action uses)."""

    window_title: str | None = None
    text: str | None = None
    # the window the step was recorded in: its application (not its exact title, a tab switch
    # changes that) must be the one in front after the action
    application_title: str | None = None
    json_schema: dict[str, Any] | None = None
    output: Any = None
    has_output: bool = False  # `output` may legitimately be None / null
    # the step's post-condition from the demonstration (templated with the run's parameters):
    # kind = message | heading | dialog | window_title | field_value | row; text = what shows it
    outcome_kind: str | None = None
    outcome_text: str | None = None
    # the workflow's own top-level windows (their recorded titles, templated with the run's parameters):
    # a window titled so is the application's own (moved, resized, raised), never a dialog
    own_windows: tuple[str, ...] = ()


@dataclass(frozen=True)
class Observed:
    """What the desktop agent reported (never trusted alone: it is compared with the pixels)."""

    window_title_before: str | None = None
    window_title_after: str | None = None
    process_after: str | None = None


@dataclass(frozen=True)
class CropRef:
    """A region of one frame worth showing to a person (encoded only when a verdict is built)."""

    label: str
    frame: Frame
    bbox: BBox


@dataclass
class CheckResult:
    """One checker's answer. `score` is None when the checker had nothing to judge (not applicable)."""

    checker: str
    signal: str
    score: float | None
    detail: str
    duration_ms: float = 0.0
    crop: CropRef | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    pass_threshold: float = 0.5

    @property
    def passed(self) -> bool:
        return self.score is not None and self.score >= self.pass_threshold

    @property
    def applicable(self) -> bool:
        return self.score is not None


@dataclass(frozen=True)
class EvidenceCrop:
    label: str
    data_base64: str  # PNG, client-sized (<= 1 MB, <= 2000 px)
    bbox: BBox
    frame: Frame
    mime_type: str = "image/png"
    widened: bool = False  # the region alone was plain: the image shows it with its surroundings


@dataclass
class Verdict:
    action_type: str
    verdict: VerdictKind
    confidence: float
    failure_category: FailureCategory | None = None
    rule: str = ""
    reason: str = ""
    evidence: list[CheckResult] = field(default_factory=list)
    crops: list[EvidenceCrop] = field(default_factory=list)
    total_ms: float = 0.0

    @property
    def dialog(self) -> dict[str, Any] | None:
        """Facts of the dialog detection, when a dialog checker saw one (handed to the dialog resolver)."""
        for result in self.evidence:
            if result.checker == "DialogPresenceChecker" and result.passed:
                return dict(result.facts)
        return None
