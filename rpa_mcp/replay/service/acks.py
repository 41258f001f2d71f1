"""The agent's receipt and start acknowledgements and heartbeats (journal RECEIVED -> STARTED, leases)."""

from __future__ import annotations

from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow
from rpa_mcp.replay.service.core import ReplayCore
from rpa_mcp.replay.wire import Heartbeat, ReceiptAck, ReportAck, StartAck


class Acks(ReplayCore):
    async def receipt(self, msg: ReceiptAck) -> ReportAck:
        return self._ack("receipt", msg)

    async def started(self, msg: StartAck) -> ReportAck:
        return self._ack("start", msg)

    async def heartbeat(self, msg: Heartbeat) -> ReportAck:
        return self._ack("heartbeat", msg, {"progress": msg.progress, "message": msg.message})

    def _ack(self, kind: str, msg: Any, body: dict[str, Any] | None = None) -> ReportAck:
        now = self.time.now()
        with self.store.atomic():
            status, a, reason = self._fence(msg.replay_id, msg.action_id, msg.attempt_id)
            if status != "accepted" or a is None:
                replay_state = self._replay_state(msg.replay_id)
                return self._refuse(
                    kind, msg, status, reason, event=f"{kind}_{status}", replay_state=replay_state, body=body
                )
            replay_state = self._replay_state(a.replay_id)
            lease = now + self.config.orphan_timeout_s
            if kind == "receipt":
                if a.journal:
                    self._record(kind, msg, "duplicate")
                    return ReportAck(
                        status="duplicate",
                        replay_state=replay_state,
                        proceed=a.journal != m.J_STARTED,
                        not_after=a.not_after,
                    )
                self._update_attempt(a, msg, now, journal=m.J_RECEIVED, lease_until=max(lease, a.lease_until or 0))
                self.store.set_attempt_status(msg.attempt_id, "received")
                return self._accept(kind, msg, a, replay_state, event="receipt")
            if kind == "start":
                if a.journal == m.J_STARTED:
                    self._record(kind, msg, "duplicate")
                    return ReportAck(
                        status="duplicate",
                        replay_state=replay_state,
                        proceed=False,
                        reason="this attempt was already started once",
                        not_after=a.not_after,
                    )
                refuse = None
                if now > (a.not_after or 0):
                    refuse = "expired: not_after has passed"
                elif replay_state != m.RUNNING:
                    refuse = f"the replay is {replay_state}"
                if refuse:
                    return self._refuse(
                        kind,
                        msg,
                        "late",
                        refuse,
                        event="start_refused",
                        replay_state=replay_state,
                        not_after=a.not_after,
                    )
                self._update_attempt(
                    a,
                    msg,
                    now,
                    state=m.DISPATCHED,
                    journal=m.J_STARTED,
                    resend_allowed=0,
                    lease_until=max(lease, a.lease_until or 0),
                )
                self.store.set_attempt_status(msg.attempt_id, "started")
                return self._accept(kind, msg, a, replay_state, event="start")
            # heartbeat: extends the lease of the current attempt (re-adopts it if the watchdog orphaned it
            # and nothing was resent yet)
            if a.state == m.ORPHAN and not a.resend_allowed:
                self._record(kind, msg, "late", {"reason": "the replay paused on this action"})
                return ReportAck(
                    status="late",
                    replay_state=replay_state,
                    proceed=True,
                    reason="outcome already escalated to a person; still send the result",
                )
            self._update_attempt(a, msg, now, state=m.DISPATCHED, resend_allowed=0, lease_until=lease)
            return self._accept(kind, msg, a, replay_state, event="heartbeat", body=body, lease_until=lease)

    def _update_attempt(self, a: ActionRow, msg: Any, now: float, **changes: Any) -> None:
        """Write `changes` to the action, fenced on its current state and on this attempt."""
        self.store.update_action(
            a.replay_id,
            a.action_id,
            expect_states=(a.state,),
            expect_attempt=msg.attempt_id,
            now=now,
            **changes,
        )

    def _accept(
        self,
        kind: str,
        msg: Any,
        a: ActionRow,
        replay_state: str | None,
        *,
        event: str,
        body: dict[str, Any] | None = None,
        **log_fields: Any,
    ) -> ReportAck:
        """Record and log an accepted ack; the agent may go on until the attempt's deadline."""
        self._record(kind, msg, "accepted", body)
        m.log_event(event, replay_id=a.replay_id, action_id=a.action_id, attempt_id=msg.attempt_id, **log_fields)
        return ReportAck(status="accepted", replay_state=replay_state, not_after=a.not_after)

    def _refuse(
        self,
        kind: str,
        msg: Any,
        status: str,
        reason: str,
        *,
        event: str,
        replay_state: str | None,
        body: dict[str, Any] | None = None,
        not_after: float | None = None,
    ) -> ReportAck:
        """Record and log a refused ack; the agent must not execute this attempt (`proceed=False`)."""
        self._record(kind, msg, status, {"reason": reason, **(body or {})})
        m.log_event(event, replay_id=msg.replay_id, action_id=msg.action_id, attempt_id=msg.attempt_id, reason=reason)
        return ReportAck(status=status, replay_state=replay_state, proceed=False, reason=reason, not_after=not_after)
