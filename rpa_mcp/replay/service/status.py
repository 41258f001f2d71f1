"""Reading a replay: the story `get_replay_status` tells (states, verdicts, evidence, what to do now)."""

from __future__ import annotations

from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.replay.bundle import build_bundle, digest
from rpa_mcp.replay.outcomes import (
    COMPLETED,
    MEANING,
    RECONCILIATION_REQUIRED,
    ReplayOutcome,
    current_action,
    outcome_of,
)
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service.core import ReplayCore
from rpa_mcp.replay.service.evidence import CLICK_LABEL


def _action_facts(a: ActionRow) -> dict[str, Any]:
    """What every reading of an action says: which step, its state, how often it went out, its verdict."""
    verdict = a.verdict or {}
    return {
        "action_id": a.action_id,
        "index": a.step_index,
        "intent": a.intent,
        "action_type": a.action_type,
        "state": a.state,
        "outcome": a.outcome,
        "origin": a.origin,
        "dispatches": a.dispatches,
        "resends": a.resends,
        "verdict": verdict.get("verdict"),
        "failure_category": verdict.get("failure_category"),
        "warning": a.warning,
        "error": a.error,
    }


def _replay_facts(replay: ReplayRow) -> dict[str, Any]:
    """What every reading of a replay starts with: which workflow, where, its state and why it paused."""
    reason = replay.pause_reason if replay.state == m.PAUSED else None
    return {
        "replay_id": replay.replay_id,
        "competence": replay.competence,
        "version": replay.version,
        "machine_id": replay.machine_id,
        "state": replay.state,
        "pause_reason": reason,
        "pause_detail": replay.pause_detail if reason else None,
        "evidence_sha256": replay.evidence_sha256,
        "readback": readback_view(replay),
    }


def readback_view(replay: ReplayRow) -> dict[str, Any] | None:
    """The declared read-back's state: {status, detail} (None when the competence declares none)."""
    if not replay.readback:
        return None
    if replay.readback_result:
        return {k: replay.readback_result.get(k) for k in ("status", "detail")}
    if replay.outcome == COMPLETED:
        return {"status": "pending", "detail": "the record is being read back"}
    if replay.outcome is not None:
        return {"status": "not_run", "detail": f"the run ended {replay.outcome}: only a completed run is read back"}
    return {"status": "pending", "detail": "read back once the run ends completed"}


class Status(ReplayCore):
    def status(self, replay_id: str, *, with_crops: bool = True) -> dict[str, Any]:
        replay = self._require(replay_id)
        actions = self.store.actions(replay_id)
        current = current_action(replay, actions)
        history = []
        for a in actions:
            verdict = a.verdict or {}
            show_crops = with_crops and (a is current or a.outcome not in (None, "success"))
            history.append(
                {
                    **_action_facts(a),
                    "attempt_id": a.attempt_id,
                    "checkers": verdict.get("evidence"),
                    "evidence": [c for c in a.evidence or [] if c.get("label") != CLICK_LABEL] if show_crops else [],
                }
            )
        outcome = outcome_of(replay, actions)
        return {
            **_replay_facts(replay),
            **outcome.as_dict(),
            "what_you_can_do": _options(replay, current, outcome),
            "current_action": next((h for h in history if current and h["action_id"] == current.action_id), None),
            "steps_total": replay.steps_total,
            "done": sum(1 for a in actions if a.state in m.TERMINAL_ACTION_STATES and a.origin not in m.LOOK_ORIGINS),
            "actions": history,
            "created_at": replay.created_at,
            "updated_at": replay.updated_at,
            "finished_at": replay.finished_at,
        }

    def timeline(self, replay_id: str) -> dict[str, Any]:
        """Everything a person watching the replay sees: every action with its target, where it was
        clicked, each checker's verdict and time, and every evidence crop (successes included)."""
        replay = self._require(replay_id)
        rows = self.store.actions(replay_id)
        paused = current_action(replay, rows)
        actions, needs_answer, seen_open = [], False, False
        for a in rows:
            if not seen_open and a.state in m.OPEN_ACTION_STATES:
                seen_open = True
                needs_answer = a.state == m.HELD or (a.state == m.ORPHAN and not a.resend_allowed)
            verdict = a.verdict or {}
            result = a.result or {}
            target = a.target if isinstance(a.target, dict) else {}
            params = dict(a.params or {})
            if params.get("secret"):
                params = {k: ("(secret)" if k == "text" else v) for k, v in params.items()}
            actions.append(
                {
                    **_action_facts(a),
                    "target": {k: target.get(k) for k in ("label", "by_text", "bbox", "anchor_ref", "x", "y")},
                    "params": params,
                    "point": result.get("actual_position"),
                    "reason": verdict.get("reason"),
                    "checkers": verdict.get("evidence") or [],
                    "dialog": verdict.get("dialog"),
                    "evidence": [{k: v for k, v in c.items() if k != "data_base64"} for c in a.evidence or []],
                    "dispatched_at": a.dispatched_at,
                    "updated_at": a.updated_at,
                }
            )
        return {
            **_replay_facts(replay),
            **outcome_of(replay, rows).as_dict(),
            "current_action_id": paused.action_id if paused else None,
            "needs_answer": needs_answer,
            "steps_total": replay.steps_total,
            "done": sum(1 for a in rows if a.state in m.TERMINAL_ACTION_STATES and a.origin not in m.LOOK_ORIGINS),
            "actions": actions,
            "created_by": replay.created_by,
            "created_at": replay.created_at,
            "updated_at": replay.updated_at,
            "finished_at": replay.finished_at,
        }

    def evidence_bundle(self, replay_id: str) -> dict[str, Any]:
        """The run's evidence bundle, its digest now, and the digest recorded (in the audit chain) when it ended."""
        replay = self._require(replay_id)
        actions = self.store.actions(replay_id)
        bundle = build_bundle(replay, actions, outcome_of(replay, actions))
        sha = digest(bundle)
        return {
            "bundle": bundle,
            "sha256": sha,
            "recorded_sha256": replay.evidence_sha256,
            "intact": None if replay.evidence_sha256 is None else sha == replay.evidence_sha256,
        }

    def evidence(self, replay_id: str, action_id: str) -> list[dict[str, Any]]:
        """The evidence crops of one action (PNG, base64), for a page that shows them one by one."""
        action = self.store.get_action(replay_id, action_id)
        return list(action.evidence or []) if action else []


def _options(replay: ReplayRow, current: ActionRow | None, outcome: ReplayOutcome) -> list[str]:
    """What a person can do now, in words (get_replay_status)."""
    state = replay.state
    if state in m.TERMINAL_REPLAY_STATES:
        out = [f"The replay ended {outcome.word}: {MEANING[outcome.word]}"]
        if outcome.word == RECONCILIATION_REQUIRED:
            out += [f"Check the record for step {e.index} '{e.intent}'" for e in outcome.effects]
        return out
    if state == m.RUNNING:
        return ["pause_replay to stop dispatching after the current action", "cancel_replay to stop for good"]
    reason = replay.pause_reason or m.USER_PAUSE
    out = [m.PAUSE_HELP.get(reason, "")]
    stopped = outcome.if_stopped_now
    out.append(
        f"Stopped now it would end {stopped}: "
        + (
            "check the record of " + ", ".join(f"step {e.index}" for e in outcome.effects)
            if outcome.effects
            else "nothing irreversible was sent"
        )
    )
    needs_answer = current is not None and (
        current.state == m.HELD or (current.state == m.ORPHAN and not current.resend_allowed)
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
