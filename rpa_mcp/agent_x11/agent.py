"""`rpa-mcp agent-x11`: the replay agent on a real X11 desktop (wire v2, docs/replay-wire-contract.md).

For every action: journal RECEIVED (fsynced) → receipt ack → not after `not_after` (server clock) →
start ack (execute only on `proceed`) → journal STARTED → screenshot before, window before → resolve
the target → XTEST input (a text: its field clicked, then, on evidence that the field has the
keyboard (`rpa_mcp.agent_x11.focus`), its content selected and replaced by the text) → wait for the
screen to settle → screenshot after, window after → journal DONE(result) → report, re-sent until
acknowledged. Heartbeats run while an action executes. An attempt already in the journal is never
executed again: its stored result is re-sent, or, when it was started and never finished, it is left
to the server (OUTCOME_UNKNOWN: a person decides). A new attempt of an action that ran is executed
only on a person's `retry` (`retry_of`: the attempt they saw, and nothing ran since).

No input is injected while the desktop's privilege prompt (a polkit agent window) is up — the
agent reports `system_dialog` — or after a person touched the mouse or keyboard during the
replay (RECORD sees input the agent did not announce): `human_takeover`.
"""

from __future__ import annotations

import argparse
import base64
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import httpx2
import numpy as np

from rpa_mcp.agent_sim.execute import (
    CLICKS,
    DOUBLE_CLICKS,
    KEYS,
    NO_INPUT,
    RIGHT_CLICKS,
    SELECT_ALL,
    SERVER_SIDE,
    TYPING,
    replaces_field,
)
from rpa_mcp.agent_sim.journal import DedupCache, Journal, person_retry_allows, ran, without_images
from rpa_mcp.agent_x11 import choices, locate, scrolling
from rpa_mcp.agent_x11.focus import FocusEvidence, focus_region
from rpa_mcp.agent_x11.inject import Injector
from rpa_mcp.agent_x11.screen import Screen
from rpa_mcp.agent_x11.watch import InputWatch
from rpa_mcp.agent_x11.windows import WindowInfo, Windows
from rpa_mcp.errors import InvalidInput
from rpa_mcp.replay import identity
from rpa_mcp.replay.wire import PROTOCOL_HEADER, ActionResult, NextAction, ReportAck, SystemDialog
from rpa_mcp.vision.text_match import ANY_WORDS, title_matches

logger = logging.getLogger(__name__)
Say = Callable[[str], None]
NEXT_PATH = "/api/v1/replay/next"
PATHS = {
    "receipt": "/api/v1/replay/receipt",
    "start": "/api/v1/replay/start",
    "heartbeat": "/api/v1/replay/heartbeat",
    "result": "/api/v1/replay/result",
}
POLKIT_MARKERS = ("polkit", "lxpolkit", "pkexec", "gcr-prompter", "ssh-askpass")
SETTLE_MIN_S = 0.15
SETTLE_MAX_S = 3.0
SETTLE_STEP_S = 0.1
TIMINGS_KEPT = 1000
FOCUS_TIMEOUT_S = 2.0
EXIT_REFUSED = 4
_ACK_FIELDS = set(ReportAck.model_fields)


def privilege_prompt(windows: list[WindowInfo]) -> WindowInfo | None:
    """The desktop's privilege prompt (a polkit authentication agent window), identified by process/class."""
    for info in windows:
        names = f"{info.process or ''} {info.wm_class or ''}".lower()
        if any(marker in names for marker in POLKIT_MARKERS):
            return info
    return None


