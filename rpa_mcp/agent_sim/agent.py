"""The reference desktop agent: long-polls the server, executes each action exactly once on a
virtual desktop, reports with evidence, and can inject every transport fault on demand (`faults.py`).

Client states (the agent algorithm of docs/replay-wire-contract.md):
POLLING → RECEIVED → DEDUP → EXECUTING → REPORTING → ACKED.

- journal first: an attempt is written RECEIVED before anything else, STARTED before the first
  input, DONE with its result after; the result stays in the journal (the outbox) until the
  server answers it;
- dedup: an attempt already executed (LRU of 50 `action_id + attempt_id`, then the journal)
  is never executed again — its stored result is re-sent. An attempt found STARTED without a
  result (the agent died mid-action) is reported as OUTCOME_UNKNOWN, never re-executed;
- a new attempt of an action this agent already started is not executed either unless the
  server marks it `idempotent` (fencing on the agent side too), or a person answered `retry`
  after seeing that attempt (`retry_of`) and no attempt received since ran;
- v2 (header `X-Replay-Protocol-Version: 2`): receipt and start acks, heartbeats for long
  actions, and no input when the start ack says `proceed=false`; v1 sends none of these;
- nothing is executed after `not_after` (server clock, corrected with `server_now`), while a
  system dialog owns the screen (identified by process, never by OCR), or when the person
  has touched the desktop.

The agent takes an `httpx2.AsyncClient` (base URL set on it), so tests run it against an ASGI
app in memory. A simulated death raises `AgentCrashed`: build a new agent on the same journal
file to "restart" it.
"""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import anyio
import httpx2
from rpa_agent.core.actions import NO_INPUT
from rpa_agent.core.journal import DedupCache, Journal, attempt_key, person_retry_allows, ran

from rpa_mcp.agent_sim import execute
from rpa_mcp.agent_sim.desktop import VirtualDesktop
from rpa_mcp.agent_sim.faults import Fault, FaultKind, FaultPlan
from rpa_mcp.agent_sim.link import (
    ACK_PATHS,
    EVENT_PATH,
    HEARTBEAT_PATH,
    NEXT_PATH,
    RESULT_PATH,
    ServerLink,
    raise_for_auth,
)
from rpa_mcp.clock import Clock, SystemClock
from rpa_mcp.replay.wire import PROTOCOL_HEADER, ActionResult, NextAction, ReportAck, SystemDialog

logger = logging.getLogger(__name__)
Sleep = Callable[[float], Awaitable[None]]


class AgentCrashed(Exception):  # a simulated process death, not an error of the product
    """The simulated agent process died (fault injection). Restart = a new agent, same journal."""


class SkewedClock:
    """The agent's wall clock, off by `skew_s` (fault `clock_skew`); monotonic time is unaffected."""

    def __init__(self, base: Clock, skew_s: float) -> None:
        self._base, self.skew_s = base, skew_s

    def now(self) -> float:
        return self._base.now() + self.skew_s

    def monotonic(self) -> float:
        return self._base.monotonic()


