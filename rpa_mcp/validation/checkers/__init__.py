"""The checkers, by the name the matrix uses."""

from __future__ import annotations

from rpa_mcp.validation.checkers.base import BaseChecker, Checker, Params
from rpa_mcp.validation.checkers.dialog_closed import DialogClosedChecker
from rpa_mcp.validation.checkers.dialog_presence import DialogPresenceChecker
from rpa_mcp.validation.checkers.options import OptionSetChecker
from rpa_mcp.validation.checkers.other import JsonSchemaChecker, LlmJudgeChecker
from rpa_mcp.validation.checkers.outcome import OutcomeChecker, UnexpectedMessageChecker
from rpa_mcp.validation.checkers.pixels import PhashChecker, PixelDiffChecker
from rpa_mcp.validation.checkers.tabs import TabAbsenceChecker, TabActiveChecker
from rpa_mcp.validation.checkers.text import OcrRoiChecker, SaveSuccessChecker, TitleBarChecker

ALL_CHECKERS: dict[str, Checker] = {
    checker.name: checker
    for checker in (
        PixelDiffChecker(),
        PhashChecker(),
        OcrRoiChecker(),
        TitleBarChecker(),
        JsonSchemaChecker(),
        TabActiveChecker(),
        TabAbsenceChecker(),
        SaveSuccessChecker(),
        DialogPresenceChecker(),
        DialogClosedChecker(),
        LlmJudgeChecker(),
        OutcomeChecker(),
        UnexpectedMessageChecker(),
        OptionSetChecker(),
    )
}

__all__ = [
    "ALL_CHECKERS",
    "BaseChecker",
    "Checker",
    "DialogClosedChecker",
    "DialogPresenceChecker",
    "JsonSchemaChecker",
    "LlmJudgeChecker",
    "OcrRoiChecker",
    "OptionSetChecker",
    "OutcomeChecker",
    "Params",
    "PhashChecker",
    "PixelDiffChecker",
    "SaveSuccessChecker",
    "TabAbsenceChecker",
    "TabActiveChecker",
    "TitleBarChecker",
    "UnexpectedMessageChecker",
]
