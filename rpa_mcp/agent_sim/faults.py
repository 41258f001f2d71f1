"""Fault injection for the reference agent (the agent side of the transport faults: lost,
delayed or duplicated reports, crashes mid-action, clock skew; see docs/replay-wire-contract.md).

A `FaultPlan` holds `Fault`s; each names a kind, which received action it hits (`at` = the
n-th action this agent received, 1-based; or `step` = `NextAction.step_index`; or
`action_id`; none of them = the next action), how many times it fires (`times`, 0 = every
time) and an optional `value` (seconds for delays, skew, slow actions; a count for
`lose_report`).

CLI syntax (`--faults`): `kind[@N][:key=value,...]`, several separated by `;` or given
several times, e.g. `lose_report@2`, `delay_report@1:value=45`, `clock_skew:value=300`,
`poison:step=3,times=0`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from rpa_mcp.errors import InvalidInput

FaultKind = Literal[
    "drop_poll_answer",  # (a) the poll's answer never reaches the agent (it polls again)
    "disconnect_after_receive",  # (b) journaled RECEIVED (+ receipt ack), then the agent goes away
    "lose_report",  # (c) the result is lost `value` times (default 1) before it gets through
    "lose_report_ack",  # the result reaches the server but its answer is lost (the agent re-sends)
    "delay_report",  # (d) the result is sent `value` s late, with no heartbeat (races the watchdog)
    "die_mid_action",  # (e) input injected, then the agent dies before DONE
    "die_after_start",  # start ack sent (journal STARTED), the agent dies before any input
    "duplicate_report",  # (h) the result is sent twice
    "stale_attempt",  # (n) an extra report naming an older attempt_id is sent first
    "clock_skew",  # (s) the agent's wall clock is off by `value` s (not_after uses server_now)
    "slow_action",  # (t) the action takes `value` s; heartbeats keep its lease
    "human_takeover",  # the person touched mouse/keyboard: report human_takeover, no input
    "system_dialog",  # a UAC prompt is up (raised on the desktop): report it, no input
    "non_retryable_error",  # the agent refuses the action with error_retryable=false, no input
    "poison",  # the agent dies every time it receives this action (before starting it)
]
FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)


@dataclass
class Fault:
    kind: FaultKind
    at: int | None = None
    step: int | None = None
    action_id: str | None = None
    times: int = 1
    value: float | None = None
    fired: int = 0

    def matches(self, *, nth: int, step: int, action_id: str) -> bool:
        if self.times and self.fired >= self.times:
            return False
        if self.at is not None and self.at != nth:
            return False
        if self.step is not None and self.step != step:
            return False
        return self.action_id is None or self.action_id == action_id


@dataclass
class FaultPlan:
    faults: list[Fault] = field(default_factory=list)

    def add(self, kind: FaultKind, **kwargs: object) -> FaultPlan:
        if kind not in FAULT_KINDS:
            raise InvalidInput(f"unknown fault {kind!r} (known: {', '.join(FAULT_KINDS)})", field="faults")
        self.faults.append(Fault(kind, **kwargs))  # type: ignore[arg-type]  # keyword names checked by Fault
        return self

    def take(self, kind: FaultKind, *, nth: int, step: int, action_id: str) -> Fault | None:
        """The first matching fault of this kind, counted as fired; None when nothing applies."""
        for fault in self.faults:
            if fault.kind == kind and fault.matches(nth=nth, step=step, action_id=action_id):
                fault.fired += 1
                return fault
        return None

    def value(self, kind: FaultKind) -> float | None:
        """For plan-wide faults (clock_skew): the value of the first one, without consuming it."""
        return next((f.value for f in self.faults if f.kind == kind), None)

    @classmethod
    def parse(cls, specs: list[str] | str | None) -> FaultPlan:
        plan = cls()
        items = [specs] if isinstance(specs, str) else list(specs or [])
        for item in items:
            for part in filter(None, (p.strip() for p in item.split(";"))):
                plan.faults.append(_parse_one(part))
        return plan


def _parse_one(text: str) -> Fault:
    head, _, options = text.partition(":")
    kind, _, at = head.partition("@")
    kind = kind.strip()
    if kind not in FAULT_KINDS:
        raise InvalidInput(f"unknown fault {kind!r} (known: {', '.join(FAULT_KINDS)})", field="faults")
    fault = Fault(kind)  # type: ignore[arg-type]  # checked against FAULT_KINDS above
    try:
        if at:
            fault.at = int(at)
        for opt in filter(None, (o.strip() for o in options.split(","))):
            key, _, raw = opt.partition("=")
            if key in ("at", "step", "times"):
                setattr(fault, key, int(raw))
            elif key == "value":
                fault.value = float(raw)
            elif key == "action_id":
                fault.action_id = raw
            else:
                raise InvalidInput(f"fault {text!r}: unknown option {key!r}", field="faults")
    except ValueError as exc:
        raise InvalidInput(f"fault {text!r}: {exc}", field="faults") from exc
    return fault