class ReferenceAgent:
    def __init__(
        self,
        client: httpx2.AsyncClient,
        desktop: VirtualDesktop,
        *,
        machine_id: str,
        journal: Journal,
        token: str | None = None,
        protocol_version: int = 2,
        faults: FaultPlan | None = None,
        clock: Clock | None = None,
        sleep: Sleep = anyio.sleep,
        poll_wait_s: float = 25.0,
        heartbeat_interval_s: float = 5.0,
        start_ack_attempts: int = 3,
        guard_action_id: bool = True,
    ) -> None:
        self.client = client
        self.desktop = desktop
        self.machine_id = machine_id
        self.journal = journal
        self.protocol_version = protocol_version
        self.faults = faults or FaultPlan()
        skew = self.faults.value("clock_skew")
        base_clock = clock or SystemClock()
        self.clock: Clock = SkewedClock(base_clock, skew) if skew else base_clock
        self.sleep = sleep
        self.poll_wait_s = poll_wait_s
        self.heartbeat_interval_s = heartbeat_interval_s
        self.start_ack_attempts = start_ack_attempts
        self.guard_action_id = guard_action_id
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        if protocol_version >= 2:
            self.headers[PROTOCOL_HEADER] = str(protocol_version)
        self.link = ServerLink(client, self.headers)
        self.dedup = DedupCache()
        for entry in journal.recent_done():  # a restarted agent remembers what it executed
            if entry.result is not None:
                self.dedup.put(entry.action_id, entry.attempt_id, entry.result)
        self.received = 0  # answers handled (the `at` of faults counts these)
        self.events: list[tuple[str, str]] = []  # (event, action_id:attempt_id) for tests and logs
        self._fault_ctx: dict[str, tuple[int, int, str]] = {}
        self._offset = 0.0  # server clock - agent clock, from the last NextAction
        self._human_at_receipt = desktop.human_input_count()
        self._connected = False

    @property
    def v2(self) -> bool:
        return self.protocol_version >= 2

    # --- the loop ---------------------------------------------------------------------------
    async def run(self, *, max_actions: int | None = None, stop: anyio.Event | None = None) -> None:
        """Poll until `stop` is set or `max_actions` answers were handled. Crashes propagate."""
        handled = 0
        backoff = 0.5
        while not (stop and stop.is_set()) and (max_actions is None or handled < max_actions):
            try:
                action = await self.poll_once()
            except httpx2.TransportError as exc:
                logger.warning(
                    "cannot reach %s (%s); trying again in %.1f s",
                    self.client.base_url,
                    exc or type(exc).__name__,
                    backoff,
                    extra={"event": "agent_poll_failed", "machine_id": self.machine_id},
                )
                self._connected = False
                await self.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            backoff = 0.5
            if action is not None:
                handled += 1
                logger.info("waiting for the next action", extra={"event": "agent_polling"})
            elif self.poll_wait_s < 1.0:  # a short poll came back empty: do not spin
                await self.sleep(1.0)

    async def poll_once(self) -> NextAction | None:
        """Re-send unacknowledged results, then one long poll; handle the action if one came."""
        await self.flush_outbox()
        wait = self.poll_wait_s if self._connected else 0.0  # the first poll answers at once: connected or not
        response = await self.client.get(
            NEXT_PATH,
            params={"machine_id": self.machine_id, "wait": wait},
            headers=self.headers,
            timeout=wait + 15.0,
        )
        raise_for_auth(response)
        if not self._connected:
            self._connected = True
            logger.info(
                "connected to %s as machine %s (protocol v%d): waiting for actions (long poll of %.0f s)",
                self.client.base_url,
                self.machine_id,
                self.protocol_version,
                self.poll_wait_s,
                extra={"event": "agent_connected", "machine_id": self.machine_id},
            )
        if response.status_code == 204:
            return None
        if response.status_code >= 400:
            logger.warning(
                "the server refused the poll (HTTP %d): %s",
                response.status_code,
                response.text[:300],
                extra={"event": "agent_poll_refused"},
            )
            await self.sleep(1.0)
            return None
        action = NextAction.model_validate(response.json())
        if self._take("drop_poll_answer", self.received + 1, action):
            self._event("poll_answer_dropped", action)
            return None
        await self.handle(action)
        return action

    async def handle(self, action: NextAction) -> dict[str, Any] | None:
        """RECEIVED → DEDUP → EXECUTING → REPORTING for one answer; returns the result reported."""
        self.received += 1
        nth = self.received
        self._fault_ctx[attempt_key(action.action_id, action.attempt_id)] = (nth, action.step_index, action.action_id)
        self._offset = action.server_now - self.clock.now()
        self._human_at_receipt = self.desktop.human_input_count()
        cached = self.dedup.get(action.action_id, action.attempt_id)
        if cached is not None:
            self._event("dedup_hit", action)
            await self._send_result(cached)
            return cached
        entry = self.journal.get(action.action_id, action.attempt_id)
        if entry is not None and entry.state == "DONE" and entry.result is not None:
            self._event("journal_hit", action)
            self.dedup.put(action.action_id, action.attempt_id, entry.result)
            await self._send_result(entry.result)
            return entry.result
        if entry is not None and entry.state == "STARTED":
            self._event("outcome_unknown", action)
            unknown = self._not_executed(action, "OUTCOME_UNKNOWN: the agent stopped while executing this attempt")
            unknown["executed"] = True  # input may have been injected: never claim it was not
            return await self._finish(action, unknown)
        if entry is None:
            refusal = self._guard_other_attempts(action)
            self.journal.received(action.replay_id, action.action_id, action.attempt_id, action.not_after)
            self._event("received", action)
            if refusal is not None:
                return await self._finish(action, refusal)
        if self._take("poison", nth, action):
            self._event("crash_poison", action)
            raise AgentCrashed(f"poison action {action.action_id}")
        if self.v2:
            ack = await self._post_ack("receipt", action)
            if ack is not None and ack.status in ("late", "unknown"):
                self._event("receipt_refused", action)
                return await self._finish(
                    action, self._not_executed(action, f"REFUSED: receipt answered {ack.status}"), send=False
                )
        if self._take("disconnect_after_receive", nth, action):
            self._event("crash_after_receive", action)
            raise AgentCrashed(f"disconnected after receiving {action.action_id}")
        refusal = self._pre_checks(action, nth)
        if refusal is not None:
            return await self._finish(action, refusal)
        self.journal.started(action.action_id, action.attempt_id)
        if self.v2 and not await self._start_granted(action):
            return await self._finish(action, self._not_executed(action, "NOT_STARTED: the server said not to proceed"))
        if self._take("die_after_start", nth, action):
            self._event("crash_after_start", action)
            raise AgentCrashed(f"died after starting {action.action_id}")
        return await self._finish(action, await self._execute(action, nth))

    async def flush_outbox(self) -> None:
        for entry in self.journal.unreported():
            if entry.result is not None:
                await self._send_result(entry.result)

    # --- execution --------------------------------------------------------------------------
    def _pre_checks(self, action: NextAction, nth: int) -> dict[str, Any] | None:
        """Reasons not to inject any input: expired, refused, a person or a system dialog."""
        if self.clock.now() + self._offset > action.not_after:
            return self._not_executed(action, "EXPIRED: not_after has passed (server clock)", retryable=False)
        if self._take("non_retryable_error", nth, action):
            return self._not_executed(action, "NON_RETRYABLE: the target application refused the input", False)
        if self._take("human_takeover", nth, action):
            self.desktop.click(0, 0, source="human")
        if action.action_type.lower() not in NO_INPUT:  # a look at the screen injects nothing
            self.desktop.before_action()
        if self._take("system_dialog", nth, action):
            self._raise_system_dialog()
        if self._human_since():
            return self._not_executed(action, "HUMAN_TAKEOVER: the person is using the desktop", human=True)
        dialog = self.desktop.system_dialog()
        if dialog is not None:
            system = SystemDialog(kind=dialog.system or "other", process=dialog.process, title=dialog.window_title)
            return self._not_executed(action, f"SYSTEM_DIALOG: {dialog.dialog_id} is up", system=system)
        return None

    async def _execute(self, action: NextAction, nth: int) -> dict[str, Any]:
        before = self.desktop.screenshot_png()
        title_before = self.desktop.window_title
        started = time.monotonic()
        self._event("executing", action)
        outcome = execute.inject(self.desktop, action)
        if self._take("die_mid_action", nth, action):
            self._event("crash_mid_action", action)
            raise AgentCrashed(f"died while executing {action.action_id}")
        slow = self._take("slow_action", nth, action)
        duration = outcome.duration_s + ((slow.value or 0.0) if slow else 0.0)
        if duration > 0:
            await self._long_wait(action, duration)
        human = self._human_since()
        result = ActionResult(
            replay_id=action.replay_id,
            action_id=action.action_id,
            attempt_id=action.attempt_id,
            machine_id=self.machine_id,
            success=outcome.success,
            error=outcome.error,
            error_retryable=outcome.retryable,
            warning=outcome.warning or ("the person touched the desktop during the action" if human else None),
            actual_position=list(outcome.position) if outcome.position else None,
            screenshot_before=_b64(before),
            screenshot_after=_b64(self.desktop.screenshot_png()),
            window_title=self.desktop.window_title,
            window_title_before=title_before,
            process_after=self.desktop.process,
            human_takeover=human,
            executed=outcome.executed,
            output=outcome.output,
            duration_ms=int((time.monotonic() - started) * 1000),
        )
        self._event("executed" if outcome.executed else "not_executed", action)
        return result.model_dump(mode="json", exclude_none=True)

    async def _long_wait(self, action: NextAction, seconds: float) -> None:
        """A long action: sleep in slices, sending a heartbeat after each one (v2)."""
        remaining = seconds
        while remaining > 0:
            step = min(self.heartbeat_interval_s, remaining)
            await self.sleep(step)
            remaining -= step
            if remaining > 0 and self.v2:
                body = self._ref(action) | {"progress": round(1 - remaining / seconds, 3)}
                await self.link.post(HEARTBEAT_PATH, body)
                self._event("heartbeat", action)

    def _not_executed(
        self,
        action: NextAction,
        error: str,
        retryable: bool | None = False,
        *,
        human: bool = False,
        system: SystemDialog | None = None,
    ) -> dict[str, Any]:
        screen = _b64(self.desktop.screenshot_png())
        result = ActionResult(
            **self._ref(action),
            success=False,
            error=error,
            error_retryable=retryable,
            screenshot_before=screen,
            screenshot_after=screen,
            window_title=self.desktop.window_title,
            window_title_before=self.desktop.window_title,
            process_after=self.desktop.process,
            human_takeover=human,
            system_dialog=system,
            executed=False,
        )
        return result.model_dump(mode="json", exclude_none=True)

    def _guard_other_attempts(self, action: NextAction) -> dict[str, Any] | None:
        """A new attempt of an action this agent may already have executed: never run a
        non-idempotent one twice (attempts that injected nothing do not count)."""
        if not self.guard_action_id or action.idempotent:
            return None
        attempts = [e for e in self.journal.attempts_of(action.action_id) if e.attempt_id != action.attempt_id]
        previous = [e for e in attempts if ran(e)]
        if not previous:
            return None
        if person_retry_allows(attempts, action.retry_of):
            self._event("person_retry", action)  # a person saw the screen after that attempt and asked again
            return None
        last = previous[-1]
        self._event("already_executed", action)
        if last.state == "DONE" and last.result is not None:
            result = dict(last.result) | self._ref(action)
            result["executed"] = False  # this attempt injected nothing; the earlier one did
            result["warning"] = f"ALREADY_EXECUTED under attempt {last.attempt_id}: not executed again"
            return result
        return self._not_executed(
            action, f"OUTCOME_UNKNOWN: attempt {last.attempt_id} of this action was started and not finished"
        )

    async def _finish(self, action: NextAction, result: dict[str, Any], *, send: bool = True) -> dict[str, Any]:
        self.journal.done(action.action_id, action.attempt_id, result)
        self.dedup.put(action.action_id, action.attempt_id, result)
        if send:
            await self._send_result(result)
        else:
            self.journal.reported(action.action_id, action.attempt_id)
        return result

    # --- reporting ----------------------------------------------------------------------------
    async def _send_result(self, result: dict[str, Any]) -> None:
        action_id, attempt_id = result["action_id"], result["attempt_id"]
        key = attempt_key(action_id, attempt_id)
        nth, step, _ = self._fault_ctx.get(key, (0, -1, action_id))

        def take(kind: FaultKind) -> Fault | None:
            return self.faults.take(kind, nth=nth, step=step, action_id=action_id) if nth else None

        delay = take("delay_report")
        if delay is not None:
            await self.sleep(delay.value or 0.0)
        if take("stale_attempt") is not None:
            older = [e.attempt_id for e in self.journal.attempts_of(action_id) if e.attempt_id != attempt_id]
            stale = older[-1] if older else f"{attempt_id}-stale"
            await self.link.post(RESULT_PATH, result | {"attempt_id": stale})
            self.events.append(("stale_report_sent", f"{action_id}:{stale}"))
        if take("lose_report") is not None:
            self.events.append(("report_lost", f"{action_id}:{attempt_id}"))
            return
        ack = await self.link.post(RESULT_PATH, result)
        if take("lose_report_ack") is not None:
            self.events.append(("report_ack_lost", f"{action_id}:{attempt_id}"))
            return
        if ack is None:
            return  # not answered: stays in the outbox
        self.journal.reported(action_id, attempt_id)
        self.events.append((f"report_{ack.status}", f"{action_id}:{attempt_id}"))
        logger.info(
            "reported %s of %s%s (action %s, attempt %s): %s",
            "a success" if result.get("success") else "a failure" if result.get("executed", True) else "no execution",
            step_label(step),
            f" ({result['error']})" if result.get("error") else "",
            action_id,
            attempt_id,
            ack.status,
            extra={"event": f"agent_report_{ack.status}", "action_id": action_id, "attempt_id": attempt_id},
        )
        if take("duplicate_report") is not None:
            await self.link.post(RESULT_PATH, result)
            self.events.append(("report_duplicated", f"{action_id}:{attempt_id}"))

    async def _post_ack(self, kind: str, action: NextAction) -> ReportAck | None:
        ack = await self.link.post(ACK_PATHS[kind], self._ref(action))
        self._event(f"{kind}_ack_{ack.status if ack else 'unanswered'}", action)
        return ack

    async def _start_granted(self, action: NextAction) -> bool:
        """Send the start ack; execute only when the server answered and did not say no."""
        for attempt in range(self.start_ack_attempts):
            ack = await self._post_ack("start", action)
            if ack is not None:
                return ack.proceed and ack.status in ("accepted", "duplicate")
            await self.sleep(min(0.5 * 2**attempt, 5.0))
        return False

    # --- shadow ------------------------------------------------------------------------------
    async def stream_demonstration(self, events: Iterable[dict[str, Any]]) -> list[int]:
        """POST shadow events (docs/concepts/shadow.md) one by one; returns the HTTP statuses."""
        statuses = []
        for event in events:
            body = {"machine_id": self.machine_id} | event
            response = await self.client.post(EVENT_PATH, json=body, headers=self.headers)
            raise_for_auth(response)
            statuses.append(response.status_code)
        return statuses

    # --- helpers -----------------------------------------------------------------------------
    def _ref(self, action: NextAction) -> dict[str, Any]:
        return {
            "replay_id": action.replay_id,
            "action_id": action.action_id,
            "attempt_id": action.attempt_id,
            "machine_id": self.machine_id,
        }

    def _take(self, kind: FaultKind, nth: int, action: NextAction) -> Fault | None:
        return self.faults.take(kind, nth=nth, step=action.step_index, action_id=action.action_id)

    def _human_since(self) -> bool:
        """Did the person use the mouse or keyboard since this attempt was received?"""
        return self.desktop.human_input_count() > self._human_at_receipt

    def _raise_system_dialog(self) -> None:
        dialog = next((d for d in self.desktop.spec.dialogs if d.system), None)
        if dialog is None:
            raise LookupError(f"desktop {self.desktop.spec.name} defines no system dialog to raise")
        self.desktop.raise_dialog(dialog.id)

    def _event(self, name: str, action: NextAction) -> None:
        self.events.append((name, f"{action.action_id}:{action.attempt_id}"))
        label = action.target.label if action.target is not None and action.target.label else None
        step = step_label(action.step_index, action.steps_total)
        what = f"{action.action_type}{f' {label!r}' if label else ''}"
        if "_ack_" in name:  # receipt_ack_accepted, start_ack_duplicate, ...
            kind, _, status = name.partition("_ack_")
            said = f"{kind} acknowledged for {step}: {status}"
        else:
            said = f"{name.replace('_', ' ')} {step}: {what}"
        logger.info(
            "%s (action %s, attempt %s)",
            said,
            action.action_id,
            action.attempt_id,
            extra={
                "event": "agent_" + name,
                "replay_id": action.replay_id,
                "action_id": action.action_id,
                "attempt_id": action.attempt_id,
            },
        )


def step_label(step_index: int, steps_total: int = 0) -> str:
    """`step 3/6` as people count steps: NextAction.step_index counts from 1 (0 when not given)."""
    number = str(step_index) if step_index > 0 else "?"
    return f"step {number}" + (f"/{steps_total}" if steps_total else "")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
