"""The engine's shared state and the few writes every part makes: wake-ups, fencing, pauses.

`ReplayCore` holds the store, the server's time base, the target memory and resolver, the
supervisor, the collaborators it was given, and the long-poll wake-up events. The parts of the
engine (planning, dispatch, acks, reports, pauses, server-side actions, watchdog, status) are
mixins over it.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import anyio

from rpa_mcp.errors import NotFound
from rpa_mcp.metrics import Metrics, NoMetrics
from rpa_mcp.replay import model as m
from rpa_mcp.replay.bundle import build_bundle, digest
from rpa_mcp.replay.memory import TargetMemory
from rpa_mcp.replay.outcomes import COMPLETED, VERIFIED, outcome_of
from rpa_mcp.replay.ports import (
    Background,
    ChangeNotifier,
    DialogResolverPort,
    RecordReader,
    ReplayStore,
    RunLedger,
    ServerActionRunner,
    TextReader,
    ValidatorPort,
    VlmLocator,
    WakeBus,
)
from rpa_mcp.replay.readback import read_back
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.rows import ActionRow, ReplayRow, ReportRow
from rpa_mcp.replay.service.supervision import Supervisor
from rpa_mcp.replay.thresholds import Thresholds
from rpa_mcp.replay.unconfigured import NoRecordReader, RunNow
from rpa_mcp.vision.budget import ImageWork
from rpa_mcp.vision.images import DecodedFrames


def new_id(prefix: str, nbytes: int = 6) -> str:
    return f"{prefix}{secrets.token_hex(nbytes)}"


class ReplayCore:
    """The engine's state and collaborators, each given explicitly (see `replay.ports`).

    `validator` and `dialogs` are always given; whether they are used is `config`'s switches
    (`validator_enabled`, `dialog_resolver_enabled`): switched off, the replay pauses instead.
    """

    def __init__(
        self,
        store: ReplayStore,
        *,
        clock: m.ClockLike,
        config: m.ReplayConfig,
        thresholds: Thresholds,
        validator: ValidatorPort,
        dialogs: DialogResolverPort,
        notifier: ChangeNotifier,
        ocr: TextReader,
        vlm: VlmLocator,
        server_actions: ServerActionRunner,
        ledger: RunLedger,
        wakeups: WakeBus | None = None,
        image_work: ImageWork | None = None,
        metrics: Metrics | None = None,
        records: RecordReader | None = None,
        background: Background | None = None,
        frames: DecodedFrames | None = None,
    ) -> None:
        self.store = store
        self.metrics: Metrics = metrics or NoMetrics()  # replays ended, pauses, verdict latency
        self.image_work = image_work or ImageWork(2)  # shared with the other image work of the server
        self.config = config
        self.notifier = notifier
        self.ocr = ocr
        self.server_actions = server_actions
        self.ledger = ledger
        self.records: RecordReader = records or NoRecordReader()  # the read-back's second channel
        self.background: Background = background or RunNow()  # where a read-back runs (off the report path)
        self.time = m.ServerTime(clock)
        self.memory = TargetMemory(store, self.time)
        self.resolver = TargetResolver(ocr=ocr, memory=self.memory, thresholds=thresholds, vlm=vlm)
        self.supervisor = Supervisor(config, validator=validator, dialogs=dialogs, frames=frames)
        self._events: dict[str | None, anyio.Event] = {}
        self._poll_written: dict[str, float] = {}  # machine -> when its last poll was written (this replica)
        # Wake-ups shared with the other replicas (LISTEN/NOTIFY on PostgreSQL); None in one process.
        self.wakeups = wakeups
        if wakeups is not None:
            wakeups.subscribe(self._wake_here)

    # --- wake-ups for the long poll -------------------------------------------------------------
    def _event(self, machine_id: str) -> anyio.Event:
        event = self._events.get(machine_id)
        if event is None:
            event = self._events[machine_id] = anyio.Event()
        return event

    def _wake(self, machine_id: str | None) -> None:
        """Something became ready for `machine_id` (None: for any machine): wake its pollers on
        this replica now, and on the others once the change is committed."""
        self._wake_here(machine_id)
        if self.wakeups is not None:
            self.wakeups.publish(machine_id)

    def _wake_here(self, machine_id: str | None) -> None:
        keys = list(self._events) if machine_id is None else [machine_id]
        for key in keys:
            event = self._events.pop(key, None)
            if event is not None:
                event.set()

    def _changed(self, replay_id: str) -> None:
        self.notifier.resource_updated(f"rpa://replays/{replay_id}")

    # --- shared reads and writes -----------------------------------------------------------------
    def _require(self, replay_id: str) -> ReplayRow:
        replay = self.store.get_replay(replay_id)
        if replay is None:
            raise NotFound(f"no replay {replay_id!r}", replay_id=replay_id)
        return replay

    def _replay_state(self, replay_id: str) -> str | None:
        r = self.store.get_replay(replay_id)
        return r.state if r else None

    def _fence(self, replay_id: str, action_id: str, attempt_id: str) -> tuple[str, ActionRow | None, str]:
        """accepted | late | unknown, the action row, and why."""
        a = self.store.get_action(replay_id, action_id)
        if a is None:
            return "unknown", None, "no such replay or action"
        if a.attempt_id == attempt_id:
            if a.state in (m.DISPATCHED, m.ORPHAN):
                return "accepted", a, ""
            return "late", a, f"the action is already {a.state}"
        if self.store.get_attempt(attempt_id) is not None:
            return "late", a, "a newer attempt of this action was dispatched (fenced)"
        replay = self.store.get_replay(replay_id)
        if replay is not None and replay.state in m.TERMINAL_REPLAY_STATES and a.dispatches:
            return "late", a, "the replay is finished"
        return "unknown", a, "this attempt was never dispatched"

    def _record(self, kind: str, msg: Any, status: str, body: dict[str, Any] | None = None) -> bool:
        return self.store.add_report(
            ReportRow(
                replay_id=msg.replay_id,
                action_id=msg.action_id,
                attempt_id=msg.attempt_id,
                kind=kind,
                status=status,
                received_at=self.time.now(),
                body=body or {},
            )
        )

    def _pause(
        self,
        replay_id: str,
        reason: str,
        detail: dict[str, Any],
        *,
        now: float,
        from_states: Sequence[str] = (m.RUNNING, m.PAUSED),
    ) -> bool:
        won = self.store.update_replay(
            replay_id, expect_states=from_states, now=now, state=m.PAUSED, pause_reason=reason, pause_detail=detail
        )
        if won:
            self.metrics.replay_paused(reason)
            m.log_event(
                "replay_paused", replay_id=replay_id, action_id=detail.get("action_id"), reason=reason, detail=detail
            )
        return won

    def _ended(self, replay_id: str) -> None:
        """Once a finished run's outcome is final: record it with its evidence digest (replay row, audit chain)."""
        replay = self.store.get_replay(replay_id)
        if replay is None or replay.state not in m.TERMINAL_REPLAY_STATES or replay.outcome is not None:
            return
        actions = self.store.actions(replay_id)
        outcome = outcome_of(replay, actions)
        if not outcome.ended:
            return  # cancelled with an action in flight: its report ends it
        sha = digest(build_bundle(replay, actions, outcome))
        if not self.store.set_outcome_once(replay_id, outcome=outcome.word, evidence_sha256=sha, now=self.time.now()):
            return  # another writer (replica) recorded it
        m.log_event("replay_ended", replay_id=replay_id, outcome=outcome.word, evidence_sha256=sha)
        self.metrics.replay_ended(outcome.word)
        self.ledger.replay_ended(
            replay_id,
            outcome=outcome.word,
            evidence_sha256=sha,
            competence=replay.competence,
            machine_id=replay.machine_id,
        )
        if outcome.word == COMPLETED and replay.readback:  # only a completed run is read back
            self.background.submit(lambda: self._read_back(replay_id))

    def _read_back(self, replay_id: str) -> None:
        """Read the record back; record once whether the run is now `verified` (else it stays completed)."""
        try:
            replay = self.store.get_replay(replay_id)
            if replay is None or replay.outcome != COMPLETED or not replay.readback or replay.readback_result:
                return
            result = read_back(self.records, replay.readback, self.config.readback_urls, self.config.readback_timeout_s)
            word = VERIFIED if result["status"] == VERIFIED else COMPLETED
            replay = replay.replace(readback_result=result, outcome=word)
            actions = self.store.actions(replay_id)
            sha = digest(build_bundle(replay, actions, outcome_of(replay, actions)))
            if not self.store.set_readback_once(
                replay_id, result=result, outcome=word, evidence_sha256=sha, now=self.time.now()
            ):
                return  # another writer recorded it
            m.log_event(
                "replay_read_back", replay_id=replay_id, outcome=word, readback=result["status"], evidence_sha256=sha
            )
            self.ledger.replay_read_back(
                replay_id,
                outcome=word,
                readback=str(result["status"]),
                evidence_sha256=sha,
                competence=replay.competence,
                machine_id=replay.machine_id,
            )
            self._changed(replay_id)
        except Exception as exc:  # a background job: its failure is logged, the run stays completed
            m.log_event("readback_error", replay_id=replay_id, error=type(exc).__name__)

    def _advance(self, replay_id: str) -> None:  # pragma: no cover - provided by ServerActions
        raise NotImplementedError

    def _polled(self, machine_id: str) -> None:  # pragma: no cover - provided by Preflight
        raise NotImplementedError

    def _reported_screen(
        self, machine_id: str | None, window_title: str | None, png: bytes
    ) -> None:  # pragma: no cover
        raise NotImplementedError
