"""The replay engine: queue + state machine per replay, exactly-once transport, supervision.

Semantics (SPEC §4.1): at-least-once delivery and reporting, at-most-once execution of
non-idempotent GUI actions, and a person for every unknown outcome. Every transition is one
compare-and-set on (state, attempt_id) inside `store.atomic()`; `attempt_id` is a fencing
token; one action is in flight per replay (and per machine); deadlines are persisted as
epoch seconds of the server's `ServerTime`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import numpy as np

from rpa_mcp.errors import Conflict, InvalidInput, NotFound, PreconditionFailed, RpaError
from rpa_mcp.replay import model as m
from rpa_mcp.replay.memory import TargetMemory
from rpa_mcp.replay.ports import ReplayStore
from rpa_mcp.replay.resolve import Resolution, TargetResolver
from rpa_mcp.replay.wire import (
    PROTOCOL_VERSION,
    ActionResult,
    Heartbeat,
    NextAction,
    ReceiptAck,
    ReportAck,
    StartAck,
    WireTarget,
)
from rpa_mcp.vision.images import crop, decode_base64, decode_image, encode_png_base64

EVIDENCE_BOX = (360, 200)  # w, h of an evidence crop around the action point


def _new_id(prefix: str, nbytes: int = 6) -> str:
    return f"{prefix}{secrets.token_hex(nbytes)}"


def _kind(value: Any) -> str | None:
    """Enum or str -> upper-case str."""
    if value is None:
        return None
    value = getattr(value, "value", value)
    return str(value).upper()


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


@dataclass
class _Decision:
    """What to do with an action after a report (computed before the single conditional write)."""

    state: str
    outcome: str | None
    pause: str | None = None
    pause_detail: dict[str, Any] = field(default_factory=dict)
    resend: bool = False
    insert: dict[str, Any] | None = None  # an action to insert right after this one (dialog click)
    warning: str | None = None
    verdict: dict[str, Any] | None = None
    evidence: list[dict[str, Any]] = field(default_factory=list)


class ReplayService:
    """Domain service; `services` is the composition root (read lazily: validator, dialogs, notifier...)."""

    def __init__(
        self, store: ReplayStore, services: Any, *, config: m.ReplayConfig | None = None, thresholds: Any = None
    ) -> None:
        self.store = store
        self.services = services
        self.config = config or m.ReplayConfig.from_settings(services.settings)
        self.time = m.ServerTime(services.clock)
        self.memory = TargetMemory(store, self.time)
        self.resolver = TargetResolver(
            ocr=lambda: getattr(services, "ocr", None),
            memory=self.memory,
            thresholds=thresholds,
            catalog_dir=getattr(services.settings, "catalog_path", None),
            vlm=lambda: getattr(services, "vlm", None),
        )
        self._events: dict[str | None, anyio.Event] = {}

    # --- wake-ups for the long poll -------------------------------------------------------------
    def _event(self, machine_id: str) -> anyio.Event:
        event = self._events.get(machine_id)
        if event is None:
            event = self._events[machine_id] = anyio.Event()
        return event

    def _wake(self, machine_id: str | None) -> None:
        keys = list(self._events) if machine_id is None else [machine_id]
        for key in keys:
            event = self._events.pop(key, None)
            if event is not None:
                event.set()

    def _changed(self, replay_id: str) -> None:
        notifier = getattr(self.services, "notifier", None)
        if notifier is not None:
            notifier.resource_updated(f"rpa://replays/{replay_id}")

    # --- starting ---------------------------------------------------------------------------------
    def plan(self, steps: Sequence[Any], params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Workflow IR steps -> action rows (without replay id). Raises InvalidInput on a bad step."""
        actions: list[dict[str, Any]] = []
        for i, step in enumerate(steps):
            step_d = step.model_dump(mode="json") if hasattr(step, "model_dump") else dict(step)
            action_type = str(step_d.get("action_type") or "")
            if not action_type:
                raise InvalidInput(f"step {i} has no action_type", field=f"steps[{i}].action_type")
            target = step_d.get("target")
            if isinstance(target, str):
                target = {"label": target}
            step_params = _substitute(dict(step_d.get("params") or {}), params or {})
            idempotent = bool(
                step_params.pop("idempotent", None)
                or action_type in m.IDEMPOTENT_ACTIONS
                or step_params.pop("verifiable", None)
            )
            server_side = action_type in m.SERVER_SIDE_ACTIONS and step_params.get("executor") != "agent"
            actions.append(
                {
                    "seq": float(i),
                    "step_index": int(step_d.get("index", i)),
                    "intent": step_d.get("intent"),
                    "action_type": action_type,
                    "target": target,
                    "params": step_params,
                    "expected": {
                        "window_before": step_d.get("expected_window_before"),
                        "window_after": step_d.get("expected_window_after"),
                        "expected_modals": step_d.get("expected_modals") or [],
                        "wait_after_ms": step_d.get("wait_after_ms") or 0,
                    },
                    "idempotent": int(idempotent),
                    "success_strict": int(bool(step_d.get("success_strict"))),
                    "server_side": int(server_side),
                    "max_resends": 0 if server_side else m.max_resends_for(action_type, self.config.max_resends),
                }
            )
        if not actions:
            raise InvalidInput("the workflow has no steps", field="competence")
        return actions

    async def start(
        self,
        *,
        steps: Sequence[Any],
        competence: str,
        version: int | None,
        machine_id: str | None,
        params: Mapping[str, Any] | None = None,
        created_by: str | None = None,
    ) -> str:
        planned = self.plan(steps, params)
        now = self.time.now()
        replay_id = _new_id("rp_")
        rows = []
        for i, action in enumerate(planned):
            rows.append(
                {
                    **action,
                    "replay_id": replay_id,
                    "action_id": f"{replay_id[3:11]}-{i:03d}",
                    "state": m.PENDING,
                    "updated_at": now,
                }
            )
        self.store.insert_replay(
            {
                "replay_id": replay_id,
                "competence": competence,
                "version": version,
                "machine_id": machine_id,
                "state": m.RUNNING,
                "params": dict(params or {}),
                "variables": dict(params or {}),
                "steps_total": len(rows),
                "created_by": created_by,
                "created_at": now,
                "updated_at": now,
            },
            rows,
        )
        m.log_event(
            "replay_started",
            replay_id=replay_id,
            competence=competence,
            version=version,
            machine_id=machine_id,
            steps=len(rows),
        )
        self._advance(replay_id)
        self._wake(machine_id)
        self._changed(replay_id)
        return replay_id

    # --- dispatch (long poll) ---------------------------------------------------------------------
    async def next_action(self, machine_id: str, *, wait: float = 0.0, protocol_version: int = 1) -> NextAction | None:
        """The action for this machine, as soon as one is ready (or None after `wait` seconds)."""
        deadline = anyio.current_time() + max(0.0, wait)
        while True:
            event = self._event(machine_id)  # taken BEFORE the check: a wake-up in between is not lost
            action = self._claim(machine_id, protocol_version)
            if action is not None:
                return action
            remaining = deadline - anyio.current_time()
            if remaining <= 0:
                return None
            with anyio.move_on_after(remaining):
                await event.wait()

    def _claim(self, machine_id: str, protocol_version: int) -> NextAction | None:
        now = self.time.now()
        with self.store.atomic():
            inflight = self.store.inflight_for_machine(machine_id)
            if inflight:
                a = inflight[0]
                if now <= (a["not_after"] or 0) and a["journal"] != m.J_STARTED:
                    # a retried poll: the same action and the same attempt, never a second action
                    m.log_event(
                        "dispatch_repeat",
                        replay_id=a["replay_id"],
                        action_id=a["action_id"],
                        attempt_id=a["attempt_id"],
                        machine_id=machine_id,
                    )
                    return self._wire(a, now)
                return None  # one in flight per machine: nothing else until it is reported or orphaned
            for replay in self.store.runnable_replays(machine_id):
                a = self.store.first_open_action(replay["replay_id"])
                if a is None or a["server_side"]:
                    continue
                claimable = a["state"] == m.PENDING or (a["state"] == m.ORPHAN and a["resend_allowed"])
                if not claimable:
                    continue
                attempt_id = _new_id("at_")
                is_resend = a["dispatches"] > 0
                not_after = now + self.config.orphan_timeout_s
                won = self.store.update_action(
                    a["replay_id"],
                    a["action_id"],
                    expect_states=(a["state"],),
                    expect_attempt=a["attempt_id"],
                    now=now,
                    state=m.DISPATCHED,
                    attempt_id=attempt_id,
                    dispatches=a["dispatches"] + 1,
                    resends=a["resends"] + (1 if a["state"] == m.ORPHAN else 0),
                    resend_allowed=0,
                    journal=m.J_NONE,
                    protocol_version=protocol_version,
                    machine_id=machine_id,
                    dispatched_at=now,
                    lease_until=now + self.config.orphan_timeout_s,
                    not_after=not_after,
                )
                if not won:
                    continue
                if replay["machine_id"] is None:
                    self.store.update_replay(
                        replay["replay_id"], expect_states=(m.RUNNING,), now=now, machine_id=machine_id
                    )
                if a["attempt_id"]:
                    self.store.set_attempt_status(a["attempt_id"], "fenced")
                self.store.add_attempt(
                    {
                        "attempt_id": attempt_id,
                        "replay_id": a["replay_id"],
                        "action_id": a["action_id"],
                        "n": a["dispatches"] + 1,
                        "machine_id": machine_id,
                        "dispatched_at": now,
                        "status": "dispatched",
                    }
                )
                claimed = self.store.get_action(a["replay_id"], a["action_id"])
                assert claimed is not None
                m.log_event(
                    "dispatch",
                    replay_id=a["replay_id"],
                    action_id=a["action_id"],
                    attempt_id=attempt_id,
                    machine_id=machine_id,
                    action_type=a["action_type"],
                    resend=is_resend,
                    not_after=not_after,
                    protocol_version=protocol_version,
                    strict=bool(a["success_strict"]),
                    idempotent=bool(a["idempotent"]),
                )
                m.log_event(
                    "transition",
                    replay_id=a["replay_id"],
                    action_id=a["action_id"],
                    attempt_id=attempt_id,
                    **{"from": a["state"], "to": m.DISPATCHED},
                )
                self._changed(a["replay_id"])
                return self._wire(claimed, now)
        return None

    def _wire(self, a: dict[str, Any], now: float) -> NextAction:
        total = self.store.get_replay(a["replay_id"])
        target = a["target"]
        wire_target = None
        if isinstance(target, dict):
            rel_x = target.get("rel_x", target.get("x_pct"))
            rel_y = target.get("rel_y", target.get("y_pct"))
            wire_target = WireTarget(
                label=target.get("label") or target.get("by_text"),
                x=target.get("x") if isinstance(target.get("x"), int) else None,
                y=target.get("y") if isinstance(target.get("y"), int) else None,
                method=target.get("method"),
                rel_x=float(rel_x) if isinstance(rel_x, int | float) else None,
                rel_y=float(rel_y) if isinstance(rel_y, int | float) else None,
                window_title=target.get("window_title") or a["expected"].get("window_before"),
                spec=target,
            )
        return NextAction(
            replay_id=a["replay_id"],
            action_id=a["action_id"],
            attempt_id=a["attempt_id"],
            not_after=a["not_after"],
            server_now=now,
            action_type=a["action_type"],
            target=wire_target,
            params=a["params"],
            protocol_version=PROTOCOL_VERSION,
            step_index=a["step_index"],
            steps_total=total["steps_total"] if total else 0,
            idempotent=bool(a["idempotent"]),
            success_strict=bool(a["success_strict"]),
            resend=max(0, a["dispatches"] - 1),
        )

    # --- fencing ----------------------------------------------------------------------------------
    def _fence(self, replay_id: str, action_id: str, attempt_id: str) -> tuple[str, dict[str, Any] | None, str]:
        """accepted | late | unknown, the action row, and why."""
        a = self.store.get_action(replay_id, action_id)
        if a is None:
            return "unknown", None, "no such replay or action"
        if a["attempt_id"] == attempt_id:
            if a["state"] in (m.DISPATCHED, m.ORPHAN):
                return "accepted", a, ""
            return "late", a, f"the action is already {a['state']}"
        if self.store.get_attempt(attempt_id) is not None:
            return "late", a, "a newer attempt of this action was dispatched (fenced)"
        replay = self.store.get_replay(replay_id)
        if replay is not None and replay["state"] in m.TERMINAL_REPLAY_STATES and a["dispatches"]:
            return "late", a, "the replay is finished"
        return "unknown", a, "this attempt was never dispatched"

    def _replay_state(self, replay_id: str) -> str | None:
        r = self.store.get_replay(replay_id)
        return r["state"] if r else None

    def _record(self, kind: str, msg: Any, status: str, body: dict[str, Any] | None = None) -> bool:
        return self.store.add_report(
            {
                "replay_id": msg.replay_id,
                "action_id": msg.action_id,
                "attempt_id": msg.attempt_id,
                "kind": kind,
                "status": status,
                "received_at": self.time.now(),
                "body": body or {},
            }
        )

    # --- receipt / start / heartbeat -----------------------------------------------------------------
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
                self._record(kind, msg, status, {"reason": reason, **(body or {})})
                m.log_event(
                    f"{kind}_{status}",
                    replay_id=msg.replay_id,
                    action_id=msg.action_id,
                    attempt_id=msg.attempt_id,
                    reason=reason,
                )
                return ReportAck(
                    status=status,
                    replay_state=self._replay_state(msg.replay_id),  # type: ignore[arg-type]
                    proceed=False,
                    reason=reason,
                )
            replay_state = self._replay_state(a["replay_id"])
            lease = now + self.config.orphan_timeout_s
            if kind == "receipt":
                if a["journal"]:
                    self._record(kind, msg, "duplicate")
                    return ReportAck(
                        status="duplicate",
                        replay_state=replay_state,
                        proceed=a["journal"] != m.J_STARTED,  # type: ignore[arg-type]
                        not_after=a["not_after"],
                    )
                self.store.update_action(
                    a["replay_id"],
                    a["action_id"],
                    expect_states=(a["state"],),
                    expect_attempt=msg.attempt_id,
                    now=now,
                    journal=m.J_RECEIVED,
                    lease_until=max(lease, a["lease_until"] or 0),
                )
                self.store.set_attempt_status(msg.attempt_id, "received")
                self._record(kind, msg, "accepted")
                m.log_event("receipt", replay_id=a["replay_id"], action_id=a["action_id"], attempt_id=msg.attempt_id)
                return ReportAck(status="accepted", replay_state=replay_state, not_after=a["not_after"])  # type: ignore[arg-type]
            if kind == "start":
                if a["journal"] == m.J_STARTED:
                    self._record(kind, msg, "duplicate")
                    return ReportAck(
                        status="duplicate",
                        replay_state=replay_state,
                        proceed=False,  # type: ignore[arg-type]
                        reason="this attempt was already started once",
                        not_after=a["not_after"],
                    )
                refuse = None
                if now > a["not_after"]:
                    refuse = "expired: not_after has passed"
                elif replay_state != m.RUNNING:
                    refuse = f"the replay is {replay_state}"
                if refuse:
                    self._record(kind, msg, "late", {"reason": refuse})
                    m.log_event(
                        "start_refused",
                        replay_id=a["replay_id"],
                        action_id=a["action_id"],
                        attempt_id=msg.attempt_id,
                        reason=refuse,
                    )
                    return ReportAck(
                        status="late",
                        replay_state=replay_state,
                        proceed=False,
                        reason=refuse,  # type: ignore[arg-type]
                        not_after=a["not_after"],
                    )
                self.store.update_action(
                    a["replay_id"],
                    a["action_id"],
                    expect_states=(a["state"],),
                    expect_attempt=msg.attempt_id,
                    now=now,
                    state=m.DISPATCHED,
                    journal=m.J_STARTED,
                    resend_allowed=0,
                    lease_until=max(lease, a["lease_until"] or 0),
                )
                self.store.set_attempt_status(msg.attempt_id, "started")
                self._record(kind, msg, "accepted")
                m.log_event("start", replay_id=a["replay_id"], action_id=a["action_id"], attempt_id=msg.attempt_id)
                return ReportAck(status="accepted", replay_state=replay_state, not_after=a["not_after"])  # type: ignore[arg-type]
            # heartbeat: extends the lease of the current attempt (re-adopts it if the watchdog orphaned it
            # and nothing was resent yet)
            if a["state"] == m.ORPHAN and not a["resend_allowed"]:
                self._record(kind, msg, "late", {"reason": "the replay paused on this action"})
                return ReportAck(
                    status="late",
                    replay_state=replay_state,
                    proceed=True,  # type: ignore[arg-type]
                    reason="outcome already escalated to a person; still send the result",
                )
            self.store.update_action(
                a["replay_id"],
                a["action_id"],
                expect_states=(a["state"],),
                expect_attempt=msg.attempt_id,
                now=now,
                state=m.DISPATCHED,
                resend_allowed=0,
                lease_until=lease,
            )
            self._record(kind, msg, "accepted", body)
            m.log_event(
                "heartbeat",
                replay_id=a["replay_id"],
                action_id=a["action_id"],
                attempt_id=msg.attempt_id,
                lease_until=lease,
            )
            return ReportAck(status="accepted", replay_state=replay_state, not_after=a["not_after"])  # type: ignore[arg-type]

    # --- report -------------------------------------------------------------------------------------
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
            and a["attempt_id"] == msg.attempt_id
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
                replay_state=self._replay_state(msg.replay_id),  # type: ignore[arg-type]
                reason=reason,
            )
        replay = self.store.get_replay(a["replay_id"])
        assert replay is not None
        # Heavy work (decode, validator, dialog resolver) happens outside the write lock; the
        # write below is conditional on the attempt being still current, so a racing watchdog
        # or a concurrent duplicate cannot both win.
        decision, screen = await anyio.to_thread.run_sync(self._decide, a, replay, msg)
        now = self.time.now()
        with self.store.atomic():
            if not self.store.add_report(
                {
                    "replay_id": msg.replay_id,
                    "action_id": msg.action_id,
                    "attempt_id": msg.attempt_id,
                    "kind": "result",
                    "status": "accepted",
                    "received_at": now,
                    "body": body,
                }
            ):
                return ReportAck(
                    status="duplicate",
                    replay_state=replay["state"],  # type: ignore[arg-type]
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
                changes["resends"] = a["resends"] + 1
            won = self.store.update_action(
                a["replay_id"],
                a["action_id"],
                expect_states=(m.DISPATCHED, m.ORPHAN),
                expect_attempt=msg.attempt_id,
                now=now,
                **changes,
            )
            if not won:
                raise Conflict("the action changed while its report was processed; send the report again")
            self.store.set_attempt_status(msg.attempt_id, "reported")
            if screen is not None:
                self.store.update_replay(
                    a["replay_id"],
                    expect_states=(replay["state"],),
                    now=now,
                    last_screenshot=screen,
                    last_screenshot_at=now,
                    last_window_title=msg.window_title,
                )
            if decision.insert is not None:
                nxt = self.store.next_seq_after(a["replay_id"], a["seq"])
                seq = (a["seq"] + nxt) / 2 if nxt is not None else a["seq"] + 0.5
                self.store.insert_action(
                    {
                        **decision.insert,
                        "replay_id": a["replay_id"],
                        "seq": seq,
                        "step_index": a["step_index"],
                        "state": m.PENDING,
                        "updated_at": now,
                    }
                )
            if decision.outcome == "extracted" and msg.output is not None:
                variables = dict(replay.get("variables") or {})
                variables[str(a["params"].get("variable") or a["action_id"])] = msg.output
                self.store.update_replay(a["replay_id"], expect_states=(replay["state"],), now=now, variables=variables)
            m.log_event(
                "transition",
                replay_id=a["replay_id"],
                action_id=a["action_id"],
                attempt_id=msg.attempt_id,
                outcome=decision.outcome,
                **{"from": a["state"], "to": decision.state},
            )
            if decision.pause:
                self._pause(
                    a["replay_id"], decision.pause, {"action_id": a["action_id"], **decision.pause_detail}, now=now
                )
            elif (
                decision.state == m.ACKED
                and replay["state"] == m.PAUSED
                and replay["pause_reason"] == m.OUTCOME_UNKNOWN
                and (replay["pause_detail"] or {}).get("action_id") == a["action_id"]
            ):
                # the unknown outcome became known (a late report of the same attempt): the cause is gone
                self.store.update_replay(
                    a["replay_id"],
                    expect_states=(m.PAUSED,),
                    now=now,
                    state=m.RUNNING,
                    pause_reason=None,
                    pause_detail=None,
                )
                m.log_event(
                    "replay_resumed",
                    replay_id=a["replay_id"],
                    action_id=a["action_id"],
                    attempt_id=msg.attempt_id,
                    reason="outcome of the unknown action reported",
                )
            self._memory_feedback(a, msg, decision)
        self._advance(a["replay_id"])
        self._wake(a["machine_id"])
        self._changed(a["replay_id"])
        return ReportAck(status="accepted", replay_state=self._replay_state(a["replay_id"]))  # type: ignore[arg-type]

    def _decide(self, a: dict[str, Any], replay: dict[str, Any], msg: ActionResult) -> tuple[_Decision, bytes | None]:
        """Pure decision from a current-attempt report (no writes)."""
        cancelled = replay["state"] in m.TERMINAL_REPLAY_STATES
        screen_bytes = None
        if msg.screenshot_after:
            try:
                screen_bytes = decode_base64(msg.screenshot_after, field="screenshot_after")
            except RpaError:
                screen_bytes = None
        if not msg.executed:
            # No input was injected: safe to dispatch again later (new attempt), it never counts as done.
            if msg.system_dialog is not None:
                return _Decision(
                    m.PENDING if not cancelled else m.ABANDONED,
                    "not_executed",
                    pause=m.SYSTEM_DIALOG,
                    pause_detail=_sysdlg(msg),
                ), screen_bytes
            if msg.human_takeover:
                return _Decision(
                    m.PENDING if not cancelled else m.ABANDONED, "not_executed", pause=m.HUMAN_TAKEOVER
                ), screen_bytes
            if cancelled:
                return _Decision(m.ABANDONED, "not_executed"), screen_bytes
            if a["resends"] < a["max_resends"] and msg.error_retryable is not False:
                return _Decision(m.PENDING, "not_executed", warning=msg.error), screen_bytes
            return _Decision(
                m.ABANDONED,
                "not_executed",
                pause=m.PAUSED_NEED_HELP,
                pause_detail={"error": msg.error or "the agent did not execute the action"},
            ), screen_bytes
        if cancelled:
            # cancel never interrupts an action in flight; its report is recorded when it comes
            return _Decision(m.ACKED, "success_after_cancel" if msg.success else "failed_after_cancel"), screen_bytes
        if msg.system_dialog is not None:
            return _Decision(m.HELD, "system_dialog", pause=m.SYSTEM_DIALOG, pause_detail=_sysdlg(msg)), screen_bytes
        if not msg.success:
            if msg.error_retryable is False:
                return _Decision(
                    m.HELD, "failed", pause=m.PAUSED_NEED_HELP, pause_detail={"error": msg.error, "retryable": False}
                ), screen_bytes
            if a["resends"] < a["max_resends"]:
                return _Decision(m.PENDING, "failed_retrying", warning=msg.error), screen_bytes
            return _Decision(
                m.ABANDONED,
                "failed",
                pause=m.PAUSED_NEED_HELP,
                pause_detail={"error": msg.error, "resends": a["resends"]},
            ), screen_bytes
        decision = self._verify(a, replay, msg, screen_bytes)
        if msg.human_takeover and decision.pause is None:
            decision.pause = m.HUMAN_TAKEOVER
        return decision, screen_bytes

    # --- verification (supervision loop) --------------------------------------------------------
    def _verify(
        self, a: dict[str, Any], replay: dict[str, Any], msg: ActionResult, after_bytes: bytes | None
    ) -> _Decision:
        validator = getattr(self.services, "validator", None)
        if not self.config.validator_enabled or validator is None:
            m.log_event(
                "verify",
                replay_id=a["replay_id"],
                action_id=a["action_id"],
                attempt_id=msg.attempt_id,
                agent_success=True,
                final="UNVERIFIED",
                reason="validator absent or switched off",
            )
            return _Decision(
                m.HELD,
                "unverified",
                pause=m.UNVERIFIED,
                pause_detail={"why": "the validator is switched off or absent: nothing verified the action's effect"},
            )
        if not (msg.screenshot_before and after_bytes):
            m.log_event(
                "verify",
                replay_id=a["replay_id"],
                action_id=a["action_id"],
                attempt_id=msg.attempt_id,
                agent_success=True,
                final="UNVERIFIED",
                reason="no screenshots",
            )
            return _Decision(
                m.HELD,
                "unverified",
                pause=m.UNVERIFIED,
                pause_detail={"why": "the agent sent no before/after screenshots"},
            )
        try:
            before = decode_image(
                decode_base64(msg.screenshot_before, field="screenshot_before"),
                max_pixels=self.config.max_image_pixels,
                field="screenshot_before",
            )
            after = decode_image(after_bytes, max_pixels=self.config.max_image_pixels, field="screenshot_after")
        except RpaError as exc:
            return _Decision(m.HELD, "unverified", pause=m.UNVERIFIED, pause_detail={"why": exc.message})
        target = a["target"] if isinstance(a["target"], dict) else {}
        point = msg.actual_position
        bbox = target.get("bbox")
        if not bbox and point:
            bbox = [point[0] - 60, point[1] - 20, 120, 40]
        expected_text = a["params"].get("text") if a["action_type"] in ("type_text", "extract_text") else None
        vt, ve, vo = _validator_args(
            label=target.get("label") or target.get("by_text"),
            bbox=bbox,
            after_shape=after.shape,
            window_title=a["expected"].get("window_after"),
            text=expected_text,
            observed={
                "window_title_before": msg.window_title_before,
                "window_title_after": msg.window_title,
                "process_after": msg.process_after,
            },
        )
        try:
            verdict = validator.validate(a["action_type"], before, after, vt, ve, vo)
        except Exception as exc:
            reason = exc.message if isinstance(exc, RpaError) else repr(exc)
            m.log_event(
                "verify_error",
                replay_id=a["replay_id"],
                action_id=a["action_id"],
                attempt_id=msg.attempt_id,
                error=reason,
            )
            return _Decision(m.HELD, "unverified", pause=m.UNVERIFIED, pause_detail={"why": f"validator: {reason}"})
        kind = _kind(_get(verdict, "verdict"))
        category = _kind(_get(verdict, "failure_category"))
        vdict = {
            "verdict": kind,
            "failure_category": category,
            "confidence": _get(verdict, "confidence"),
            "reason": _get(verdict, "reason"),
            "evidence": _evidence_text(_get(verdict, "evidence")),
        }
        m.log_event(
            "verify",
            replay_id=a["replay_id"],
            action_id=a["action_id"],
            attempt_id=msg.attempt_id,
            agent_success=True,
            final=kind,
            failure_category=category,
            checkers=vdict["evidence"],
        )
        crops = _verdict_crops(verdict) or _crops(after, point, bbox)
        no_change = category == "NO_VISUAL_CHANGE" or (msg.warning or "").lower() == "no_screen_change"
        if kind == "SUCCESS" and not no_change:
            return _Decision(m.ACKED, "success", verdict=vdict)
        if (no_change and kind != "FAILURE") or category == "NO_VISUAL_CHANGE":
            if not a["success_strict"]:
                return _Decision(m.ACKED, "success_with_warning", warning="no_screen_change", verdict=vdict)
            if a["resends"] < a["max_resends"]:
                return _Decision(
                    m.PENDING, "no_change_retrying", warning="no_screen_change", verdict=vdict, evidence=crops
                )
            return _Decision(
                m.HELD,
                "failed",
                pause=m.VALIDATION_FAILED,
                verdict=vdict,
                evidence=crops,
                pause_detail={"failure_category": "NO_VISUAL_CHANGE", "strict": True},
            )
        if kind == "FAILURE" and category == "UNEXPECTED_DIALOG":
            return self._dialog(a, msg, before, after, vdict, crops)
        if kind == "FAILURE":
            return _Decision(
                m.HELD,
                "failed",
                pause=m.VALIDATION_FAILED,
                verdict=vdict,
                evidence=crops,
                pause_detail={"failure_category": category, "agent_claimed_success": True},
            )
        return _Decision(
            m.HELD,
            "uncertain",
            pause=m.UNVERIFIED,
            verdict=vdict,
            evidence=crops,
            pause_detail={"why": "the validator is not sure", "verdict": kind},
        )

    def _dialog(
        self,
        a: dict[str, Any],
        msg: ActionResult,
        before: np.ndarray,
        after: np.ndarray,
        vdict: dict[str, Any],
        crops: list[dict[str, Any]],
    ) -> _Decision:
        resolver = getattr(self.services, "dialogs", None)
        if not self.config.dialog_resolver_enabled or resolver is None:
            return _Decision(
                m.HELD,
                "dialog",
                pause=m.UNEXPECTED_DIALOG,
                verdict=vdict,
                evidence=crops,
                pause_detail={"why": "the dialog resolver is switched off or absent"},
            )
        try:
            res = resolver.resolve(
                after,
                declared_modals=_declared(a["expected"].get("expected_modals")),
                window_title=msg.window_title,
                process=msg.process_after,
                previous=before,
            )
        except Exception as exc:
            return _Decision(
                m.HELD,
                "dialog",
                pause=m.UNEXPECTED_DIALOG,
                verdict=vdict,
                evidence=crops,
                pause_detail={"why": f"dialog resolver error: {exc}"},
            )
        decision = str(_kind(_get(res, "decision")) or "PAUSE").lower()
        dialog_id = _get(res, "dialog_id")
        cls = _get(res, "classification")
        bbox = _get(res, "bbox") or _get(cls, "bbox")
        button = _get(res, "button")
        label = _get(button, "label", button) if button is not None else None
        click_at = _get(res, "click_at")
        buttons = _get(res, "buttons") or _get(cls, "buttons") or []
        detail = {
            "dialog_id": dialog_id,
            "decision": decision,
            "reason": _get(res, "reason"),
            "buttons": [_get(b, "label", b) for b in buttons] or None,
            "button_points": [_button_entry(b) for b in buttons if _get(b, "bbox")] or None,
        }
        crop_b64 = _get(res, "crop_png_base64")
        if crop_b64:
            dcrops = [
                {
                    "label": f"dialog {dialog_id}",
                    "bbox": list(bbox) if bbox else None,
                    "mime_type": "image/png",
                    "data_base64": crop_b64,
                }
            ]
        else:
            dcrops = _crops(after, None, bbox) if bbox else crops
        m.log_event(
            "dialog",
            replay_id=a["replay_id"],
            action_id=a["action_id"],
            attempt_id=msg.attempt_id,
            dialog_id=dialog_id,
            decision=decision,
            button=label,
            click_at=click_at,
        )
        vdict = {**vdict, "dialog": detail}
        if decision == "auto" and click_at:
            insert = {
                "action_id": f"{a['action_id']}-dlg{secrets.token_hex(2)}",
                "intent": f"Answer dialog {dialog_id}",
                "action_type": "dialog_button",
                "target": {
                    "label": label,
                    "x": int(click_at[0]),
                    "y": int(click_at[1]),
                    "method": "dialog_resolver",
                    "dialog_id": dialog_id,
                },
                "params": {},
                "expected": {"expected_modals": []},
                "idempotent": 0,
                "success_strict": 0,
                "server_side": 0,
                "max_resends": self.config.max_resends,
                "origin": "dialog",
            }
            return _Decision(m.ACKED, "success_dialog_auto", verdict=vdict, insert=insert, evidence=dcrops)
        if decision == "skip":
            return _Decision(
                m.ACKED,
                "success_dialog_skipped",
                warning=f"dialog {dialog_id} left open (skip policy)",
                verdict=vdict,
                evidence=dcrops,
            )
        return _Decision(
            m.HELD, "dialog", pause=m.UNEXPECTED_DIALOG, verdict=vdict, evidence=dcrops, pause_detail=detail
        )

    def _memory_feedback(self, a: dict[str, Any], msg: ActionResult, decision: _Decision) -> None:
        target = a["target"] if isinstance(a["target"], dict) else None
        if not target or a["origin"] != "workflow":
            return
        title = target.get("window_title") or a["expected"].get("window_before")
        if decision.outcome == "success" and msg.actual_position:
            self.memory.record_success(title, target, msg.actual_position)
        elif decision.outcome in ("failed", "no_change_retrying") and decision.verdict is not None:
            self.memory.record_failure(title, target)

    # --- server-side actions and completion --------------------------------------------------------
    def _advance(self, replay_id: str) -> None:
        """Run server-side actions at the head of the queue; complete the replay when nothing is open."""
        for _ in range(10_000):
            replay = self.store.get_replay(replay_id)
            if replay is None or replay["state"] != m.RUNNING:
                return
            a = self.store.first_open_action(replay_id)
            now = self.time.now()
            if a is None:
                if self.store.update_replay(
                    replay_id,
                    expect_states=(m.RUNNING,),
                    now=now,
                    state=m.COMPLETED,
                    finished_at=now,
                    pause_reason=None,
                    last_screenshot=None,
                ):
                    purged = self.store.purge_attempts(replay_id)
                    m.log_event("replay_completed", replay_id=replay_id, purged_attempts=purged)
                    self._changed(replay_id)
                return
            if not (a["server_side"] and a["state"] == m.PENDING):
                return
            self._run_server_action(replay, a, now)

    def _run_server_action(self, replay: dict[str, Any], a: dict[str, Any], now: float) -> None:
        outcome, output, error = "failed", None, None
        try:
            if a["action_type"] == "extract_text":
                output = self._extract_text(replay, a)
                outcome = "extracted" if output else "failed"
                error = None if output else "no text found in the region"
            else:
                runner = getattr(self.services, "server_actions", None)
                if runner is None:
                    error = f"no runner for server-side action {a['action_type']}"
                else:
                    output = runner.run(a["action_type"], a["params"], replay.get("variables") or {})
                    outcome = "success"
        except RpaError as exc:
            error = exc.message
        except Exception as exc:
            error = repr(exc)
        attempt_id = _new_id("sv_")
        state = m.ACKED if outcome != "failed" else m.HELD
        with self.store.atomic():
            if not self.store.update_action(
                a["replay_id"],
                a["action_id"],
                expect_states=(m.PENDING,),
                expect_attempt=a["attempt_id"],
                now=now,
                state=state,
                outcome=outcome,
                attempt_id=attempt_id,
                dispatches=a["dispatches"] + 1,
                journal=m.J_DONE,
                error=error,
                result={"output": output},
            ):
                return
            m.log_event(
                "server_action",
                replay_id=a["replay_id"],
                action_id=a["action_id"],
                attempt_id=attempt_id,
                action_type=a["action_type"],
                outcome=outcome,
                error=error,
            )
            if state == m.ACKED:
                variables = dict(replay.get("variables") or {})
                variables[str(a["params"].get("variable") or a["action_id"])] = output
                self.store.update_replay(a["replay_id"], expect_states=(m.RUNNING,), now=now, variables=variables)
            else:
                self._pause(
                    a["replay_id"], m.SERVER_ACTION_FAILED, {"action_id": a["action_id"], "error": error}, now=now
                )

    def _extract_text(self, replay: dict[str, Any], a: dict[str, Any]) -> str | None:
        full = self.store.get_replay(replay["replay_id"])
        data = full.get("last_screenshot") if full else None
        if not data:
            raise PreconditionFailed("no screenshot yet to extract text from")
        image = decode_image(bytes(data), max_pixels=self.config.max_image_pixels, field="last_screenshot")
        ocr = getattr(self.services, "ocr", None)
        if ocr is None:
            raise PreconditionFailed("no OCR engine")
        target = a["target"] if isinstance(a["target"], dict) else {}
        bbox = target.get("bbox") or a["params"].get("bbox")
        if not bbox:
            raise PreconditionFailed("extract_text needs a region (target.bbox): full-frame OCR is not allowed")
        region = crop(image, tuple(int(v) for v in bbox))  # type: ignore[arg-type]
        lines = ocr.read(region)
        return " ".join(line.text for line in lines).strip() or None

    # --- pauses, person's decisions --------------------------------------------------------------
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
            m.log_event(
                "replay_paused", replay_id=replay_id, action_id=detail.get("action_id"), reason=reason, detail=detail
            )
        return won

    async def pause(self, replay_id: str, *, by: str | None = None) -> dict[str, Any]:
        replay = self._require(replay_id)
        if replay["state"] == m.PAUSED:
            return replay
        if replay["state"] != m.RUNNING:
            raise Conflict(
                f"replay {replay_id} is {replay['state']}; only a running replay can be paused", state=replay["state"]
            )
        self._pause(replay_id, m.USER_PAUSE, {"by": by}, now=self.time.now(), from_states=(m.RUNNING,))
        self._changed(replay_id)
        return self._require(replay_id)

    async def cancel(self, replay_id: str, *, by: str | None = None) -> dict[str, Any]:
        replay = self._require(replay_id)
        if replay["state"] in m.TERMINAL_REPLAY_STATES:
            return replay
        now = self.time.now()
        with self.store.atomic():
            if not self.store.update_replay(
                replay_id,
                expect_states=(m.RUNNING, m.PAUSED),
                now=now,
                state=m.CANCELLED,
                finished_at=now,
                last_screenshot=None,
            ):
                return self._require(replay_id)
            n = self.store.abandon_open(replay_id, now=now, outcome="cancelled", keep_inflight=True)
        m.log_event("replay_cancelled", replay_id=replay_id, by=by, abandoned=n)
        self._changed(replay_id)
        return self._require(replay_id)

    async def resume(
        self,
        replay_id: str,
        *,
        screenshot: np.ndarray | None = None,
        window_title: str | None = None,
        by: str | None = None,
    ) -> dict[str, Any]:
        replay = self._require(replay_id)
        if replay["state"] != m.PAUSED:
            raise Conflict(f"replay {replay_id} is {replay['state']}, not paused", state=replay["state"])
        a = self.store.first_open_action(replay_id)
        if a is not None and (a["state"] == m.HELD or (a["state"] == m.ORPHAN and not a["resend_allowed"])):
            raise PreconditionFailed(
                f"action {a['action_id']} needs an answer first (answer_pause: retry, skip, click:<label> or abort)",
                pause_reason=replay["pause_reason"],
            )
        if replay["pause_reason"] == m.HUMAN_TAKEOVER and a is not None:
            self.check_screen_for(replay, a, screenshot, window_title)
        now = self.time.now()
        if not self.store.update_replay(
            replay_id, expect_states=(m.PAUSED,), now=now, state=m.RUNNING, pause_reason=None, pause_detail=None
        ):
            raise Conflict(f"replay {replay_id} changed meanwhile; read its status again")
        m.log_event("replay_resumed", replay_id=replay_id, by=by)
        self._advance(replay_id)
        self._wake(replay["machine_id"])
        self._changed(replay_id)
        return self._require(replay_id)

    def check_screen_for(
        self, replay: dict[str, Any], a: dict[str, Any], screenshot: np.ndarray | None, window_title: str | None
    ) -> Resolution | None:
        """Before resuming after a human takeover: does the screen match what the next action expects?"""
        if screenshot is None:
            data = replay.get("last_screenshot")
            if not data:
                raise PreconditionFailed(
                    "no current screenshot to re-validate the screen before resuming; pass one to resume_replay"
                )
            screenshot = decode_image(bytes(data), max_pixels=self.config.max_image_pixels)
            window_title = window_title or replay.get("last_window_title")
        expected_title = a["expected"].get("window_before")
        if expected_title and window_title and m.screen_signature(expected_title) != m.screen_signature(window_title):
            raise PreconditionFailed(
                f"the screen shows {window_title!r}, the next action expects {expected_title!r}; bring that window "
                "back, then resume",
                expected=expected_title,
                seen=window_title,
            )
        target = a["target"] if isinstance(a["target"], dict) else None
        if target and not a["server_side"] and (target.get("label") or target.get("anchor_png_base64")):
            res = self.resolver.resolve(screenshot, target, window_title=window_title)
            if not res.resolved:
                raise PreconditionFailed(
                    f"the next action's target is not on the screen: {res.reason}", method=res.method
                )
            return res
        return None

    async def answer(self, replay_id: str, decision: str, *, by: str | None = None) -> dict[str, Any]:
        replay = self._require(replay_id)
        decision = decision.strip()
        if decision == "abort":
            return await self.cancel(replay_id, by=by)
        if replay["state"] != m.PAUSED:
            raise Conflict(
                f"replay {replay_id} is {replay['state']}; there is no pause to answer", state=replay["state"]
            )
        a = self.store.first_open_action(replay_id)
        paused_id = (replay["pause_detail"] or {}).get("action_id")
        paused = self.store.get_action(replay_id, paused_id) if paused_id else None
        now = self.time.now()
        with self.store.atomic():
            if paused is not None and paused["state"] in m.TERMINAL_ACTION_STATES:
                # the paused action is already final (abandoned after its resends): it is never changed;
                # retry inserts a fresh copy before what comes next, skip simply goes on
                if decision == "retry":
                    nxt = self.store.next_seq_after(replay_id, paused["seq"])
                    copy = {
                        k: paused[k]
                        for k in (
                            "step_index",
                            "intent",
                            "action_type",
                            "target",
                            "params",
                            "expected",
                            "idempotent",
                            "success_strict",
                            "server_side",
                            "max_resends",
                        )
                    }
                    self.store.insert_action(
                        {
                            **copy,
                            "replay_id": replay_id,
                            "action_id": f"{paused['action_id']}-r{secrets.token_hex(2)}",
                            "seq": (paused["seq"] + nxt) / 2 if nxt is not None else paused["seq"] + 0.5,
                            "origin": "person",
                            "state": m.PENDING,
                            "updated_at": now,
                        }
                    )
                elif decision.startswith("click:"):
                    raise PreconditionFailed("click:<label> answers a dialog pause")
            elif a is None:
                pass
            elif decision == "retry":
                if a["state"] == m.DISPATCHED:
                    raise Conflict("the action is still in flight; wait for its report")
                self.store.update_action(
                    replay_id,
                    a["action_id"],
                    expect_states=(a["state"],),
                    expect_attempt=a["attempt_id"],
                    now=now,
                    state=m.PENDING,
                    resend_allowed=0,
                    outcome=None,
                )
            elif decision == "skip":
                if a["state"] == m.DISPATCHED:
                    raise Conflict("the action is still in flight; wait for its report")
                final = m.ACKED if a["state"] == m.HELD else m.ABANDONED
                self.store.update_action(
                    replay_id,
                    a["action_id"],
                    expect_states=(a["state"],),
                    expect_attempt=a["attempt_id"],
                    now=now,
                    state=final,
                    outcome="skipped_by_person",
                    resend_allowed=0,
                )
            elif decision.startswith("click:"):
                label = decision.partition(":")[2].strip()
                if not label:
                    raise InvalidInput("click:<label> needs a label", field="decision")
                if replay["pause_reason"] != m.UNEXPECTED_DIALOG:
                    raise PreconditionFailed(
                        f"click:<label> answers a dialog pause; this pause is {replay['pause_reason']}"
                    )
                if a["state"] == m.HELD:
                    self.store.update_action(
                        replay_id,
                        a["action_id"],
                        expect_states=(m.HELD,),
                        expect_attempt=a["attempt_id"],
                        now=now,
                        state=m.ACKED,
                        outcome="success_dialog_answered",
                    )
                nxt = self.store.next_seq_after(replay_id, a["seq"])
                seq = (a["seq"] + nxt) / 2 if nxt is not None else a["seq"] + 0.5
                self.store.insert_action(
                    {
                        "replay_id": replay_id,
                        "action_id": f"{a['action_id']}-ans{secrets.token_hex(2)}",
                        "seq": seq if a["state"] == m.HELD else a["seq"] - 0.001,
                        "step_index": a["step_index"],
                        "intent": f"Click '{label}' (answer given by a person)",
                        "action_type": "dialog_button",
                        "target": {"label": label, **_button_point(replay, label)},
                        "params": {},
                        "expected": {"expected_modals": []},
                        "idempotent": 0,
                        "success_strict": 0,
                        "server_side": 0,
                        "max_resends": self.config.max_resends,
                        "origin": "person",
                        "state": m.PENDING,
                        "updated_at": now,
                    }
                )
            else:
                raise InvalidInput("decision must be click:<label>, skip, retry or abort", field="decision")
            self.store.update_replay(
                replay_id, expect_states=(m.PAUSED,), now=now, state=m.RUNNING, pause_reason=None, pause_detail=None
            )
        m.log_event(
            "pause_answered",
            replay_id=replay_id,
            action_id=a["action_id"] if a else None,
            attempt_id=a["attempt_id"] if a else None,
            decision=decision,
            by=by,
        )
        self._advance(replay_id)
        self._wake(replay["machine_id"])
        self._changed(replay_id)
        return self._require(replay_id)

    # --- watchdog ------------------------------------------------------------------------------
    def scan_once(self) -> int:
        """Orphan every expired lease and decide its fate. Safe when several scanners run at once."""
        now = self.time.now()
        handled = 0
        for row in self.store.expired_leases(now):
            woke = None
            with self.store.atomic():
                a = self.store.get_action(row["replay_id"], row["action_id"])
                if a is None or a["state"] != m.DISPATCHED or a["attempt_id"] != row["attempt_id"]:
                    continue
                if (a["lease_until"] or 0) >= now:
                    continue  # extended by a heartbeat since the listing
                if not self.store.update_action(
                    a["replay_id"],
                    a["action_id"],
                    expect_states=(m.DISPATCHED,),
                    expect_attempt=a["attempt_id"],
                    now=now,
                    state=m.ORPHAN,
                    resend_allowed=0,
                ):
                    continue  # another watchdog (or a report) won
                handled += 1
                self.store.set_attempt_status(a["attempt_id"], "orphaned")
                m.log_event(
                    "transition",
                    replay_id=a["replay_id"],
                    action_id=a["action_id"],
                    attempt_id=a["attempt_id"],
                    journal=a["journal"] or "none",
                    **{"from": m.DISPATCHED, "to": m.ORPHAN},
                )
                replay = self.store.get_replay(a["replay_id"])
                assert replay is not None
                if replay["state"] in m.TERMINAL_REPLAY_STATES:
                    self.store.update_action(
                        a["replay_id"],
                        a["action_id"],
                        expect_states=(m.ORPHAN,),
                        expect_attempt=a["attempt_id"],
                        now=now,
                        state=m.ABANDONED,
                        outcome=a["outcome"] or "no_report_after_cancel",
                    )
                    continue
                may_have_run = a["journal"] == m.J_STARTED or (a["protocol_version"] < 2)
                if may_have_run and not a["idempotent"]:
                    self._pause(
                        a["replay_id"],
                        m.OUTCOME_UNKNOWN,
                        {
                            "action_id": a["action_id"],
                            "attempt_id": a["attempt_id"],
                            "why": "started and never reported"
                            if a["journal"] == m.J_STARTED
                            else "a v1 agent (no receipt/start acks) never reported: it may have executed",
                        },
                        now=now,
                    )
                    m.log_event(
                        "outcome_unknown",
                        replay_id=a["replay_id"],
                        action_id=a["action_id"],
                        attempt_id=a["attempt_id"],
                    )
                elif a["resends"] >= a["max_resends"]:
                    self.store.update_action(
                        a["replay_id"],
                        a["action_id"],
                        expect_states=(m.ORPHAN,),
                        expect_attempt=a["attempt_id"],
                        now=now,
                        state=m.ABANDONED,
                        outcome="abandoned_max_resends",
                    )
                    self._pause(
                        a["replay_id"],
                        m.PAUSED_NEED_HELP,
                        {
                            "action_id": a["action_id"],
                            "resends": a["resends"],
                            "why": f"no report after {a['dispatches']} dispatches",
                        },
                        now=now,
                    )
                    m.log_event(
                        "abandoned",
                        replay_id=a["replay_id"],
                        action_id=a["action_id"],
                        attempt_id=a["attempt_id"],
                        resends=a["resends"],
                    )
                else:
                    self.store.update_action(
                        a["replay_id"],
                        a["action_id"],
                        expect_states=(m.ORPHAN,),
                        expect_attempt=a["attempt_id"],
                        now=now,
                        resend_allowed=1,
                    )
                    m.log_event(
                        "resend_scheduled",
                        replay_id=a["replay_id"],
                        action_id=a["action_id"],
                        attempt_id=a["attempt_id"],
                        resends=a["resends"] + 1,
                        reason="never started" if not may_have_run else "idempotent",
                    )
                    woke = a["machine_id"]
            self._wake(woke)
            self._changed(row["replay_id"])
        return handled

    # --- reading --------------------------------------------------------------------------------
    def _require(self, replay_id: str) -> dict[str, Any]:
        replay = self.store.get_replay(replay_id)
        if replay is None:
            raise NotFound(f"no replay {replay_id!r}", replay_id=replay_id)
        return replay

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


# --- watchdog loop ---------------------------------------------------------------------------------
async def run_watchdog(service: ReplayService, stop_event: anyio.Event) -> None:
    """Scan for orphans every `scan_interval_s` until `stop_event` is set (started by the app lifespan)."""
    if not service.config.watchdog_enabled:
        return
    interval = service.config.scan_interval_s
    while not stop_event.is_set():
        try:
            service.scan_once()
        except Exception as exc:
            m.log_event("watchdog_error", replay_id=None, error=repr(exc))
        with anyio.move_on_after(interval):
            await stop_event.wait()


# --- helpers -----------------------------------------------------------------------------------------
def _substitute(params: dict[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    def sub(value: Any) -> Any:
        if isinstance(value, str):
            for key, val in values.items():
                value = value.replace("{{" + str(key) + "}}", str(val))
            return value
        if isinstance(value, dict):
            return {k: sub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [sub(v) for v in value]
        return value

    return sub(params)


def _report_body(msg: ActionResult) -> dict[str, Any]:
    """What is kept of a report (screenshots are not stored in the history, crops are)."""
    body = msg.model_dump(exclude={"screenshot_before", "screenshot_after", "protocol_version"}, exclude_none=True)
    body["had_screenshots"] = [bool(msg.screenshot_before), bool(msg.screenshot_after)]
    return body


def _sysdlg(msg: ActionResult) -> dict[str, Any]:
    assert msg.system_dialog is not None
    return {
        "system_dialog": msg.system_dialog.model_dump(exclude_none=True),
        "why": "system dialogs are never answered automatically; no input was injected",
    }


def _evidence_text(evidence: Any) -> list[Any] | None:
    if not evidence:
        return None
    out = []
    for item in evidence:
        if hasattr(item, "checker") and hasattr(item, "score"):
            item = {k: getattr(item, k, None) for k in ("checker", "signal", "score", "detail", "duration_ms")}
        elif hasattr(item, "model_dump"):
            item = item.model_dump(mode="json")
        elif not isinstance(item, dict | str | int | float):
            item = str(item)
        if isinstance(item, dict):
            item = {k: v for k, v in item.items() if not (isinstance(v, str) and len(v) > 2000)}
        out.append(item)
    return out


def _crops(image: np.ndarray, point: Sequence[int] | None, bbox: Sequence[int] | None) -> list[dict[str, Any]]:
    """One client-sized PNG crop of the region that matters (action point or bbox)."""
    h, w = image.shape[:2]
    if bbox:
        x, y, bw, bh = (int(v) for v in bbox[:4])
        box = (x - 20, y - 20, bw + 40, bh + 40)
    elif point:
        bw, bh = EVIDENCE_BOX
        box = (int(point[0]) - bw // 2, int(point[1]) - bh // 2, bw, bh)
    else:
        return []
    x, y, bw, bh = box
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(w, x + bw), min(h, y + bh)
    if x1 <= x0 or y1 <= y0:
        return []
    try:
        data = encode_png_base64(image[y0:y1, x0:x1])
    except RpaError:
        return []
    return [
        {
            "label": "screen after the action, around the target",
            "bbox": [x0, y0, x1 - x0, y1 - y0],
            "mime_type": "image/png",
            "data_base64": data,
        }
    ]


def _validator_args(
    *,
    label: str | None,
    bbox: Sequence[int] | None,
    after_shape: tuple[int, ...],
    window_title: str | None,
    text: str | None,
    observed: dict[str, Any],
) -> tuple[Any, Any, Any]:
    """Target/Expected/Observed of the validation area (dicts if that area is not installed)."""
    if bbox:
        h, w = after_shape[:2]
        x, y, bw, bh = (int(v) for v in bbox[:4])
        x0, y0 = max(0, min(x, w - 1)), max(0, min(y, h - 1))
        bbox = (x0, y0, max(1, min(bw, w - x0)), max(1, min(bh, h - y0)))
    try:
        from rpa_mcp.validation.model import Expected, Observed, Target
    except ImportError:  # pragma: no cover - the validation area is absent
        return ({"label": label, "bbox": bbox}, {"window_title": window_title, "text": text}, observed)
    return (
        Target(label=label, bbox=tuple(bbox) if bbox else None),  # type: ignore[arg-type]
        Expected(window_title=window_title, text=text),
        Observed(**observed),
    )


def _verdict_crops(verdict: Any) -> list[dict[str, Any]]:
    out = []
    for c in _get(verdict, "crops") or []:
        data = _get(c, "data_base64")
        if data:
            bbox = _get(c, "bbox")
            out.append(
                {
                    "label": _get(c, "label", "evidence"),
                    "bbox": list(bbox) if bbox else None,
                    "mime_type": _get(c, "mime_type", "image/png"),
                    "data_base64": data,
                }
            )
    return out


def _declared(items: Any) -> list[Any]:
    """Workflow `expected_modals` -> the dialog area's DeclaredModal objects (bare ids carry no policy)."""
    out: list[Any] = []
    try:
        from rpa_mcp.dialogs import DeclaredModal
    except ImportError:  # pragma: no cover
        return [i for i in items or [] if isinstance(i, dict)]
    for item in items or []:
        if isinstance(item, dict):
            try:
                out.append(DeclaredModal.model_validate(item))
            except (ValueError, RpaError):
                continue  # an invalid declaration is ignored here (it can only make things less strict)
    return out


def _button_entry(button: Any) -> dict[str, Any]:
    x, y, w, h = (int(v) for v in _get(button, "bbox"))
    return {"label": _get(button, "label"), "click_at": [x + w // 2, y + h // 2]}


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


def _button_point(replay: dict[str, Any], label: str) -> dict[str, Any]:
    """The click point of a dialog button the resolver reported, when the pause detail has it."""
    detail = replay.get("pause_detail") or {}
    for button in detail.get("button_points") or []:
        if str(button.get("label", "")).strip().lower() == label.lower() and button.get("click_at"):
            return {"x": int(button["click_at"][0]), "y": int(button["click_at"][1])}
    return {}


__all__ = ["ReplayService", "run_watchdog"]
