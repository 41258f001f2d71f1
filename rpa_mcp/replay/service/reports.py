"""Reports: one agent result -> one conditional write (state, verdict, evidence, dialog insert, pause)."""

from __future__ import annotations

import time
from typing import Any

from rpa_mcp.errors import Conflict
from rpa_mcp.replay import model as m
from rpa_mcp.replay.ports import ANY
from rpa_mcp.replay.rows import ActionRow, ReportRow
from rpa_mcp.replay.service.core import ReplayCore
from rpa_mcp.replay.service.later_look import look_row, seq_before
from rpa_mcp.replay.service.preflight import OBSERVED_ORIGIN, FirstStepCheck
from rpa_mcp.replay.service.supervision import Decision, own_windows
from rpa_mcp.replay.start_window import starting_on
from rpa_mcp.replay.wire import ActionResult, ReportAck
from rpa_mcp.vision.images import decode_base64


class Reports(ReplayCore):
    def observed_gaps(self, observation: ActionRow, output: Any = None) -> FirstStepCheck:  # pragma: no cover
        raise NotImplementedError  # provided by Preflight

    async def report(self, msg: ActionResult) -> ReportAck:
        m.log_event(
            "report",
            replay_id=msg.replay_id,
            action_id=msg.action_id,
            attempt_id=msg.attempt_id,
            success=msg.success,
            error=msg.error,
            warning=msg.warning,
            actual_position=msg.actual_position,
            executed=msg.executed,
            human_takeover=msg.human_takeover or None,
            system_dialog=msg.system_dialog.kind if msg.system_dialog else None,
        )
        status, a, reason = self._fence(msg.replay_id, msg.action_id, msg.attempt_id)
        body = _report_body(msg)
        if (
            status == "late"
            and a is not None
            and a.attempt_id == msg.attempt_id
            and self.store.has_accepted(msg.replay_id, msg.action_id, msg.attempt_id, "result")
        ):
            status, reason = "duplicate", "this result was already recorded"
        if status != "accepted" or a is None:
            self._record("result", msg, status, {"reason": reason, **body})
            m.log_event(
                f"report_{status}",
                replay_id=msg.replay_id,
                action_id=msg.action_id,
                attempt_id=msg.attempt_id,
                reason=reason,
            )
            return ReportAck(
                status=status,
                replay_state=self._replay_state(msg.replay_id),
                reason=reason,
            )
        replay = self.store.get_replay(a.replay_id)
        assert replay is not None
        # Heavy work (decode, validator, dialog resolver) happens outside the write lock; the
        # write below is conditional on the attempt being still current, so a racing watchdog
        # or a concurrent duplicate cannot both win.
        # decode + validation: one unit of image work, in the agents' lane (their reserved slots)
        validating = time.perf_counter()
        actions = self.store.actions(a.replay_id)
        own = own_windows(actions)
        typed = self._looked_at(a, actions)  # a later look judges the step it names
        judged: Decision | None = None
        if typed is not None:
            decision, screen, judged, as_typed = await self.image_work.run(
                self.supervisor.judge_later, a, typed, replay, msg, own, lane="agents"
            )
        else:
            decision, screen = await self.image_work.run(self.supervisor.decide, a, replay, msg, own, lane="agents")
        self.metrics.verdict_seconds(time.perf_counter() - validating)
        for judgement in (decision, judged):  # the validate phase of the evidence bundle
            if judgement is not None and judgement.verdict is not None:
                judgement.verdict["duration_ms"] = round((time.perf_counter() - validating) * 1000, 2)
        starts_on = None
        if a.origin == OBSERVED_ORIGIN and decision.state == m.ACKED and decision.pause is None and screen:
            self._reported_screen(a.machine_id or replay.machine_id, msg.window_title, screen)
            checked = await self.image_work.run(self.observed_gaps, a, msg.output, lane="agents")
            starts_on = checked.starts_on
            if checked.missing:  # the first step is not sent: a person brings the screen it needs, then answers retry
                decision.pause = m.WORKSTATION_NOT_READY
                decision.pause_detail = {"missing": checked.missing, "executed": 0}
            elif checked.by_tree is not None:  # the evidence says how the first target was found: not by OCR
                decision.verdict = _with_tree_evidence(decision.verdict, checked.by_tree)
                m.log_event("preflight_by_tree", replay_id=a.replay_id, action_id=a.action_id, **checked.by_tree)
        now = self.time.now()
        with self.store.atomic():
            if not self.store.add_report(
                ReportRow(
                    replay_id=msg.replay_id,
                    action_id=msg.action_id,
                    attempt_id=msg.attempt_id,
                    kind="result",
                    status="accepted",
                    received_at=now,
                    body=body,
                )
            ):
                return ReportAck(
                    status="duplicate",
                    replay_state=replay.state,
                    reason="this result was already recorded",
                )
            changes: dict[str, Any] = {
                "state": decision.state,
                "outcome": decision.outcome,
                "journal": m.J_DONE,
                "warning": decision.warning or msg.warning,
                "error": msg.error,
                "result": body,
                "verdict": decision.verdict,
                "resend_allowed": 0,
            }
            if decision.evidence:
                changes["evidence"] = decision.evidence
            if decision.state == m.PENDING:  # retry within budget: back to the queue, new attempt at claim
                changes["resends"] = a.resends + 1
            if decision.look_again:  # the screen before the step, to judge it again on a later screen
                changes["screen_before"] = decode_base64(msg.screenshot_before or "", field="screenshot_before")
            won = self.store.update_action(
                a.replay_id,
                a.action_id,
                expect_states=(m.DISPATCHED, m.ORPHAN),
                expect_attempt=msg.attempt_id,
                now=now,
                **changes,
            )
            if not won:
                raise Conflict("the action changed while its report was processed; send the report again")
            self.store.set_attempt_status(msg.attempt_id, "reported")
            if screen is not None:
                self._reported_screen(a.machine_id, msg.window_title, screen)
                self.store.update_replay(
                    a.replay_id,
                    expect_states=(replay.state,),
                    now=now,
                    last_screenshot=screen,
                    last_screenshot_at=now,
                    last_window_title=msg.window_title,
                )
            if decision.insert is not None:
                self._insert_after(a, decision.insert, now)
            if decision.look_again:
                self.store.insert_action(
                    look_row(
                        a,
                        seq=seq_before(actions, a),
                        now=now,
                        max_resends=self.config.max_resends,
                        kind=decision.look_again,
                        title=msg.window_title,
                    )
                )
            if typed is not None and judged is not None:
                self._judged_later(typed, judged, now)
                self._memory_feedback(replay.machine_id, typed, as_typed, judged)
            if starts_on:  # the leading steps begin on the workflow's own window the observation showed
                self._start_on(a, starts_on, now=now)
            if decision.outcome == "extracted" and msg.output is not None:
                variables = dict(replay.get("variables") or {})
                variables[str(a.params.get("variable") or a.action_id)] = msg.output
                self.store.update_replay(a.replay_id, expect_states=(replay.state,), now=now, variables=variables)
            m.log_event(
                "transition",
                replay_id=a.replay_id,
                action_id=a.action_id,
                attempt_id=msg.attempt_id,
                outcome=decision.outcome,
                **{"from": a.state, "to": decision.state},
            )
            if decision.pause:
                self._pause(a.replay_id, decision.pause, {"action_id": a.action_id, **decision.pause_detail}, now=now)
            elif (
                decision.state == m.ACKED
                and replay.state == m.PAUSED
                and replay.pause_reason == m.OUTCOME_UNKNOWN
                and (replay.pause_detail or {}).get("action_id") == a.action_id
            ):
                # the unknown outcome became known (a late report of the same attempt): the cause is gone
                self.store.update_replay(
                    a.replay_id,
                    expect_states=(m.PAUSED,),
                    now=now,
                    state=m.RUNNING,
                    pause_reason=None,
                    pause_detail=None,
                )
                m.log_event(
                    "replay_resumed",
                    replay_id=a.replay_id,
                    action_id=a.action_id,
                    attempt_id=msg.attempt_id,
                    reason="outcome of the unknown action reported",
                )
            self._memory_feedback(replay.machine_id, a, msg, decision)
        self._advance(a.replay_id)
        if replay.state in m.TERMINAL_REPLAY_STATES:  # the report of an action in flight at cancel ends the run
            self._ended(a.replay_id)
        self._wake(a.machine_id)
        self._changed(a.replay_id)
        return ReportAck(status="accepted", replay_state=self._replay_state(a.replay_id))

    def _insert_after(self, a: ActionRow, insert: dict[str, Any], now: float) -> None:
        """An action a decision adds (a dialog's answer), queued right after `a`, before whatever follows it."""
        nxt = self.store.next_seq_after(a.replay_id, a.seq)
        seq = (a.seq + nxt) / 2 if nxt is not None else a.seq + 0.5
        self.store.insert_action(
            ActionRow(
                **{
                    **insert,
                    "replay_id": a.replay_id,
                    "seq": seq,
                    "step_index": a.step_index,
                    "state": m.PENDING,
                    "updated_at": now,
                }
            )
        )

    def _looked_at(self, a: ActionRow, actions: list[ActionRow]) -> ActionRow | None:
        """The step a later look judges, while it waits for it (None for any other action)."""
        if a.origin != m.LATER_LOOK_ORIGIN:
            return None
        typed = next((x for x in actions if x.action_id == a.expected.get("looks_at")), None)
        return typed if typed is not None and typed.outcome == m.AWAITING_LATER_LOOK else None

    def _judged_later(self, typed: ActionRow, judged: Decision, now: float) -> None:
        """The held step's judgement on its later look: one conditional write on it."""
        won = self.store.update_action(
            typed.replay_id,
            typed.action_id,
            expect_states=(m.HELD,),
            expect_attempt=typed.attempt_id,
            now=now,
            state=judged.state,
            outcome=judged.outcome,
            warning=judged.warning or typed.warning,
            verdict=judged.verdict,
            evidence=judged.evidence,
            screen_before=None,
        )
        if not won:
            raise Conflict("the held step changed while its later look was judged; send the report again")
        m.log_event(
            "transition",
            replay_id=typed.replay_id,
            action_id=typed.action_id,
            attempt_id=typed.attempt_id,
            outcome=judged.outcome,
            later_look=(judged.verdict or {}).get("later_look", {}).get("action_id"),
            **{"from": typed.state, "to": judged.state},
        )
        if judged.insert is not None:
            self._insert_after(typed, judged.insert, now)
        if judged.pause:
            self._pause(typed.replay_id, judged.pause, {"action_id": typed.action_id, **judged.pause_detail}, now=now)

    def _start_on(self, observation: ActionRow, seen: str, *, now: float) -> None:
        rows = [
            x
            for x in self.store.actions(observation.replay_id)
            if x.seq > observation.seq and x.origin != OBSERVED_ORIGIN and x.state == m.PENDING
        ]
        planned = [{"target": x.target, "expected": x.expected, "server_side": x.server_side} for x in rows]
        for i in starting_on(planned, seen, replay_id=observation.replay_id):
            self.store.update_action(
                rows[i].replay_id,
                rows[i].action_id,
                expect_states=(m.PENDING,),
                expect_attempt=ANY,
                now=now,
                target=planned[i]["target"],
                expected=planned[i]["expected"],
            )

    def _memory_feedback(self, machine_id: str | None, a: ActionRow, msg: ActionResult, decision: Decision) -> None:
        """The replay's workstation learns where its target was (or was not): its own memory only."""
        target = a.target if isinstance(a.target, dict) else None
        if not target or a.origin != "workflow":
            return
        title = target.get("window_title") or a.expected.get("window_before")
        if decision.outcome == "success" and msg.actual_position:
            self.memory.record_success(machine_id, title, target, msg.actual_position)
        elif decision.outcome in ("failed", "no_change_retrying") and decision.verdict is not None:
            self.memory.record_failure(machine_id, title, target)


def _with_tree_evidence(verdict: dict[str, Any] | None, by_tree: dict[str, Any]) -> dict[str, Any]:
    """The look's verdict with the first target's finding by the accessibility tree among its checkers."""
    checker = {"checker": "first_target", "signal": "accessibility_tree", "score": 1.0, "detail": by_tree["detail"]}
    verdict = dict(verdict or {})
    verdict["evidence"] = [*(verdict.get("evidence") or []), checker]
    verdict["first_target"] = by_tree
    return verdict


def _report_body(msg: ActionResult) -> dict[str, Any]:
    """What is kept of a report (screenshots are not stored in the history, crops are)."""
    body = msg.model_dump(exclude={"screenshot_before", "screenshot_after", "protocol_version"}, exclude_none=True)
    body["had_screenshots"] = [bool(msg.screenshot_before), bool(msg.screenshot_after)]
    return body
