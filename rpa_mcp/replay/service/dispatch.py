"""Dispatch: the agent's long poll, claiming an action (one in flight per machine), its wire form."""

from __future__ import annotations

import anyio

from rpa_mcp.replay import model as m
from rpa_mcp.replay.outcomes import is_irreversible
from rpa_mcp.replay.rows import ActionRow, AttemptRow
from rpa_mcp.replay.service.core import ReplayCore, new_id
from rpa_mcp.replay.wire import PROTOCOL_VERSION, NextAction, WireTarget

# Steps whose input is the keyboard: with no target of their own they still name the window their keys are
# for (the agent types nothing into another window in front: a dialog that came late, another program).
KEYBOARD_STEPS = frozenset(
    {"type", "type_text", "text", "paste_and_execute", "key", "key_combo", "hotkey", "keys", "keyboard_shortcut"}
    | {"key_press", "save", "new_tab", "close_tab"}
)


class Dispatch(ReplayCore):
    async def next_action(self, machine_id: str, *, wait: float = 0.0, protocol_version: int = 1) -> NextAction | None:
        """The action for this machine, as soon as one is ready (or None after `wait` seconds)."""
        deadline = anyio.current_time() + max(0.0, wait)
        self._polled(machine_id)  # the workstation is connected (what a replay's preflight asks)
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

    def in_flight(self, machine_id: str) -> tuple[str, str] | None:
        """(replay_id, action_id) of the action dispatched to this machine and not reported yet, if any."""
        inflight = self.store.inflight_for_machine(machine_id)
        return (inflight[0].replay_id, inflight[0].action_id) if inflight else None

    def _claim(self, machine_id: str, protocol_version: int) -> NextAction | None:
        now = self.time.now()
        with self.store.atomic():
            self.store.lock_machine(machine_id)  # concurrent polls of one machine, on any replica, take turns
            inflight = self.store.inflight_for_machine(machine_id)
            if inflight:
                held = inflight[0]
                if now <= (held.not_after or 0) and held.journal != m.J_STARTED:
                    # a retried poll: the same action and the same attempt, never a second action
                    m.log_event(
                        "dispatch_repeat",
                        replay_id=held.replay_id,
                        action_id=held.action_id,
                        attempt_id=held.attempt_id,
                        machine_id=machine_id,
                    )
                    return self._wire(held, now)
                return None  # one in flight per machine: nothing else until it is reported or orphaned
            for replay in self.store.runnable_replays(machine_id):
                a = self.store.first_open_action(replay.replay_id)
                if a is None or a.server_side:
                    continue
                claimable = a.state == m.PENDING or (a.state == m.ORPHAN and a.resend_allowed)
                if not claimable:
                    continue
                attempt_id = new_id("at_")
                is_resend = a.dispatches > 0
                not_after = now + self.config.orphan_timeout_s
                won = self.store.update_action(
                    a.replay_id,
                    a.action_id,
                    expect_states=(a.state,),
                    expect_attempt=a.attempt_id,
                    now=now,
                    state=m.DISPATCHED,
                    attempt_id=attempt_id,
                    dispatches=a.dispatches + 1,
                    resends=a.resends + (1 if a.state == m.ORPHAN else 0),
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
                if replay.machine_id is None:
                    self.store.update_replay(
                        replay.replay_id, expect_states=(m.RUNNING,), now=now, machine_id=machine_id
                    )
                if a.attempt_id:
                    self.store.set_attempt_status(a.attempt_id, "fenced")
                self.store.add_attempt(
                    AttemptRow(
                        attempt_id=attempt_id,
                        replay_id=a.replay_id,
                        action_id=a.action_id,
                        n=a.dispatches + 1,
                        machine_id=machine_id,
                        dispatched_at=now,
                        status="dispatched",
                    )
                )
                claimed = self.store.get_action(a.replay_id, a.action_id)
                assert claimed is not None
                m.log_event(
                    "dispatch",
                    replay_id=a.replay_id,
                    action_id=a.action_id,
                    attempt_id=attempt_id,
                    machine_id=machine_id,
                    action_type=a.action_type,
                    resend=is_resend,
                    not_after=not_after,
                    protocol_version=protocol_version,
                    strict=bool(a.success_strict),
                    idempotent=bool(a.idempotent),
                )
                m.log_event(
                    "transition",
                    replay_id=a.replay_id,
                    action_id=a.action_id,
                    attempt_id=attempt_id,
                    **{"from": a.state, "to": m.DISPATCHED},
                )
                self._changed(a.replay_id)
                return self._wire(claimed, now)
        return None

    def _wire(self, a: ActionRow, now: float) -> NextAction:
        total = self.store.get_replay(a.replay_id)
        target = a.target
        wire_target = None
        irreversible = is_irreversible(a)
        if isinstance(target, dict) and irreversible:
            # found where it is now, never at a recorded spot: recorded pixels are not a resolution
            target = {k: v for k, v in target.items() if k not in ("x", "y", "uia")} | {"step_class": "irreversible"}
        if isinstance(target, dict) and target.get("identity_partial"):
            # a record named by the run's values only in part: no position of any kind is sent for it
            target = {k: v for k, v in target.items() if k not in ("x", "y", "uia")}
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
                window_title=target.get("window_title") or a.expected.get("window_before"),
                spec=target,
            )
        elif a.action_type in KEYBOARD_STEPS and isinstance(a.expected.get("window_before"), str):
            window = a.expected["window_before"].strip()
            wire_target = WireTarget(window_title=window) if window else None
        return NextAction(
            replay_id=a.replay_id,
            action_id=a.action_id,
            attempt_id=a.attempt_id,
            not_after=a.not_after,
            server_now=now,
            action_type=a.action_type,
            target=wire_target,
            params=a.params,
            protocol_version=PROTOCOL_VERSION,
            step_index=a.step_index,
            steps_total=total.steps_total if total else 0,
            idempotent=bool(a.idempotent),
            success_strict=bool(a.success_strict),
            resend=max(0, a.dispatches - 1),
            irreversible=irreversible,
            retry_of=a.retry_of,
        )
