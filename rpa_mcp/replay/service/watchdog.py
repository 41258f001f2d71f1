"""The watchdog: expired leases -> ORPHAN -> resend, OUTCOME_UNKNOWN or ABANDONED."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from rpa_mcp.replay import model as m
from rpa_mcp.replay.ports import Leader
from rpa_mcp.replay.rows import ActionRow
from rpa_mcp.replay.service.core import ReplayCore

if TYPE_CHECKING:
    from rpa_mcp.replay.service.engine import ReplayService


class Watchdog(ReplayCore):
    def scan_once(self) -> int:
        """Orphan every expired lease and decide its fate. Safe when several scanners run at once."""
        now = self.time.now()
        handled = 0
        ended: list[str] = []  # cancelled runs whose last action in flight was given up: their outcome is final
        for row in self.store.expired_leases(now):
            woke = None
            with self.store.atomic():
                a = self.store.get_action(row.replay_id, row.action_id)
                if a is None or a.state != m.DISPATCHED or a.attempt_id != row.attempt_id:
                    continue
                if (a.lease_until or 0) >= now:
                    continue  # extended by a heartbeat since the listing
                if not self.store.update_action(
                    a.replay_id,
                    a.action_id,
                    expect_states=(m.DISPATCHED,),
                    expect_attempt=a.attempt_id,
                    now=now,
                    state=m.ORPHAN,
                    resend_allowed=0,
                ):
                    continue  # another watchdog (or a report) won
                handled += 1
                self.store.set_attempt_status(row.attempt_id or "", "orphaned")
                m.log_event(
                    "transition",
                    replay_id=a.replay_id,
                    action_id=a.action_id,
                    attempt_id=a.attempt_id,
                    journal=a.journal or "none",
                    **{"from": m.DISPATCHED, "to": m.ORPHAN},
                )
                replay = self.store.get_replay(a.replay_id)
                assert replay is not None
                if replay.state in m.TERMINAL_REPLAY_STATES:
                    self._update_orphan(a, now, state=m.ABANDONED, outcome=a.outcome or "no_report_after_cancel")
                    ended.append(a.replay_id)
                    continue
                may_have_run = a.journal == m.J_STARTED or (a.protocol_version < 2)
                if may_have_run and not a.idempotent:
                    self._pause(
                        a.replay_id,
                        m.OUTCOME_UNKNOWN,
                        {
                            "action_id": a.action_id,
                            "attempt_id": a.attempt_id,
                            "why": "started and never reported"
                            if a.journal == m.J_STARTED
                            else "a v1 agent (no receipt/start acks) never reported: it may have executed",
                        },
                        now=now,
                    )
                    m.log_event(
                        "outcome_unknown",
                        replay_id=a.replay_id,
                        action_id=a.action_id,
                        attempt_id=a.attempt_id,
                    )
                elif a.resends >= a.max_resends:
                    self._update_orphan(a, now, state=m.ABANDONED, outcome="abandoned_max_resends")
                    self._pause(
                        a.replay_id,
                        m.PAUSED_NEED_HELP,
                        {
                            "action_id": a.action_id,
                            "resends": a.resends,
                            "why": f"no report after {a.dispatches} dispatches",
                        },
                        now=now,
                    )
                    m.log_event(
                        "abandoned",
                        replay_id=a.replay_id,
                        action_id=a.action_id,
                        attempt_id=a.attempt_id,
                        resends=a.resends,
                    )
                else:
                    self._update_orphan(a, now, resend_allowed=1)
                    m.log_event(
                        "resend_scheduled",
                        replay_id=a.replay_id,
                        action_id=a.action_id,
                        attempt_id=a.attempt_id,
                        resends=a.resends + 1,
                        reason="never started" if not may_have_run else "idempotent",
                    )
                    woke = a.machine_id
            self._wake(woke)
            self._changed(row.replay_id)
        for replay_id in ended:
            self._ended(replay_id)
        return handled

    def _update_orphan(self, a: ActionRow, now: float, **changes: Any) -> None:
        """One conditional write on an ORPHAN action, fenced on its attempt."""
        self.store.update_action(
            a.replay_id,
            a.action_id,
            expect_states=(m.ORPHAN,),
            expect_attempt=a.attempt_id,
            now=now,
            **changes,
        )


async def run_watchdog(service: ReplayService, stop_event: anyio.Event, *, leader: Leader | None = None) -> None:
    """Scan for orphans every `scan_interval_s` until `stop_event` is set (started by the app lifespan).

    With several replicas, only the `leader` scans; another one takes over at its next scan
    when the leader is gone. Asking whether this replica leads is a database call (on a replica
    that does not lead, a new connection trying the lock): it runs in a worker thread, so the
    event loop never waits for it. The scan itself stays on the loop: it wakes long polls,
    whose events belong to the loop."""
    if not service.config.watchdog_enabled:
        return
    interval = service.config.scan_interval_s
    while not stop_event.is_set():
        try:
            if leader is None or await anyio.to_thread.run_sync(leader.is_leader):
                service.scan_once()
        except Exception as exc:
            m.log_event("watchdog_error", replay_id=None, error=repr(exc))
        with anyio.move_on_after(interval):
            await stop_event.wait()
