"""Post-action validation: checkers, the action -> signal matrix, aggregation into a verdict (domain)."""

from __future__ import annotations

from rpa_mcp.validation.matrix import ACTION_TYPES, ValidatorMatrix, check_matrix, load_validator_matrix
from rpa_mcp.validation.model import (
    CheckResult,
    EvidenceCrop,
    Expected,
    FailureCategory,
    Observed,
    Target,
    Verdict,
    VerdictKind,
)
from rpa_mcp.validation.ports import DialogHit, DialogLocator, JudgeAnswer, JudgePort
from rpa_mcp.validation.service import Validator

__all__ = [
    "ACTION_TYPES",
    "CheckResult",
    "DialogHit",
    "DialogLocator",
    "EvidenceCrop",
    "Expected",
    "FailureCategory",
    "JudgeAnswer",
    "JudgePort",
    "Observed",
    "Target",
    "Validator",
    "ValidatorMatrix",
    "Verdict",
    "VerdictKind",
    "check_matrix",
    "load_validator_matrix",
]
