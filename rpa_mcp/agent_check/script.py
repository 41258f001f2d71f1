"""The conformance script: what `rpa-mcp agent-check` delivers to the agent under test, poll by poll.

Every action is a `wait` (no input is injected on the agent's desktop), so the check is harmless
on any workstation. Each delivery exercises one clause of docs/replay-wire-contract.md; its
`start` and `result` policies say how the scripted server answers the agent's acks for it.
Ids are unique per run (`run` prefix): an agent's durable journal from an earlier run never
matches them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

StartPolicy = Literal["grant", "paused", "unanswered_once"]
ResultPolicy = Literal["accept", "lost"]


@dataclass(frozen=True)
class Delivery:
    """One answer to a poll: an action (or a resend, or a re-delivery) or an empty poll (204)."""

    clause: str
    action: str | None = None  # the letter of the action; None: nothing to do (204)
    attempt: int = 1
    params: dict[str, Any] = field(default_factory=dict)
    clock_offset_s: float = 0.0  # the scripted server's clock, ahead (+) or behind (-) real time
    ttl_s: float = 120.0  # not_after - server_now (negative: already expired)
    start: StartPolicy = "grant"
    result: ResultPolicy = "accept"
    hold_s: float = 0.0  # an empty poll is held this long (at most the agent's `wait`)
    retry_of: int | None = None  # a person answered `retry` after seeing this attempt of the action


def conformance_script(*, long_action_s: float, pause_hold_s: float) -> tuple[Delivery, ...]:
    """The deliveries, in the order the agent's polls receive them."""
    return (
        Delivery("long-poll", hold_s=0.0),
        Delivery("ack-order", "A"),
        Delivery("duplicate-delivery", "A"),  # the same attempt again: a retried poll
        Delivery("result-retried", "B", result="lost"),  # its result is lost (503, 503, then late)...
        Delivery("resend-after-start", "B", attempt=2),  # ...which dispatches a new attempt
        Delivery("person-retry", "B", attempt=3, retry_of=1),  # a person saw attempt 1's screen and asked again
        Delivery("start-refused", "C", start="paused"),  # a person paused the replay meanwhile
        Delivery("pause", hold_s=pause_hold_s),
        Delivery("pause", hold_s=pause_hold_s),
        Delivery("resume", "C", attempt=2),
        Delivery("start-unanswered", "D", start="unanswered_once"),
        Delivery("not-after", "E", ttl_s=-5.0),
        Delivery("not-after-server-clock", "F", clock_offset_s=3600.0, ttl_s=-5.0),
        Delivery("skew-corrected", "G", clock_offset_s=-3600.0),
        Delivery("heartbeat", "H", params={"seconds": long_action_s}, ttl_s=long_action_s + 120.0),
    )


def ids(run: str, delivery: Delivery) -> tuple[str, str]:
    """(action_id, attempt_id) of an action delivery."""
    action_id = f"{run}-{delivery.action}"
    return action_id, f"{action_id}-{delivery.attempt}"


def key(action_id: str, attempt_id: str) -> str:
    return f"{action_id}/{attempt_id}"


__all__ = ["Delivery", "ResultPolicy", "StartPolicy", "conformance_script", "ids", "key"]
