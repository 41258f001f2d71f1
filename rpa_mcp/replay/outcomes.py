"""What a replay's end means for a person: one outcome word, from its actions alone.

A replay ends in exactly one of:

- ``completed``: every workflow step's outcome was seen (each step has an action whose verdict
  was SUCCESS, or a server-side step that produced its value);
- ``completed_unverified``: the run went through without a failure, and the only steps whose
  outcome was not seen are those a person declared ``uncheckable`` (the approval page lists them);
- ``reconciliation_required``: the run did not verifiably do every step, and an irreversible
  step (save, validate, sign, send, delete, dispense) may have been executed: a person must check
  the record; the irreversible steps sent are named with their evidence;
- ``halted_before_effect``: the run did not verifiably do every step, and nothing irreversible
  was sent: safe to run again.

While it has not ended a replay is ``running`` or ``paused``; ``cancelled`` is a cancelled replay
whose action in flight has not reported yet (its report decides between the last two words).
``verified`` is a ``completed`` run whose record was then read back through the competence's
declared read-back with every field equal (`replay.readback`); it is recorded once, after the end.

An action "may have run" when input may have been injected: it reported that it executed, or
the agent acknowledged its start (v2), or it went to a v1 agent (no start acks) and never said
it did not execute. A step that was never dispatched, refused at start, or reported
``executed: false`` did not run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow, ReplayRow

RUNNING = "running"
PAUSED = "paused"
CANCELLED = "cancelled"
COMPLETED = "completed"
COMPLETED_UNVERIFIED = "completed_unverified"
HALTED_BEFORE_EFFECT = "halted_before_effect"
RECONCILIATION_REQUIRED = "reconciliation_required"
VERIFIED = "verified"
ENDED = frozenset({COMPLETED, COMPLETED_UNVERIFIED, HALTED_BEFORE_EFFECT, RECONCILIATION_REQUIRED, VERIFIED})

MEANING = {
    RUNNING: "The replay is running.",
    PAUSED: "The replay is paused: it waits for a person.",
    CANCELLED: "The replay was cancelled; an action still in flight will say how it ended.",
    COMPLETED: "Every step was done and its outcome seen.",
    COMPLETED_UNVERIFIED: "Every step was done; the steps declared uncheckable at approval could not be checked.",
    HALTED_BEFORE_EFFECT: "Stopped before anything irreversible was sent: it is safe to run it again.",
    RECONCILIATION_REQUIRED: "Stopped after an irreversible step was sent: a person must check the record "
    "(the steps are named) before anything is run again.",
    VERIFIED: "Every step was done, its outcome seen, and the record read back.",
}

IRREVERSIBLE = "irreversible"
SEEN_OUTCOMES = frozenset({"success", "extracted"})  # a verdict SUCCESS, or a server-side value produced
# A step that opened a dialog the catalog answers by policy is seen when that answer is.
NOT_EXECUTED = "not_executed"


def step_class(a: ActionRow) -> str:
    return str((a.expected or {}).get("step_class") or "navigation")


def is_irreversible(a: ActionRow) -> bool:
    return step_class(a) == IRREVERSIBLE


def is_seen(a: ActionRow) -> bool:
    """The action's outcome was seen: acknowledged with a SUCCESS verdict (or a server-side value)."""
    return a.state == m.ACKED and a.outcome in SEEN_OUTCOMES


def may_have_run(a: ActionRow) -> bool:
    """Input may have been injected on the desktop for this action (see the module docstring)."""
    if a.server_side or a.dispatches == 0:
        return False
    if a.journal == m.J_STARTED:
        return True
    if a.outcome == NOT_EXECUTED:
        return False
    if a.state in (m.ACKED, m.HELD) or a.journal == m.J_DONE:
        return True
    return a.protocol_version < 2  # a v1 agent never says it started: it may have


