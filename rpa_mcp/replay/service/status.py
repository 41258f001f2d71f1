"""Reading a replay: the story `get_replay_status` tells (states, verdicts, evidence, what to do now)."""

from __future__ import annotations

from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.replay.service.core import ReplayCore


class Status(ReplayCore):
    def status(self, replay_id: str, *, with_crops: bool = True) -> dict[str, Any]:
        replay = self._require(replay_id)
        actions = self.store.actions(replay_id)
        current = next((a for a in actions if a["state"] in m.OPEN_ACTION_STATES), None)
        history = []
        for a in actions:
            verdict = a["verdict"] or {}
            show_crops = with_crops and (a is current or a["outcome"] not in (None, "success"))
            history.append(
                {
                    "action_id": a["action_id"],
                    "index": a["step_index"],
                    "intent": a["intent"],
                    "action_type": a["action_type"],
                    "state": a["state"],
                    "outcome": a["outcome"],
                    "origin": a["origin"],
                    "dispatches": a["dispatches"],
                    "resends": a["resends"],
                    "attempt_id": a["attempt_id"],
                    "verdict": verdict.get("verdict"),
                    "failure_category": verdict.get("failure_category"),
                    "checkers": verdict.get("evidence"),
                    "warning": a["warning"],
                    "error": a["error"],
                    "evidence": (a["evidence"] or []) if show_crops else [],
                }
            )
        reason = replay["pause_reason"] if replay["state"] == m.PAUSED else None
        return {
            "replay_id": replay_id,
            "competence": replay["competence"],
            "version": replay["version"],
            "machine_id": replay["machine_id"],
            "state": replay["state"],
            "pause_reason": reason,
            "pause_detail": replay["pause_detail"] if reason else None,
            "what_you_can_do": _options(replay, current),
            "current_action": next((h for h in history if current and h["action_id"] == current["action_id"]), None),
            "steps_total": replay["steps_total"],
            "done": sum(1 for a in actions if a["state"] in m.TERMINAL_ACTION_STATES),
            "actions": history,
            "created_at": replay["created_at"],
            "updated_at": replay["updated_at"],
            "finished_at": replay["finished_at"],
        }


def _options(replay: dict[str, Any], current: dict[str, Any] | None) -> list[str]:
    """What a person can do now, in words (get_replay_status)."""
    state = replay["state"]
    if state in m.TERMINAL_REPLAY_STATES:
        return [f"Nothing: the replay is {state}."]
    if state == m.RUNNING:
        return ["pause_replay to stop dispatching after the current action", "cancel_replay to stop for good"]
    reason = replay["pause_reason"] or m.USER_PAUSE
    out = [m.PAUSE_HELP.get(reason, "")]
    needs_answer = current is not None and (
        current["state"] == m.HELD or (current["state"] == m.ORPHAN and not current["resend_allowed"])
    )
    if needs_answer:
        answers = ["retry", "skip", "abort"]
        if reason == m.UNEXPECTED_DIALOG:
            answers.insert(0, "click:<button label>")
        out.append("answer_pause with decision " + " | ".join(answers))
    else:
        out.append(
            "resume_replay to continue" + (" (the screen is re-checked first)" if reason == m.HUMAN_TAKEOVER else "")
        )
        out.append("answer_pause with decision skip | retry | abort")
    out.append("cancel_replay to stop for good")
    return [line for line in out if line]
