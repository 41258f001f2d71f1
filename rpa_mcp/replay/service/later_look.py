"""A later look at a step a slow application had not finished showing (under load, or a record slow to open).

The agent sends the screen once it has been still for a moment; a slow application may draw after that:
- **typed text**: the last letters typed. When the typed-text check fails only because the field reads a strict
  beginning of the text (the last characters missing: no wrong or extra character), or nothing changed yet;
- **a window**: the window the step opened or retitled in the demonstration. When the step began on the window
  the demonstration began on, that window is still in front after it (the same title: no other window came),
  and the check failed only because the new window is not there yet (its title, the outcome, or nothing
  changed);
- **an outcome**: what the step made appear in the demonstration (a message, a heading, a dialog, a row; a
  save answered by a server seconds later). When the check failed only because it is not on the screen yet
  (`outcome-missing`), or nothing changed at all. Such a step, and an irreversible one (a save, a validation),
  is never a success with nothing changed (no `no_screen_change` warning): only what it shows proves it.

The step is not judged yet: it is held, with no pause, and one look at the screen (`screenshot_evidence`, no input)
is queued ahead of it. A window's look ends as soon as the front window's title changes, an outcome's as soon as
the screen is another than the one sent after the step (at most `LATE_WINDOW_WAIT_S`). That look's screenshot is
then the step's after-screen: the step is validated again on it, against the screen from before the step (kept on
the step's row meanwhile). Still not there, or any other mismatch: the step keeps its failure and the replay pauses
as it did without the look. The input is never sent again, and a step gets at most one later look (the one judging
it never asks for another).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.replay.outcomes import is_irreversible
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.wire import ActionResult
from rpa_mcp.validation.text import text_contains

LATER_LOOK_WAIT_S = 1.0  # a slow application's last letters are drawn well within it
# as long as learning takes a window change for its step's effect (shadow.window_effects.LATE_EFFECT_S)
LATE_WINDOW_WAIT_S = 10.0
TITLE_CHANGES_PARAM = "until_title_changes_from"  # the agent's wait ends once the front window's title is another
SCREEN_CHANGES_PARAM = "until_screen_changes"  # the agent's wait ends once the screen is another than the last sent
TYPED_SIGNAL = "typed"  # the matrix's typed-text signal of a typing step
TYPING_STEPS = frozenset({"type_text"})
TEXT_LOOK, WINDOW_LOOK, OUTCOME_LOOK = "typed_text", "window", "outcome"
OUTCOME_MISSING = "outcome-missing"  # the matrix's rule: the outcome the demonstration showed is not on screen
# outcomes a step makes appear (a field's value may hold already: nothing changing proves nothing wrong)
APPEARING = frozenset({"message", "heading", "dialog", "window_title", "row"})
# what a window not shown yet fails: its title (the front one is still the one before), its post-condition, or
# nothing changed yet; a wrong target, text or dialog is no window still coming
WINDOW_NOT_YET = frozenset({"WRONG_APPLICATION", "UNEXPECTED_OUTCOME", "NO_VISUAL_CHANGE"})


def typed_read(vdict: dict[str, Any]) -> str | None:
    """What the typed-text check read in the field (None when it read nothing)."""
    for item in vdict.get("evidence") or []:
        if isinstance(item, dict) and item.get("signal") == TYPED_SIGNAL:
            read = item.get("read")
            return read if isinstance(read, str) and read else None
    return None


def window_coming(a: ActionRow, category: str | None, title_before: str | None, title_after: str | None) -> bool:
    """The step opened or retitled a window in the demonstration, it began on the window the demonstration began
    on, and after it that window is still in front (same title): the window has not come yet. Another window in
    front, before or after, is no window still coming (the input may have gone to it)."""
    was = a.expected.get("window_before")
    if category not in WINDOW_NOT_YET or not isinstance(was, str) or not was.strip():
        return False
    wanted = _window_shown(a, was)
    if wanted is None:  # no window change was shown
        return False
    if not title_after or title_after != title_before or not text_contains(title_before, was):
        return False
    return not text_contains(title_after, wanted)


def _window_shown(a: ActionRow, was: str) -> str | None:
    """The title the demonstration showed after the step where it was not `was`: its window after, or its
    outcome when that is a window title (a record's title naming the patient); None when no window changed."""
    outcome = a.expected.get("outcome")
    titled = outcome.get("text") if isinstance(outcome, dict) and outcome.get("kind") == "window_title" else None
    for title in (a.expected.get("window_after"), titled):
        if isinstance(title, str) and title.strip() and not text_contains(was, title):
            return title
    return None


def shows_outcome(a: ActionRow) -> bool:
    """The step's demonstration showed something appear after it (its post-condition): only that proves it."""
    outcome = a.expected.get("outcome")
    return isinstance(outcome, dict) and outcome.get("kind") in APPEARING and bool(outcome.get("text"))


def must_change(a: ActionRow) -> bool:
    """Nothing changed on the screen is no success for this step: its demonstration showed something appear
    after it, or it changes a record for good (irreversible: save, validate, send) and a screen showing nothing
    of it proves nothing was done."""
    return shows_outcome(a) or is_irreversible(a)


def outcome_coming(a: ActionRow, category: str | None, rule: str | None) -> bool:
    """The step's outcome is not on the screen yet: the check failed only for its absence, or nothing changed."""
    if not shows_outcome(a):
        return False
    return category == "NO_VISUAL_CHANGE" or (category == "UNEXPECTED_OUTCOME" and rule == OUTCOME_MISSING)


def look_row(
    step: ActionRow, *, seq: float, now: float, max_resends: int, kind: str = TEXT_LOOK, title: str | None = None
) -> ActionRow:
    """The look that judges `step`, queued just ahead of it (`step` is held meanwhile). A window's look waits
    until the front window's title is no longer `title` (the one after the step), an outcome's until the screen
    changes, at most `LATE_WINDOW_WAIT_S`."""
    if kind == WINDOW_LOOK:
        why = f"Look at the screen again after step {step.step_index}: the window it opens was not shown yet"
        params: dict[str, Any] = {"seconds": LATE_WINDOW_WAIT_S, TITLE_CHANGES_PARAM: title}
    elif kind == OUTCOME_LOOK:
        why = f"Look at the screen again after step {step.step_index}: what it shows once done was not shown yet"
        params = {"seconds": LATE_WINDOW_WAIT_S, SCREEN_CHANGES_PARAM: True}
    else:
        why = f"Look at the field of step {step.step_index} again: its typed text was still being drawn"
        params = {"seconds": LATER_LOOK_WAIT_S}
    return ActionRow(
        replay_id=step.replay_id,
        action_id=f"{step.action_id}-look{step.dispatches}",
        seq=seq,
        step_index=step.step_index,
        intent=why,
        action_type="screenshot_evidence",
        target=None,
        params=params,
        expected={
            "step_class": "navigation",
            "window_before": None,
            "window_after": None,
            "outcome": None,
            "looks_at": step.action_id,
        },
        idempotent=1,
        max_resends=max_resends,
        origin=m.LATER_LOOK_ORIGIN,
        state=m.PENDING,
        updated_at=now,
    )


def seq_before(actions: Sequence[ActionRow], step: ActionRow) -> float:
    """A place in the queue between `step` and the action before it."""
    earlier = [a.seq for a in actions if a.seq < step.seq]
    return (max(earlier) + step.seq) / 2 if earlier else step.seq - 0.5


def as_step_report(msg: ActionResult, step: ActionRow) -> ActionResult:
    """The look's report as the step's: the screen before the step, where it acted, the title before it;
    the look's screenshot as the screen after (the look's attempt stays: it names the screenshot that judged)."""
    result = step.result if isinstance(step.result, dict) else {}
    before = step.screen_before or b""
    return msg.model_copy(
        update={
            "screenshot_before": base64.b64encode(before).decode() if before else None,
            "actual_position": result.get("actual_position"),
            "window_title_before": result.get("window_title_before"),
            "warning": result.get("warning"),
            "output": result.get("output"),
        }
    )


def decided_by(look: ActionRow, msg: ActionResult, step: ActionRow, *, seen: bool) -> dict[str, Any]:
    """What the step's verdict records of the look: which screenshot judged it, and what was read first."""
    first = step.verdict if isinstance(step.verdict, dict) else {}
    result = step.result if isinstance(step.result, dict) else {}
    return {
        "action_id": look.action_id,
        "attempt_id": msg.attempt_id,
        "screenshot": "the later look's screen after" if seen else "none: the look was not taken",
        "error": None if seen else msg.error,
        "first_read": typed_read(first),
        "first_window": result.get("window_title"),
        "first_verdict": {k: first.get(k) for k in ("verdict", "failure_category", "reason")},
    }


def first_crops(step: ActionRow) -> list[dict[str, Any]]:
    """The crops of the step's first judgement, named as such."""
    return [{**c, "label": f"{c.get('label')} (first look)"} for c in step.evidence or [] if isinstance(c, dict)]


def awaiting(replay: ReplayRow, a: ActionRow) -> bool:
    """A step held for a later look that is no longer queued ahead of it (the look skipped or given up)."""
    return replay.state == m.RUNNING and a.state == m.HELD and a.outcome == m.AWAITING_LATER_LOOK