@dataclass(frozen=True)
class Effect:
    """An irreversible step that may have run: which one, whether its outcome was seen, its evidence."""

    action_id: str
    index: int
    intent: str | None
    outcome_seen: bool
    outcome: str | None
    verdict: str | None
    evidence: list[str] = field(default_factory=list)  # labels of its evidence crops

    def as_dict(self) -> dict[str, Any]:
        return {
            "action_id": self.action_id,
            "index": self.index,
            "intent": self.intent,
            "outcome_seen": self.outcome_seen,
            "outcome": self.outcome,
            "verdict": self.verdict,
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class ReplayOutcome:
    word: str
    steps_done: int  # workflow steps whose outcome was seen
    effects: list[Effect]  # irreversible steps that may have run
    unverified: list[int]  # workflow steps not seen (indexes)
    uncheckable: list[int]  # steps declared uncheckable

    @property
    def ended(self) -> bool:
        return self.word in ENDED

    @property
    def if_stopped_now(self) -> str:
        """What the run would end as if it stopped now (shown while paused)."""
        return RECONCILIATION_REQUIRED if self.effects else HALTED_BEFORE_EFFECT

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.word,
            "meaning": MEANING[self.word],
            "steps_done": self.steps_done,
            "irreversible_sent": [e.as_dict() for e in self.effects],
            "unverified_steps": self.unverified,
            "uncheckable_steps": self.uncheckable,
            "if_stopped_now": None if self.ended else self.if_stopped_now,
        }


def _step_actions(actions: Sequence[ActionRow]) -> dict[int, list[ActionRow]]:
    """The actions of each workflow step (a retry's copy included; a dialog's answer, or the observation a
    replay began with, is not the step)."""
    out: dict[int, list[ActionRow]] = {}
    for a in actions:
        if (
            a.origin == "dialog"
            or a.origin in m.LOOK_ORIGINS
            or (a.action_type == "dialog_button" and a.origin != "workflow")
        ):
            continue
        out.setdefault(a.step_index, []).append(a)
    return out


def outcome_of(replay: ReplayRow, actions: Sequence[ActionRow]) -> ReplayOutcome:
    steps = _step_actions(actions)
    answered = {a.step_index for a in actions if a.origin == "dialog" and is_seen(a)}
    seen = sorted(
        i
        for i, acts in steps.items()
        if any(is_seen(a) or (a.outcome == "success_dialog_auto" and i in answered) for a in acts)
    )
    unverified = sorted(i for i in steps if i not in seen)
    uncheckable = sorted(i for i, acts in steps.items() if any((a.expected or {}).get("uncheckable") for a in acts))
    effects = [
        Effect(
            action_id=a.action_id,
            index=a.step_index,
            intent=a.intent,
            outcome_seen=is_seen(a),
            outcome=a.outcome,
            verdict=(a.verdict or {}).get("verdict") if isinstance(a.verdict, dict) else None,
            evidence=[str(c.get("label")) for c in a.evidence or [] if isinstance(c, dict)],
        )
        for a in actions
        if is_irreversible(a) and may_have_run(a)
    ]
    word = _word(replay, actions, steps, unverified, uncheckable, effects)
    return ReplayOutcome(word, len(seen), effects, unverified, uncheckable)


def _word(
    replay: ReplayRow,
    actions: Sequence[ActionRow],
    steps: dict[int, list[ActionRow]],
    unverified: list[int],
    uncheckable: list[int],
    effects: list[Effect],
) -> str:
    if replay.state == m.RUNNING:
        return RUNNING
    if replay.state == m.PAUSED:
        return PAUSED
    if replay.state == m.CANCELLED and any(a.state == m.DISPATCHED for a in actions):
        return CANCELLED  # its report (or the watchdog) decides
    if replay.state == m.COMPLETED:
        if not unverified:
            return VERIFIED if replay.outcome == VERIFIED else COMPLETED
        if set(unverified) <= set(uncheckable) and all(_went_through(steps[i]) for i in unverified):
            return COMPLETED_UNVERIFIED
    return RECONCILIATION_REQUIRED if effects else HALTED_BEFORE_EFFECT


def _went_through(acts: Sequence[ActionRow]) -> bool:
    """A step declared uncheckable went through: executed and acknowledged, never skipped or abandoned."""
    return any(a.state == m.ACKED and a.outcome not in ("skipped_by_person", "failed_after_cancel") for a in acts)


def current_action(replay: ReplayRow, actions: Sequence[ActionRow]) -> ActionRow | None:
    """The action a person looks at: the paused one (even once abandoned), else the first still open."""
    if replay.state == m.PAUSED:
        paused_id = (replay.pause_detail or {}).get("action_id")
        paused = next((a for a in actions if a.action_id == paused_id), None)
        if paused is not None:
            return paused
    if replay.state in m.TERMINAL_REPLAY_STATES:
        return None
    return next((a for a in actions if a.state in m.OPEN_ACTION_STATES), None)