class X11Agent:
    def __init__(
        self,
        *,
        url: str,
        token: str | None,
        machine_id: str,
        display_name: str,
        journal: Journal,
        say: Say,
        resolve: str = "server",
        poll_wait_s: float = 25.0,
        heartbeat_interval_s: float = 10.0,
        settle_ms: int | None = None,
    ) -> None:
        self.machine_id = machine_id
        self.say = say
        self.journal = journal
        self.resolve_mode = resolve
        self.poll_wait_s = poll_wait_s
        self.heartbeat_interval_s = heartbeat_interval_s
        self.settle_ms = settle_ms
        self.headers = {PROTOCOL_HEADER: "2"} | ({"Authorization": f"Bearer {token}"} if token else {})
        self.client = httpx2.Client(base_url=url, timeout=poll_wait_s + 30.0)
        self.windows = Windows(display_name)
        self.screen = Screen(display_name)
        self.watch = InputWatch(display_name).start()
        self.hands = Injector(display_name, expect=self.watch.expect)
        self.dedup = DedupCache()
        for entry in journal.recent_done():
            if entry.result is not None:
                self.dedup.put(entry.action_id, entry.attempt_id, entry.result)
        self._armed: dict[str, int] = {}  # replay_id -> count of a person's inputs already accounted for
        self._foreign_seen: dict[str, int] = {}  # attempt_id -> a person's input count its result was judged on
        self._offset = 0.0
        self._ocr: Any = None
        self.idle = False  # waiting in the long poll: nothing journaled, nothing under way
        # per action, epoch seconds of: polled, started, shot, resolved, (focused: text typed), injected, settled,
        # encoded, reported
        self.timings: deque[dict[str, Any]] = deque(maxlen=TIMINGS_KEPT)
        self._marks: dict[str, float] = {}
        self._notes: dict[str, Any] = {}  # per action, beside the times: how the wait before typing ended
        self._last_shot: tuple[np.ndarray, bytes] | None = None  # the last frame sent after an action

    def close(self) -> None:
        self.watch.stop()
        self.hands.close()
        self.screen.close()
        self.windows.close()
        self.client.close()

    # --- the loop ------------------------------------------------------------------------------
    def run(self, stop: threading.Event, *, max_actions: int | None = None) -> None:
        handled, backoff, said_polling = 0, 0.5, False
        while not stop.is_set() and (max_actions is None or handled < max_actions):
            try:
                self.flush_outbox()
                if said_polling:
                    action = self.poll()
                else:  # a first poll answered at once: once said, the server knows this workstation is there
                    action = self.poll(wait=0.0)
                    self.say(f"polling for actions for machine {self.machine_id}")
                    said_polling = True
            except httpx2.TransportError as exc:
                self.say(f"server unreachable ({exc.__class__.__name__}); retrying in {backoff:.1f} s")
                stop.wait(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            backoff = 0.5
            if action is not None:
                handled += 1
                self.handle(action)
                said_polling = False

    def poll(self, wait: float | None = None) -> NextAction | None:
        self.idle = True  # a stop request may interrupt the long poll (never an action)
        wait = self.poll_wait_s if wait is None else wait
        try:
            response = self.client.get(
                NEXT_PATH, params={"machine_id": self.machine_id, "wait": wait}, headers=self.headers
            )
        finally:
            self.idle = False
        _check_auth(response)
        if response.status_code == 204:
            return None
        if response.status_code >= 400:
            self.say(f"poll refused: HTTP {response.status_code} {response.text[:200]}")
            time.sleep(1.0)
            return None
        return NextAction.model_validate(response.json())

    def flush_outbox(self) -> None:
        for entry in self.journal.unreported():
            if entry.result is not None:
                self._send_result(entry.result)

    # --- one action --------------------------------------------------------------------------------
    def handle(self, action: NextAction) -> None:
        self._marks = {"polled": time.time()}
        self._notes = {}
        self._offset = action.server_now - time.time()
        step = f"step {max(1, action.step_index)}/{action.steps_total or '?'}"
        cached = self.dedup.get(action.action_id, action.attempt_id)
        entry = self.journal.get(action.action_id, action.attempt_id)
        if cached is None and entry is not None and entry.state == "DONE" and entry.result is not None:
            cached = entry.result
        if cached is not None:
            self.say(f"{step} was already executed: sending its stored result again")
            self._send_result(cached)
            return
        if entry is not None and entry.state == "STARTED":
            self.say(f"{step} was started before a restart and never finished: NOT executed again")
            return
        if entry is None:
            refusal = self._already_ran(action)
            self.journal.received(action.replay_id, action.action_id, action.attempt_id, action.not_after)
            if refusal is not None:
                self._finish(action, refusal)
                return
        self._armed.setdefault(action.replay_id, self.watch.foreign_count)
        ack = self._post("receipt", self._ref(action))
        if ack is not None and ack.status in ("late", "unknown"):
            self.journal.done(action.action_id, action.attempt_id, self._not_executed(action, f"REFUSED: {ack.status}"))
            self.journal.reported(action.action_id, action.attempt_id)
            return
        if time.time() + self._offset > action.not_after:
            self.say(f"{step} expired before it could start: not executed")
            self._finish(action, self._not_executed(action, "EXPIRED: not_after has passed (server clock)"))
            return
        refusal = self._before_input(action)
        if refusal is not None:
            self._finish(action, refusal)
            return
        if not self._start_granted(action):
            self._finish(action, self._not_executed(action, "NOT_STARTED: the server said not to proceed", None))
            return
        self.journal.started(action.action_id, action.attempt_id)
        self._mark("started")
        intent = (action.target.label if action.target else None) or action.action_type
        self.say(f"executing {step} {action.action_type} {intent!r}")
        result = self._execute_with_heartbeats(action)
        self._finish(action, result)

    def _execute_with_heartbeats(self, action: NextAction) -> dict[str, Any]:
        done = threading.Event()

        def beat() -> None:
            while not done.wait(self.heartbeat_interval_s):
                self._post("heartbeat", self._ref(action) | {"message": f"{action.action_type} still running"})

        beater = threading.Thread(target=beat, daemon=True)
        beater.start()
        try:
            return self._execute(action)
        finally:
            done.set()
            beater.join(5)

    def _before_input(self, action: NextAction) -> dict[str, Any] | None:
        prompt = privilege_prompt(self.windows.windows())
        if prompt is not None:
            self.say(f"paused: the desktop's privilege prompt {prompt.title!r} is up; nothing is touched")
            system = SystemDialog(kind="other", process=prompt.process or prompt.wm_class, title=prompt.title[:500])
            return self._not_executed(action, f"SYSTEM_DIALOG: {prompt.title!r} is up", system=system)
        if self.watch.foreign_count > self._armed.get(action.replay_id, self.watch.foreign_count):
            self.say("paused: a person is using the mouse or keyboard; waiting for a person to resume")
            return self._not_executed(action, "HUMAN_TAKEOVER: the person is using the desktop", human=True)
        return None

    def _execute(self, action: NextAction) -> dict[str, Any]:
        started = time.monotonic()
        kind = action.action_type.lower()
        foreign_before = self.watch.foreign_count
        front_before = self.windows.foreground()
        frame_before = self.screen.grab()
        png_before = self._encode(frame_before)
        self._mark("shot")
        position: tuple[int, int] | None = None
        error: str | None = None
        executed = True
        try:
            if kind in SERVER_SIDE:
                executed, error = False, f"{kind} is a server-side action"
            elif kind in NO_INPUT:  # carried out (waited, screen captured): done, though no input was injected
                seconds = _seconds(action.params)
                limit = min(seconds, max(0.0, action.not_after - (time.time() + self._offset)))
                if seconds and self.watch.wait_foreign(foreign_before, limit):
                    # a person took over during the wait: it is not carried out; it is waited again on resume
                    self.say("paused: a person is using the mouse or keyboard; waiting for a person to resume")
                    return self._not_executed(
                        action, "HUMAN_TAKEOVER: the person is using the desktop", human=True, before=png_before
                    )
            elif kind == "focus_window":
                refusal = self._focus(action)
                if refusal is not None:
                    self.say(f"paused: {refusal}")
                    return self._refused(action, refusal, foreign_before, png_before)
                self._mark("resolved")
            else:
                needs_point = (
                    kind in CLICKS | DOUBLE_CLICKS | RIGHT_CLICKS | {"scroll", "save"} | TYPING | choices.KINDS
                )
                if needs_point and action.target is not None and (action.target.label or action.target.x is not None):
                    found = self._locate(action, frame_before, png_before, front_before)
                    if not found.found:  # a row of a list out of view: a bounded scroll, then resolved again
                        seen = scrolling.bring_into_view(
                            choices.AgentPort(self, action), action, found, png_before, self.windows.size,
                            lambda png: self._locate(action, self.screen.grab(), png, front_before),
                        )  # fmt: skip
                        found, self._notes["scrolled"] = seen.found, seen.note
                        if seen.png is not None:
                            frame_before, png_before = self.screen.grab(), seen.png
                    self._mark("resolved")
                    if not found.found:
                        reason = f"target_not_resolved: {found.method}: {found.reason}"
                        self.say(f"paused: {reason}")
                        return self._refused(action, reason, foreign_before, png_before)
                    position = (int(found.x or 0), int(found.y or 0))
                elif needs_point and action.target is not None:
                    reason = None
                    if action.irreversible and kind in CLICKS | DOUBLE_CLICKS | RIGHT_CLICKS:
                        reason = "target_not_resolved: irreversible step: never clicked at its recorded position alone"
                    elif identity.identity_of(locate.spec_of(action)) is not None:
                        reason = (
                            "target_not_resolved: a record-selecting step is never clicked at its recorded position"
                        )
                    if reason is not None:
                        self.say(f"paused: {reason}")
                        return self._refused(action, reason, foreign_before, png_before)
                    position = locate.recorded_point(action, self.windows.size)
                    self._mark("resolved")
                if position is not None:
                    self._notes["position"] = list(position)  # where the input went (timings, the demo's film)
                if kind in choices.KINDS and position is not None:
                    self._notes["output"] = choices.carry_out(choices.AgentPort(self, action), action, position)
                else:
                    self._inject(kind, action, position, frame_before)
        except choices.ChoiceFailed as exc:  # nothing clicked: not executed; a click made: executed, failed
            if not exc.clicked:
                return self._refused(action, exc.reason, foreign_before, png_before)
            error = exc.reason
        except InvalidInput as exc:
            return self._refused(action, f"INVALID_ACTION: {exc.message}", foreign_before, png_before)
        self._mark("injected")
        frame_after, encoding = self._settle(frame_before, action, encode=True) if executed else (frame_before, None)
        self._mark("settled")
        front_after = self.windows.foreground()
        png_after = encoding.result() if encoding is not None else self._encode(frame_after)
        self._last_shot = (frame_after, png_after)
        self._mark("encoded")
        foreign_after = self.watch.foreign_count
        self._foreign_seen[action.attempt_id] = foreign_after
        human = foreign_after > foreign_before
        if human:
            self.say("a person touched the mouse or keyboard during this action")
        result = ActionResult(
            **self._ref(action),
            success=error is None,
            error=error,
            error_retryable=False if error else None,
            actual_position=list(position) if position else None,
            screenshot_before=_b64(png_before),
            screenshot_after=_b64(png_after),
            window_title=front_after.title if front_after else None,
            window_title_before=front_before.title if front_before else None,
            process_after=front_after.process if front_after else None,
            human_takeover=human,
            executed=executed,
            warning=self._notes.get("scrolled"),
            output=self._notes.get("output"),
            duration_ms=int((time.monotonic() - started) * 1000),
            phases_ms=self._phases(),
        )
        return result.model_dump(mode="json", exclude_none=True)

    def _locate(self, action: NextAction, frame: np.ndarray, png: bytes, front: WindowInfo | None) -> locate.Located:
        target = action.target
        assert target is not None
        if target.x is not None and target.y is not None:
            return locate.Located(target.x, target.y, target.method or "server")
        if self.resolve_mode == "local":
            if self._ocr is None:
                from rpa_mcp.vision.ocr import RapidOcrEngine

                self._ocr = RapidOcrEngine()
            return locate.locate_locally(self._ocr, action, frame)
        windows = [
            {"title": w.title[:1000], "process": w.process, "box": list(w.geometry) if w.geometry else None}
            for w in self.windows.stacked()[:64]  # the server reads at most 64, top-most first
        ]
        return locate.locate_on_server(
            self.client, self.headers, action, png, front.title if front else None, self.machine_id, windows
        )

    def _focus(self, action: NextAction) -> str | None:
        """Bring the recorded window to the front (EWMH); the reason it cannot, else None."""
        wanted = (action.target.window_title if action.target else None) or action.params.get("window_title")
        if not isinstance(wanted, str) or not wanted:
            return "target_not_resolved: a focus_window step needs the window's title"
        windows = self.windows.windows()
        window = next((w for w in windows if w.title == wanted), None) or next(
            (w for w in windows if w.title and (wanted in w.title or w.title in wanted)), None
        )
        if window is None and ANY_WORDS in wanted:  # the record's other words are whatever this run's shows
            window = next((w for w in windows if w.title and title_matches(w.title, wanted)), None)
        if window is None:
            return f"target_not_resolved: no window titled {wanted!r} is open"
        if self.windows.active_window() != window.wid:
            self.windows.activate(window.wid)
            deadline = time.monotonic() + FOCUS_TIMEOUT_S
            while self.windows.active_window() != window.wid and time.monotonic() < deadline:
                time.sleep(SETTLE_STEP_S)
        return None

    def _inject(
        self, kind: str, action: NextAction, position: tuple[int, int] | None, before: np.ndarray | None = None
    ) -> None:
        params = action.params
        if kind in TYPING:
            text = params.get("text")
            if not isinstance(text, str):
                raise InvalidInput("type_text needs params.text", field="params.text")
            if position is not None:
                self.hands.click(*position)
                if not self._focus_landed(action, position, before):
                    self._settle(None, action, quiet_s=0.2)  # no evidence: the screen quiet before typing
                self._mark("focused")
            if replaces_field(kind, params):
                self.hands.combo(SELECT_ALL)  # the text replaces what the field held, never follows it
            self.hands.type_text(text)
            submit = params.get("submit_key") or ("enter" if kind == "paste_and_execute" else None)
            if isinstance(submit, str) and submit:
                self.hands.combo(submit)
        elif kind in KEYS or (kind == "save" and position is None):
            keys = (
                params.get("keys") or params.get("combo") or params.get("key") or ("ctrl+s" if kind == "save" else None)
            )
            if isinstance(keys, list):
                keys = "+".join(str(k) for k in keys)
            if not isinstance(keys, str) or not keys:
                raise InvalidInput(f"{kind} needs params.keys", field="params.keys")
            self.hands.combo(keys)
        elif kind == "scroll":
            x, y = position or (self.windows.size[0] // 2, self.windows.size[1] // 2)
            direction = str(params.get("direction") or "down")
            self.hands.scroll(x, y, direction=direction, amount=int(params.get("amount") or 3))
        elif kind in CLICKS | DOUBLE_CLICKS | RIGHT_CLICKS | {"save"}:
            if position is None:
                raise InvalidInput("no coordinates and no label to find the target", field="target")
            count = 2 if kind in DOUBLE_CLICKS else 1
            self.hands.click(*position, button="right" if kind in RIGHT_CLICKS else "left", count=count)
        else:
            raise InvalidInput(f"unsupported action type {action.action_type!r}", field="action_type")

    def _focus_landed(self, action: NextAction, point: tuple[int, int], before: np.ndarray | None) -> bool:
        """The clicked field has the keyboard (see `rpa_mcp.agent_x11.focus`); False without evidence."""
        if before is None:
            return False
        bbox = action.target.spec.get("bbox") if action.target is not None else None
        field = None
        if isinstance(bbox, list | tuple) and len(bbox) == 4 and all(isinstance(v, int | float) for v in bbox):
            field = (int(bbox[2]), int(bbox[3]))
        height, width = before.shape[:2]
        region = focus_region(point, field, (width, height))
        evidence = FocusEvidence(self.screen.grab_region, lambda: self.windows.keyboard_at(*point))
        landed = evidence.landed(before, region)
        self._notes["focus_evidence"] = landed
        return landed

    def _encode(self, frame: np.ndarray) -> bytes:
        """The frame's encoding; the last one sent when the screen has not changed by one pixel since."""
        last = self._last_shot
        if last is not None and np.array_equal(last[0], frame):
            return last[1]
        return self.screen.encode(frame)

    def _settle(
        self, before: np.ndarray | None, action: NextAction, quiet_s: float = 0.3, *, encode: bool = False
    ) -> tuple[np.ndarray, Future[bytes] | None]:
        """Wait until the screen stops changing (two equal frames `quiet_s` apart), at most SETTLE_MAX_S.

        With `encode`, the frame is encoded in the background as soon as it is seen still, while the
        rest of the quiet time is waited; the returned future holds the returned frame's encoding
        (None when the frame changed after its last encoding started: the caller encodes it).
        """
        deadline = time.monotonic() + (self.settle_ms / 1000.0 if self.settle_ms is not None else SETTLE_MAX_S)
        time.sleep(SETTLE_MIN_S)
        last = self.screen.grab()
        last.setflags(write=False)  # read by the background encoding
        stable_since = time.monotonic()
        encoding: tuple[np.ndarray, Future[bytes]] | None = None
        while time.monotonic() < deadline:
            time.sleep(SETTLE_STEP_S)
            frame = self.screen.grab()
            if np.array_equal(frame, last):
                if encode and encoding is None:
                    encoding = (last, self.screen.encode_soon(last))
                if time.monotonic() - stable_since >= quiet_s:
                    break
            else:
                if encoding is not None:
                    encoding[1].cancel()
                    encoding = None
                last, stable_since = frame, time.monotonic()
                last.setflags(write=False)
        return last, (encoding[1] if encoding is not None and encoding[0] is last else None)

    # --- results --------------------------------------------------------------------------------------
    def _refused(self, action: NextAction, reason: str, foreign_before: int, before: bytes) -> dict[str, Any]:
        """Not carried out; a person's input since the attempt began makes it a takeover, not a failure."""
        counted = self._foreign_seen[action.attempt_id] = self.watch.foreign_count
        human = counted > foreign_before
        if human:
            self.say("a person touched the mouse or keyboard during this action")
        return self._not_executed(action, reason, False, human=human, before=before)

    def _not_executed(
        self,
        action: NextAction,
        error: str,
        retryable: bool | None = False,
        *,
        human: bool = False,
        system: SystemDialog | None = None,
        before: bytes | None = None,
    ) -> dict[str, Any]:
        front = self.windows.foreground()
        shot = self.screen.png()
        result = ActionResult(
            **self._ref(action),
            success=False,
            error=error,
            error_retryable=retryable,
            screenshot_before=_b64(before or shot),
            screenshot_after=_b64(shot),
            window_title=front.title if front else None,
            window_title_before=front.title if front else None,
            process_after=front.process if front else None,
            human_takeover=human,
            system_dialog=system,
            executed=False,
        )
        return result.model_dump(mode="json", exclude_none=True)

    def _already_ran(self, action: NextAction) -> dict[str, Any] | None:
        """A new attempt of an action this agent already injected input for: never twice (unless idempotent)."""
        if action.idempotent:
            return None
        attempts = [e for e in self.journal.attempts_of(action.action_id) if e.attempt_id != action.attempt_id]
        if person_retry_allows(attempts, action.retry_of):
            self.say(f"action {action.action_id}: a person asked to retry it after attempt {action.retry_of}")
            return None
        for e in reversed(attempts):
            if ran(e):
                self.say(f"action {action.action_id} already ran under attempt {e.attempt_id}: not executed again")
                return self._not_executed(action, f"OUTCOME_UNKNOWN: attempt {e.attempt_id} already ran", False)
        return None

    def _finish(self, action: NextAction, result: dict[str, Any]) -> None:
        self.journal.done(action.action_id, action.attempt_id, result)
        self.dedup.put(action.action_id, action.attempt_id, result)
        self._send_result(result)
        self._mark("reported")
        ref = {"action_id": action.action_id, "attempt_id": action.attempt_id, "action_type": action.action_type}
        self.timings.append(ref | {"step_index": action.step_index, **self._notes, **self._marks})

    def _phases(self) -> dict[str, float]:
        """The phases of the evidence bundle, from this attempt's marks (those that happened)."""
        spans = {"resolve": ("shot", "resolved"), "inject": ("resolved", "injected"), "settle": ("injected", "settled")}
        marks = self._marks
        return {
            name: round((marks[end] - marks[begin]) * 1000, 1)
            for name, (begin, end) in spans.items()
            if begin in marks and end in marks
        }

    def _mark(self, name: str) -> None:
        self._marks[name] = time.time()

    def _send_result(self, result: dict[str, Any]) -> None:
        for attempt in range(5):
            ack = self._post("result", result)
            if ack is not None:
                self.journal.reported(result["action_id"], result["attempt_id"])
                self.dedup.put(result["action_id"], result["attempt_id"], without_images(result))
                replay = result["replay_id"]
                # a person's input after the count this result was judged on is not forgiven: the next action sees it
                seen = self._foreign_seen.pop(result["attempt_id"], None)
                if ack.replay_state == "running":
                    counted = self.watch.foreign_count if seen is None else seen
                    self._armed[replay] = counted if not result.get("human_takeover") else 0
                else:
                    self._armed.pop(replay, None)
                    if ack.replay_state == "paused":
                        self.say("paused: waiting for a person")
                    elif ack.replay_state:
                        self.say(f"replay {ack.replay_state}")
                return
            time.sleep(min(0.5 * 2**attempt, 5.0))  # unanswered: stays in the journal's outbox

    def _start_granted(self, action: NextAction) -> bool:
        for attempt in range(3):
            ack = self._post("start", self._ref(action))
            if ack is not None:
                return ack.proceed and ack.status in ("accepted", "duplicate")
            time.sleep(min(0.5 * 2**attempt, 5.0))
        return False

    def _post(self, kind: str, body: dict[str, Any]) -> ReportAck | None:
        try:
            response = self.client.post(PATHS[kind], json=body, headers=self.headers)
        except httpx2.TransportError as exc:
            logger.warning("agent_x11_post_failed", extra={"path": PATHS[kind], "error": str(exc)})
            return None
        _check_auth(response)
        if response.status_code in (408, 429) or response.status_code >= 500:
            return None
        if response.status_code >= 400:
            self.say(f"{kind} refused: HTTP {response.status_code} {response.text[:200]}")
            return ReportAck(status="unknown", reason=f"HTTP {response.status_code}")
        try:
            data = response.json()
        except ValueError:
            data = {}
        if not isinstance(data, dict) or data.get("status") not in ("accepted", "late", "duplicate", "unknown"):
            return ReportAck(status="accepted")
        return ReportAck.model_validate({k: v for k, v in data.items() if k in _ACK_FIELDS})

    def _ref(self, action: NextAction) -> dict[str, Any]:
        return {
            "replay_id": action.replay_id,
            "action_id": action.action_id,
            "attempt_id": action.attempt_id,
            "machine_id": self.machine_id,
        }


class Interrupted(Exception):
    """A stop request arrived while the agent waited in the long poll."""


class Refused(Exception):
    """The server refused the agent's token: retrying cannot help."""


def _check_auth(response: httpx2.Response) -> None:
    if response.status_code in (401, 403):
        raise Refused(f"the server refused the agent's token (HTTP {response.status_code})")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _seconds(params: dict[str, Any]) -> float:
    for key, scale in (("duration_s", 1.0), ("seconds", 1.0), ("duration_ms", 0.001), ("ms", 0.001)):
        value = params.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value) * scale
    return 0.0


def run_agent(args: argparse.Namespace, *, say: Say) -> int:
    """The CLI entry point: build the agent from arguments, run until SIGINT/SIGTERM."""
    import os
    import signal

    from rpa_mcp.agent_x11.cli import _display, _token
    from rpa_mcp.settings import Settings

    display = _display(args.display)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", args.machine_id)[:80] or "machine"
    journal_path = args.journal or Settings().data_dir / "agent_x11" / f"{slug}.journal.sqlite"
    Path(journal_path).parent.mkdir(parents=True, exist_ok=True)
    journal = Journal(journal_path)
    stop = threading.Event()
    agent = X11Agent(
        url=args.url,
        token=_token(args),
        machine_id=args.machine_id,
        display_name=display,
        journal=journal,
        say=say,
        resolve=args.resolve,
        poll_wait_s=args.wait,
        heartbeat_interval_s=args.heartbeat_interval,
        settle_ms=args.settle_ms,
    )
    say(f"connected to {args.url} as machine {args.machine_id} (display {display}, pid {os.getpid()})")
    say(f"journal: {journal_path}")

    def on_signal(*_: object) -> None:
        stop.set()
        if agent.idle:  # in the long poll: leave now; an action under way is always finished first
            raise Interrupted

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    try:
        agent.run(stop)
    except Interrupted:
        pass
    except Refused as exc:
        say(f"stopped: {exc}")
        return EXIT_REFUSED
    finally:
        agent.close()
        journal.close()
    say("stopped")
    return 0
