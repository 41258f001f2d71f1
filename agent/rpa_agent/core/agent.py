"""The replay agent: the wire v2 loop on any desktop behind the port (docs/replay-wire-contract.md).

For every action: the answer checked against the wire's schema → journal RECEIVED (fsynced) →
receipt ack → not after `not_after` (server clock) → start ack (execute only on `proceed`) →
journal STARTED → screenshot before, window before → resolve the target → input (a text: its
field clicked, then, on evidence that the field has the keyboard (`rpa_agent.core.focus`), its
content selected and replaced by the text) → wait for the screen to settle → screenshot after,
window after → journal DONE(result) → report, re-sent until acknowledged. Heartbeats run while
an action executes. An attempt already in the journal is never executed again: its stored result
is re-sent, or, when it was started and never finished, it is left to the server (OUTCOME_UNKNOWN:
a person decides). A new attempt of an action that ran is executed only on a person's `retry`
(`retry_of`: the attempt they saw, and nothing ran since).

No input is injected while the operating system's own prompt is up (`Windows.system_dialog`: UAC,
polkit) — the agent reports `system_dialog` — or after a person touched the mouse or keyboard during
the replay (`Watch.foreign_count` grew): `human_takeover`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from rpa_agent.core import wire
from rpa_agent.core.http import Http, Unreachable
from rpa_agent.core.journal import DedupCache, Journal, person_retry_allows, ran, without_images
from rpa_agent.core.perform import Performer
from rpa_agent.core.wire import PROTOCOL_HEADER, PROTOCOL_VERSION, SUPPORTED, NextAction, ReportAck, WireError
from rpa_agent.port import Desktop

logger = logging.getLogger(__name__)
Say = Callable[[str], None]
NEXT_PATH = "/api/v1/replay/next"
PATHS = {
    "receipt": "/api/v1/replay/receipt",
    "start": "/api/v1/replay/start",
    "heartbeat": "/api/v1/replay/heartbeat",
    "result": "/api/v1/replay/result",
}
TIMINGS_KEPT = 1000


class Refused(Exception):
    """The server refused the agent's token: retrying cannot help."""


class Interrupted(Exception):
    """A stop request arrived while the agent waited in the long poll."""


