"""A person's levers: pause, cancel, resume (re-checking the screen after a takeover), answer a pause."""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from rpa_mcp.errors import Conflict, InvalidInput, PreconditionFailed
from rpa_mcp.replay import model as m
from rpa_mcp.replay.resolve import Resolution
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service.core import ReplayCore
from rpa_mcp.replay.start_window import same_screen
from rpa_mcp.vision.images import decode_image


class Pauses(ReplayCore):
    async def pause(self, replay_id: str, *, by: str | None = None) -> ReplayRow:
        replay = self._require(replay_id)
        if replay.state == m.PAUSED:
            return replay
        if replay.state != m.RUNNING:
            raise Conflict(
                f"replay {replay_id} is {replay.state}; only a running replay can be paused", state=replay.state
            )
        self._pause(replay_id, m.USER_PAUSE, {"by": by}, now=self.time.now(), from_states=(m.RUNNING,))
        self._changed(replay_id)
        return self._require(replay_id)

    async def cancel(self, replay_id: str, *, by: str | None = None) -> ReplayRow:
        replay = self._require(replay_id)
        if replay.state in m.TERMINAL_REPLAY_STATES:
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
            self.store.scrub_secrets(replay_id)
        m.log_event("replay_cancelled", replay_id=replay_id, by=by, abandoned=n)
        self._ended(replay_id)
        self._changed(replay_id)
        return self._require(replay_id)

    async def resume(
        self,
        replay_id: str,
        *,
        screenshot: np.ndarray | None = None,
        window_title: str | None = None,
        by: str | None = None,
    ) -> ReplayRow:
        replay = self._require(replay_id)
        if replay.state != m.PAUSED:
            raise Conflict(f"replay {replay_id} is {replay.state}, not paused", state=replay.state)
        a = self.store.first_open_action(replay_id)
        if a is not None and (a.state == m.HELD or (a.state == m.ORPHAN and not a.resend_allowed)):
            raise PreconditionFailed(
                f"action {a.action_id} needs an answer first (answer_pause: retry, skip, click:<label> or abort)",
                pause_reason=replay.pause_reason,
            )
        if replay.pause_reason == m.HUMAN_TAKEOVER and a is not None:
            self.check_screen_for(replay, a, screenshot, window_title)
        now = self.time.now()
        if not self.store.update_replay(
            replay_id, expect_states=(m.PAUSED,), now=now, state=m.RUNNING, pause_reason=None, pause_detail=None
        ):
            raise Conflict(f"replay {replay_id} changed meanwhile; read its status again")
        m.log_event("replay_resumed", replay_id=replay_id, by=by)
        self._advance(replay_id)
        self._wake(replay.machine_id)
        self._changed(replay_id)
        return self._require(replay_id)

    def check_screen_for(
        self, replay: ReplayRow, a: ActionRow, screenshot: np.ndarray | None, window_title: str | None
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
        expected_title = a.expected.get("window_before")
        if expected_title and window_title and not same_screen(expected_title, window_title):
            raise PreconditionFailed(
                f"the screen shows {window_title!r}, the next action expects {expected_title!r}; bring that window "
                "back, then resume",
                expected=expected_title,
                seen=window_title,
            )
        target = a.target if isinstance(a.target, dict) else None
        if target and not a.server_side and (target.get("label") or target.get("anchor_png_base64")):
            spec = {**target, "step_class": a.expected.get("step_class")}  # an irreversible one: no position alone
            res = self.resolver.resolve(screenshot, spec, window_title=window_title, machine_id=replay.machine_id)
            if not res.resolved and res.method != "identity_partial":  # that one pauses for a person anyway
                raise PreconditionFailed(
                    f"the next action's target is not on the screen: {res.reason}", method=res.method
                )
            return res
        return None

    async def answer(self, replay_id: str, decision: str, *, by: str | None = None) -> ReplayRow:
        replay = self._require(replay_id)
        decision = decision.strip()
        if decision == "abort":
            return await self.cancel(replay_id, by=by)
        if replay.state != m.PAUSED:
            raise Conflict(f"replay {replay_id} is {replay.state}; there is no pause to answer", state=replay.state)
        a = self.store.first_open_action(replay_id)
        paused_id = (replay.pause_detail or {}).get("action_id")
        paused = self.store.get_action(replay_id, paused_id) if paused_id else None
        now = self.time.now()
        with self.store.atomic():
            if paused is not None and paused.state in m.TERMINAL_ACTION_STATES:
                # the paused action is already final (abandoned after its resends): it is never changed;
                # retry inserts a fresh copy before what comes next, skip simply goes on
                if decision == "retry":
                    nxt = self.store.next_seq_after(replay_id, paused.seq)
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
                        ActionRow(
                            **{
                                **copy,
                                "replay_id": replay_id,
                                "action_id": f"{paused.action_id}-r{secrets.token_hex(2)}",
                                "seq": (paused.seq + nxt) / 2 if nxt is not None else paused.seq + 0.5,
                                # an observation observed again stays one: the first step is checked again
                                "origin": paused.origin if paused.origin in m.LOOK_ORIGINS else "person",
                                "state": m.PENDING,
                                "updated_at": now,
                            }
                        )
                    )
                elif decision.startswith("click:"):
                    raise PreconditionFailed("click:<label> answers a dialog pause")
            elif a is None:
                pass
            elif decision == "retry":
                if a.state == m.DISPATCHED:
                    raise Conflict("the action is still in flight; wait for its report")
                # a new attempt the agent executes: the person looked at the screen after `a.attempt_id`
                # (their consent to run it again); the watchdog alone never re-runs a started action
                self.store.update_action(
                    replay_id,
                    a.action_id,
                    expect_states=(a.state,),
                    expect_attempt=a.attempt_id,
                    now=now,
                    state=m.PENDING,
                    resend_allowed=0,
                    outcome=None,
                    retry_of=a.attempt_id,
                )
            elif decision == "skip":
                if a.state == m.DISPATCHED:
                    raise Conflict("the action is still in flight; wait for its report")
                final = m.ACKED if a.state == m.HELD else m.ABANDONED
                self.store.update_action(
                    replay_id,
                    a.action_id,
                    expect_states=(a.state,),
                    expect_attempt=a.attempt_id,
                    now=now,
                    state=final,
                    outcome="skipped_by_person",
                    resend_allowed=0,
                )
            elif decision.startswith("click:"):
                label = decision.partition(":")[2].strip()
                if not label:
                    raise InvalidInput("click:<label> needs a label", field="decision")
                if replay.pause_reason != m.UNEXPECTED_DIALOG:
                    raise PreconditionFailed(
                        f"click:<label> answers a dialog pause; this pause is {replay.pause_reason}"
                    )
                if a.state == m.HELD:
                    self.store.update_action(
                        replay_id,
                        a.action_id,
                        expect_states=(m.HELD,),
                        expect_attempt=a.attempt_id,
                        now=now,
                        state=m.ACKED,
                        outcome="success_dialog_answered",
                    )
                nxt = self.store.next_seq_after(replay_id, a.seq)
                seq = (a.seq + nxt) / 2 if nxt is not None else a.seq + 0.5
                self.store.insert_action(
                    ActionRow(
                        replay_id=replay_id,
                        action_id=f"{a.action_id}-ans{secrets.token_hex(2)}",
                        seq=seq if a.state == m.HELD else a.seq - 0.001,
                        step_index=a.step_index,
                        intent=f"Click '{label}' (answer given by a person)",
                        action_type="dialog_button",
                        target={"label": label, **_button_point(replay, label)},
                        params={},
                        expected={"expected_modals": []},
                        idempotent=0,
                        success_strict=0,
                        server_side=0,
                        max_resends=self.config.max_resends,
                        origin="person",
                        state=m.PENDING,
                        updated_at=now,
                    )
                )
            else:
                raise InvalidInput("decision must be click:<label>, skip, retry or abort", field="decision")
            self.store.update_replay(
                replay_id, expect_states=(m.PAUSED,), now=now, state=m.RUNNING, pause_reason=None, pause_detail=None
            )
        m.log_event(
            "pause_answered",
            replay_id=replay_id,
            action_id=a.action_id if a else None,
            attempt_id=a.attempt_id if a else None,
            decision=decision,
            by=by,
        )
        self._advance(replay_id)
        self._wake(replay.machine_id)
        self._changed(replay_id)
        return self._require(replay_id)


def _button_point(replay: ReplayRow, label: str) -> dict[str, Any]:
    """The click point of a dialog button the resolver reported, when the pause detail has it."""
    detail = replay.pause_detail or {}
    for button in detail.get("button_points") or []:
        if str(button.get("label", "")).strip().lower() == label.lower() and button.get("click_at"):
            return {"x": int(button["click_at"][0]), "y": int(button["click_at"][1])}
    return {}
