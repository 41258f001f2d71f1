"""The console's codes in a supervisor's words: operations, risks, verdicts, checkers, outcomes.

Each table maps a stable code to an English phrase (translated by `i18n.FR` like every other
text); the page shows the phrase and keeps the code in a small detail line. `checker_summary`
keeps the first, meaningful part of a checker's detail: the pixel checker's list of isolated
specks it ignored stays in the evidence bundle, never on the page.
"""

from __future__ import annotations

from typing import Any

OPERATIONS = {
    "start_replay": "Start a replay",
    "resume_replay": "Resume a replay",
    "answer_pause": "Answer a paused replay",
    "persist_competence": "Save a new competence version",
    "promote_competence": "Promote a competence to validated",
    "delete_competence": "Delete a competence version",
}

RISKS = {
    "read": "reads only",
    "draft": "prepares, changes nothing",
    "write": "changes the stored competences",
    "act": "acts on a workstation",
    "dangerous": "deletes or cannot be undone",
}

VERDICTS = {
    "SUCCESS": "as expected",
    "FAILURE": "not as expected",
    "UNCERTAIN": "not sure",
    "UNVERIFIED": "not checked",
}

PAUSES = {
    "paused_need_help": "Needs help",
    "PAUSED_NEED_HELP": "Needs help",
    "OUTCOME_UNKNOWN": "Outcome unknown",
    "HUMAN_TAKEOVER": "Someone used the workstation",
    "SYSTEM_DIALOG": "A system window is open",
    "UNEXPECTED_DIALOG": "An unexpected dialog appeared",
    "VALIDATION_FAILED": "The screen does not show the expected result",
    "UNVERIFIED": "The result could not be checked",
    "USER_PAUSE": "Paused on request",
    "SERVER_ACTION_FAILED": "A server-side step failed",
    "WORKSTATION_NOT_READY": "The workstation is not ready",
}

CATEGORIES = {
    "WRONG_APPLICATION": "the wrong application is in front",
    "WRONG_TARGET": "the click landed on the wrong element",
    "NO_VISUAL_CHANGE": "nothing changed on the screen",
    "UNEXPECTED_DIALOG": "an unexpected dialog appeared",
    "DIALOG_STILL_OPEN": "the dialog is still open",
    "TARGET_NOT_FOUND": "the target was not found",
    "TEXT_MISMATCH": "the text read is not the one expected",
    "SCHEMA_INVALID": "the value read has the wrong form",
    "TIMEOUT": "no answer in time",
    "UNEXPECTED_OUTCOME": "an unexpected message, or the expected one missing",
    "IDENTITY_MISMATCH": "the record is not the one chosen",
    "IDENTITY_AMBIGUOUS": "more than one record reads as the one chosen: a person chooses",
    "WINDOW_OCCLUDED": "another window covers what is to be clicked",
}

CHECKERS = {
    "PixelDiffChecker": "Screen changed",
    "PhashChecker": "Region looks different",
    "OcrRoiChecker": "Text read in the region",
    "TitleBarChecker": "Window title",
    "SaveSuccessChecker": "Save confirmed",
    "TabActiveChecker": "Tab selected",
    "TabAbsenceChecker": "Tab closed",
    "OutcomeChecker": "Expected result shown",
    "UnexpectedMessageChecker": "No error message",
    "JsonSchemaChecker": "Value has the expected form",
    "LlmJudgeChecker": "Model's judgement",
    "DialogPresenceChecker": "Dialog on screen",
    "DialogClosedChecker": "Dialog closed",
}

OUTCOMES = {
    "running": "running",
    "paused": "paused",
    "cancelled": "cancelled",
    "completed": "completed",
    "completed_unverified": "completed, some steps not checkable",
    "halted_before_effect": "stopped before any irreversible step",
    "reconciliation_required": "check the record",
    "verified": "completed and read back",
}

ACTION_STATES = {
    "PENDING": "waiting",
    "DISPATCHED": "sent",
    "ACKED": "done",
    "HELD": "held for a person",
    "ORPHAN": "no answer from the workstation",
    "ABANDONED": "abandoned",
}

DETAILS = {
    "competence": "Competence",
    "version": "Version",
    "status": "Status",
    "workstation": "Workstation check",
    "checked": "checked",
    "why": "why",
    "irreversible_steps": "Irreversible steps",
    "uncheckable_steps": "Steps whose outcome cannot be checked",
    "steps": "Steps",
    "first_steps": "First steps",
    "machine_id": "Machine",
    "params": "Parameters given",
    "parameters": "Parameters",
    "typed": "Typed",
    "pause_reason": "Why it is paused",
    "pause_detail": "Details",
    "next_action": "Next action",
    "action_id": "Action",
    "name": "Name",
    "slug": "Short name",
    "path": "File",
    "new_version": "New version",
    "replaces_version": "Replaces version",
    "steps_count": "Steps",
    "validated_steps": "Steps validated by a person",
    "session_id": "Session",
    "versions": "Versions",
    "files": "Files",
    "restores_version": "Restores version",
    "changes_tools": "Changes the assistant's tools",
    "candidate_version": "Candidate version",
    "validated_version": "Validated version",
    "from": "From",
    "to": "To",
}

HANDLED_DIALOG = frozenset({"success_dialog_auto", "success_dialog_skipped"})
LIVE_STATES = frozenset({"running", "paused"})
NOISE = ("isolated speck", "px ignored", "taskbar clock")


def word(table: dict[str, str], code: Any) -> str:
    """The phrase for `code`, or the code itself when the table does not know it."""
    return table.get(str(code), str(code)) if code is not None else ""


def checker_summary(detail: Any) -> tuple[str, int]:
    """The meaningful part of a checker's detail and how many ignored-noise notes were left out."""
    parts = [p.strip() for p in str(detail or "").split(";") if p.strip()]
    kept = [p for p in parts if not any(n in p for n in NOISE)]
    return "; ".join(kept[:2]), len(parts) - len(kept)


def workflow_steps(actions: list[dict[str, Any]], steps_total: int) -> int:
    """How many workflow steps the replay has (a dialog's answer or a retry's copy is not a step)."""
    indexes = {a.get("index") for a in actions if a.get("origin", "workflow") == "workflow"}
    return len(indexes) or steps_total


def handled_dialog(action: dict[str, Any]) -> bool:
    """The action opened a dialog that the catalog's policy answered (or left) as designed."""
    return str(action.get("outcome") or "") in HANDLED_DIALOG


def filters() -> dict[str, Any]:
    """Jinja filters: `x | words("checker")` gives the English phrase (templates translate it)."""
    tables = {
        "operation": OPERATIONS,
        "risk": RISKS,
        "verdict": VERDICTS,
        "pause": PAUSES,
        "category": CATEGORIES,
        "checker": CHECKERS,
        "outcome": OUTCOMES,
        "action_state": ACTION_STATES,
        "detail": DETAILS,
    }
    return {"words": lambda code, kind: word(tables[kind], code)}


def all_phrases() -> set[str]:
    """Every phrase of the tables (a test checks each has its French translation)."""
    tables = (OPERATIONS, RISKS, VERDICTS, PAUSES, CATEGORIES, CHECKERS, OUTCOMES, ACTION_STATES, DETAILS)
    return {phrase for table in tables for phrase in table.values()}
