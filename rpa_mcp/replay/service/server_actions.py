"""Server-side actions (extract_text, t2a_decision), run at the head of the queue, and completion."""

from __future__ import annotations

from typing import Any

from rpa_mcp.errors import PreconditionFailed, RpaError
from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service.core import ReplayCore, new_id
from rpa_mcp.replay.service.later_look import awaiting
from rpa_mcp.validation.extraction import check_output, shape_extracted
from rpa_mcp.vision.images import crop, decode_image

CLOSING_LOOK = "screenshot_evidence"  # no input: the agent waits, then sends the screen
CLOSING_ORIGIN = "closing"
CLOSING_WAIT_S = 1.0  # longer than a browser's or an application's usual delay before a prompt appears
MAX_CLOSING_LOOKS = 3  # an answer at the closing look, then a dialog again, three times: a person decides


class ServerActions(ReplayCore):
    def _advance(self, replay_id: str) -> None:
        """Run server-side actions at the head of the queue; complete the replay when nothing is open."""
        for _ in range(10_000):
            replay = self.store.get_replay(replay_id)
            if replay is None or replay.state != m.RUNNING:
                return
            a = self.store.first_open_action(replay_id)
            now = self.time.now()
            if a is None:
                if self._look_once_more(replay, now):  # the agent is asked for it: completion waits for it
                    return
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
                    self.store.scrub_secrets(replay_id)
                    m.log_event("replay_completed", replay_id=replay_id, purged_attempts=purged)
                    self._ended(replay_id)
                    self._changed(replay_id)
                return
            if awaiting(replay, a):  # its later look was skipped or given up: its first judgement stands
                self._first_judgement_stands(a, now)
                return
            if not (a.server_side and a.state == m.PENDING):
                return
            self._run_server_action(replay, a, now)

    def _first_judgement_stands(self, typed: ActionRow, now: float) -> None:
        """A step held for a later look that will not come: it fails as its first look saw it."""
        verdict = typed.verdict if isinstance(typed.verdict, dict) else {}
        with self.store.atomic():
            if not self.store.update_action(
                typed.replay_id,
                typed.action_id,
                expect_states=(m.HELD,),
                expect_attempt=typed.attempt_id,
                now=now,
                outcome="failed",
                verdict={**verdict, "later_look": {"screenshot": "none: the look was skipped or given up"}},
                screen_before=None,
            ):
                return
            detail = {
                "action_id": typed.action_id,
                "failure_category": verdict.get("failure_category"),
                "agent_claimed_success": True,
            }
            self._pause(typed.replay_id, m.VALIDATION_FAILED, detail, now=now, from_states=(m.RUNNING,))
        self._changed(typed.replay_id)

    def _look_once_more(self, replay: ReplayRow, now: float) -> bool:
        """After the last step, one more look at the workstation's screen before a replay says `completed`:
        a dialog that came later than the agent's wait for the screen to settle (a browser's permission
        prompt, an application's late error box) is seen and pauses the replay. A person's answer to what a
        look saw (`click:<label>`) is an input too: another look follows it, up to `MAX_CLOSING_LOOKS`; a
        dialog still coming back after that pauses the replay. True when a look was queued now (or the
        replay paused); False when the last action on the desktop is a look already, or the replay has none."""
        actions = self.store.actions(replay.replay_id)
        on_desktop = [a for a in actions if not a.server_side]
        if not on_desktop or max(on_desktop, key=lambda a: a.seq).origin == CLOSING_ORIGIN:
            return False
        looks = sum(1 for a in actions if a.origin == CLOSING_ORIGIN)
        last = max(actions, key=lambda a: a.seq)
        if looks >= MAX_CLOSING_LOOKS:  # answered, looked again, a dialog again: never an endless loop of answers
            detail = {
                "action_id": last.action_id,
                "reason": f"a dialog came back after each of {looks} answers once the last step was done: "
                "a person looks at the workstation and decides",
            }
            if self._pause(replay.replay_id, m.UNEXPECTED_DIALOG, detail, now=now, from_states=(m.RUNNING,)):
                self._changed(replay.replay_id)
            return True
        queued = self.store.insert_action(
            ActionRow(
                replay_id=replay.replay_id,
                action_id=f"{replay.replay_id[3:11]}-end" + (str(looks + 1) if looks else ""),
                seq=last.seq + 1.0,
                step_index=last.step_index,
                intent="Look at the screen once more after the last step: a dialog that came late is seen",
                action_type=CLOSING_LOOK,
                target=None,
                params={"seconds": CLOSING_WAIT_S},
                expected={"step_class": "navigation", "window_before": None, "window_after": None, "outcome": None},
                idempotent=1,
                max_resends=self.config.max_resends,
                origin=CLOSING_ORIGIN,
                state=m.PENDING,
                updated_at=now,
            ),
            or_nothing=True,  # two replicas completing the same replay queue one look
        )
        if queued:
            self._wake(replay.machine_id)
            self._changed(replay.replay_id)
        return True

    def _run_server_action(self, replay: ReplayRow, a: ActionRow, now: float) -> None:
        outcome, output, error = "failed", None, None
        try:
            if a.action_type == "extract_text":
                output = self._extract_text(replay, a)
                outcome = "extracted" if output else "failed"
                error = None if output else "no text found in the region"
            else:
                output = self.server_actions.run(a.action_type, a.params, replay.get("variables") or {})
                outcome = "success"
        except RpaError as exc:
            error = exc.message
        except Exception as exc:
            error = repr(exc)
        attempt_id = new_id("sv_")
        state = m.ACKED if outcome != "failed" else m.HELD
        with self.store.atomic():
            if not self.store.update_action(
                a.replay_id,
                a.action_id,
                expect_states=(m.PENDING,),
                expect_attempt=a.attempt_id,
                now=now,
                state=state,
                outcome=outcome,
                attempt_id=attempt_id,
                dispatches=a.dispatches + 1,
                journal=m.J_DONE,
                error=error,
                result={"output": output},
            ):
                return
            m.log_event(
                "server_action",
                replay_id=a.replay_id,
                action_id=a.action_id,
                attempt_id=attempt_id,
                action_type=a.action_type,
                outcome=outcome,
                error=error,
            )
            if state == m.ACKED:
                variables = dict(replay.get("variables") or {})
                variables[str(a.params.get("variable") or a.action_id)] = output
                self.store.update_replay(a.replay_id, expect_states=(m.RUNNING,), now=now, variables=variables)
            else:
                self._pause(a.replay_id, m.SERVER_ACTION_FAILED, {"action_id": a.action_id, "error": error}, now=now)

    def _extract_text(self, replay: ReplayRow, a: ActionRow) -> Any:
        full = self.store.get_replay(replay.replay_id)
        data = full.get("last_screenshot") if full else None
        if not data:
            raise PreconditionFailed("no screenshot yet to extract text from")
        image = decode_image(bytes(data), max_pixels=self.config.max_image_pixels, field="last_screenshot")
        target = a.target if isinstance(a.target, dict) else {}
        bbox = target.get("bbox") or a.params.get("bbox")
        if not bbox:
            raise PreconditionFailed("extract_text needs a region (target.bbox): full-frame OCR is not allowed")
        box = [int(v) for v in bbox]  # [x, y, w, h]; crop reads the first four
        region = crop(image, (box[0], box[1], box[2], box[3]))
        lines = self.ocr.read(region)
        text = " ".join(line.text for line in lines).strip()
        if not text:
            return None
        output = shape_extracted(text, a.params)  # the step's pattern, then its JSON Schema
        check_output(output, a.params.get("json_schema"), what=f"the text read ({text[:80]!r})")
        return output