class Agent:
    """One workstation's replay agent. `desktop` is the platform backend; `http` reaches the server."""

    def __init__(
        self,
        *,
        desktop: Desktop,
        http: Http,
        machine_id: str,
        journal: Journal,
        say: Say,
        poll_wait_s: float = 25.0,
        heartbeat_interval_s: float = 10.0,
        settle_ms: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.desktop = desktop
        self.machine_id = machine_id
        self.say = say
        self.journal = journal
        self.poll_wait_s = poll_wait_s
        self.heartbeat_interval_s = heartbeat_interval_s
        self.sleep = sleep
        self.http = http
        self.http.headers[PROTOCOL_HEADER] = str(PROTOCOL_VERSION)
        self.http.timeout = max(self.http.timeout, poll_wait_s + 30.0)
        self.hands = Performer(desktop, http, machine_id=machine_id, say=say, settle_ms=settle_ms, sleep=sleep)
        self.dedup = DedupCache()
        for entry in journal.recent_done():
            if entry.result is not None:
                self.dedup.put(entry.action_id, entry.attempt_id, entry.result)
        self._armed: dict[str, int] = {}  # replay_id -> count of a person's inputs already accounted for
        self.idle = False  # waiting in the long poll: nothing journaled, nothing under way
        # per action, epoch seconds of: polled, started, shot, resolved, (focused), injected, settled, encoded, reported
        self.timings: deque[dict[str, Any]] = deque(maxlen=TIMINGS_KEPT)

    @property
    def watch_count(self) -> int:
        return self.desktop.watch.foreign_count

    def close(self) -> None:
        self.hands.close()
        self.http.close()

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
            except Unreachable as exc:
                self.say(f"server unreachable ({exc}); retrying in {backoff:.1f} s")
                stop.wait(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            backoff = 0.5
            if action is not None:
                handled += 1
                self.handle(action)
                said_polling = False

    def poll(self, wait: float | None = None) -> NextAction | None:
        """The next action, None when there is none; a broken one is answered not executed, here."""
        self.idle = True  # a stop request may interrupt the long poll (never an action)
        wait = self.poll_wait_s if wait is None else wait
        try:
            response = self.http.get(NEXT_PATH, params={"machine_id": self.machine_id, "wait": wait})
        finally:
            self.idle = False
        _check_auth(response.status_code)
        if response.status_code == 204:
            return None
        if response.status_code >= 400:
            self.say(f"poll refused: HTTP {response.status_code} {response.text[:200]}")
            self.sleep(1.0)
            return None
        try:
            data = response.json()
        except ValueError:
            self.say("poll answer is not JSON: ignored")
            return None
        try:
            action = wire.next_action(data)
        except WireError as exc:
            self._broken(data, exc)
            return None
        if action.protocol_version not in SUPPORTED:
            self.hands.begin(action)
            self.say(
                f"the server speaks replay protocol {action.protocol_version}; this agent speaks "
                f"{sorted(SUPPORTED)}: update the agent. Not executed."
            )
            self._finish(action, self.hands.not_executed(action, "PROTOCOL: unsupported protocol version"))
            return None
        return action

    def _broken(self, data: Any, exc: WireError) -> None:
        """An action that breaks the wire contract is never executed; reported when it can be named."""
        self.say(f"refused an action that breaks the wire contract ({exc})")
        ref = wire.attempt_ref(data)
        if ref is None:
            return
        result = ref | {
            "machine_id": self.machine_id,
            "success": False,
            "executed": False,
            "error": f"INVALID_ACTION: {exc}"[:2000],
            "error_retryable": False,
        }
        self._send_result(result)

    def flush_outbox(self) -> None:
        for entry in self.journal.unreported():
            if entry.result is not None:
                self._send_result(entry.result)

    # --- one action --------------------------------------------------------------------------------
    def handle(self, action: NextAction) -> None:
        hands = self.hands
        hands.begin(action)
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
        self._armed.setdefault(action.replay_id, self.watch_count)
        v2 = action.protocol_version >= 2
        ack = self._post("receipt", self._ref(action)) if v2 else None
        if ack is not None and ack.status in ("late", "unknown"):
            done = hands.not_executed(action, f"REFUSED: {ack.status}")
            self.journal.done(action.action_id, action.attempt_id, done)
            self.journal.reported(action.action_id, action.attempt_id)
            return
        if time.time() + hands.offset > action.not_after:
            self.say(f"{step} expired before it could start: not executed")
            self._finish(action, hands.not_executed(action, "EXPIRED: not_after has passed (server clock)"))
            return
        refusal = self._before_input(action)
        if refusal is not None:
            self._finish(action, refusal)
            return
        if v2 and not self._start_granted(action):
            self._finish(action, hands.not_executed(action, "NOT_STARTED: the server said not to proceed", None))
            return
        self.journal.started(action.action_id, action.attempt_id)
        hands.mark("started")
        intent = (action.target.label if action.target else None) or action.action_type
        self.say(f"executing {step} {action.action_type} {intent!r}")
        result = self._execute_with_heartbeats(action)
        self._finish(action, result)

    def _execute_with_heartbeats(self, action: NextAction) -> dict[str, Any]:
        done = threading.Event()

        def beat() -> None:
            while not done.wait(self.heartbeat_interval_s):
                self._post("heartbeat", self._ref(action) | {"message": f"{action.action_type} still running"})

        accounted = self._armed.get(action.replay_id, self.watch_count)  # what the check before input counted
        beater = threading.Thread(target=beat, daemon=True)
        beater.start()
        try:
            return self.hands.execute(action, accounted=accounted)
        finally:
            done.set()
            beater.join(5)

    def _before_input(self, action: NextAction) -> dict[str, Any] | None:
        prompt = self.desktop.windows.system_dialog()
        if prompt is not None:
            title = prompt.title or prompt.process or prompt.kind
            self.say(f"paused: the system's own prompt {title!r} is up; nothing is touched")
            system = {"kind": prompt.kind, "process": prompt.process, "title": (prompt.title or "")[:500] or None}
            return self.hands.not_executed(action, f"SYSTEM_DIALOG: {title!r} is up", system=system)
        if self.watch_count > self._armed.get(action.replay_id, self.watch_count):
            self.say("paused: a person is using the mouse or keyboard; waiting for a person to resume")
            return self.hands.not_executed(action, "HUMAN_TAKEOVER: the person is using the desktop", human=True)
        return None

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
                return self.hands.not_executed(action, f"OUTCOME_UNKNOWN: attempt {e.attempt_id} already ran", False)
        return None

    def _finish(self, action: NextAction, result: dict[str, Any]) -> None:
        self.journal.done(action.action_id, action.attempt_id, result)
        self.dedup.put(action.action_id, action.attempt_id, result)
        self._send_result(result)
        self.hands.mark("reported")
        self.timings.append(self.hands.timing(action))

    # --- messages to the server ------------------------------------------------------------------------
    def _send_result(self, result: dict[str, Any]) -> None:
        for attempt in range(5):
            ack = self._post("result", result)
            if ack is not None:
                self.journal.reported(result["action_id"], result["attempt_id"])
                self.dedup.put(result["action_id"], result["attempt_id"], without_images(result))
                replay = result["replay_id"]
                # a person's input after the count this result was judged on is not forgiven: the next action sees it
                seen = self.hands.foreign_seen.pop(result["attempt_id"], None)
                if ack.replay_state == "running":
                    counted = self.watch_count if seen is None else seen
                    self._armed[replay] = counted if not result.get("human_takeover") else 0
                else:
                    self._armed.pop(replay, None)
                    if ack.replay_state == "paused":
                        self.say("paused: waiting for a person")
                    elif ack.replay_state:
                        self.say(f"replay {ack.replay_state}")
                return
            self.sleep(min(0.5 * 2**attempt, 5.0))  # unanswered: stays in the journal's outbox

    def _start_granted(self, action: NextAction) -> bool:
        for attempt in range(3):
            ack = self._post("start", self._ref(action))
            if ack is not None:
                return ack.proceed and ack.status in ("accepted", "duplicate")
            self.sleep(min(0.5 * 2**attempt, 5.0))
        return False

    def _post(self, kind: str, body: dict[str, Any]) -> ReportAck | None:
        """The server's ack; None when it did not answer (retry later); `unknown` when it refused the message."""
        wire.outgoing(kind, body)
        try:
            response = self.http.post(PATHS[kind], body)
        except Unreachable as exc:
            logger.warning("agent_post_failed", extra={"path": PATHS[kind], "error": str(exc)})
            return None
        _check_auth(response.status_code)
        if response.status_code in (408, 429) or response.status_code >= 500:
            return None
        if response.status_code >= 400:
            self.say(f"{kind} refused: HTTP {response.status_code} {response.text[:200]}")
            return ReportAck(status="unknown", reason=f"HTTP {response.status_code}")
        try:
            return wire.report_ack(response.json())
        except (ValueError, WireError):  # an answer without a status (an older server): taken as accepted
            return ReportAck(status="accepted")

    def _ref(self, action: NextAction) -> dict[str, Any]:
        return action.ref | {"machine_id": self.machine_id}


def _check_auth(status: int) -> None:
    if status in (401, 403):
        raise Refused(f"the server refused the agent's token (HTTP {status})")
