"""A later look at a field whose typed text was still being drawn (a slow application under load).

The agent sends the screen once it has been still for a moment; a slow application may draw the last letters
typed after that. When the typed-text check fails only because the field reads a strict beginning of the text
(the last characters missing: no wrong or extra character), the step is not judged yet: it is held, with no
pause, and one look at the screen (`screenshot_evidence`, no input) is queued ahead of it. That look's
screenshot is then the step's after-screen: the step is validated again on it, against the screen from
before the typing (kept on the step's row meanwhile). Still a beginning, or any other mismatch: the step
keeps its failure and the replay pauses as it did without the look. The input is never sent again, and a
step gets at most one later look (the one judging it never asks for another).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.wire import ActionResult

LATER_LOOK_WAIT_S = 1.0  # a slow application's last letters are drawn well within it
TYPED_SIGNAL = "typed"  # the matrix's typed-text signal of a typing step
TYPING_STEPS = frozenset({"type_text"})


def typed_read(vdict: dict[str, Any]) -> str | None:
    """What the typed-text check read in the field (None when it read nothing)."""
    for item in vdict.get("evidence") or []:
        if isinstance(item, dict) and item.get("signal") == TYPED_SIGNAL:
            read = item.get("read")
            return read if isinstance(read, str) and read else None
    return None


def look_row(typed: ActionRow, *, seq: float, now: float, max_resends: int) -> ActionRow:
    """The look that judges `typed`, queued just ahead of it (`typed` is held meanwhile)."""
    return ActionRow(
        replay_id=typed.replay_id,
        action_id=f"{typed.action_id}-look{typed.dispatches}",
        seq=seq,
        step_index=typed.step_index,
        intent=f"Look at the field of step {typed.step_index} again: its typed text was still being drawn",
        action_type="screenshot_evidence",
        target=None,
        params={"seconds": LATER_LOOK_WAIT_S},
        expected={
            "step_class": "navigation",
            "window_before": None,
            "window_after": None,
            "outcome": None,
            "looks_at": typed.action_id,
        },
        idempotent=1,
        max_resends=max_resends,
        origin=m.LATER_LOOK_ORIGIN,
        state=m.PENDING,
        updated_at=now,
    )


def seq_before(actions: Sequence[ActionRow], typed: ActionRow) -> float:
    """A place in the queue between `typed` and the action before it."""
    earlier = [a.seq for a in actions if a.seq < typed.seq]
    return (max(earlier) + typed.seq) / 2 if earlier else typed.seq - 0.5


def as_typed_step(msg: ActionResult, typed: ActionRow) -> ActionResult:
    """The look's report as the typing step's: the screen before the typing, where it typed, the titles then;
    the look's screenshot as the screen after (the look's attempt stays: it names the screenshot that judged)."""
    result = typed.result if isinstance(typed.result, dict) else {}
    before = typed.screen_before or b""
    return msg.model_copy(
        update={
            "screenshot_before": base64.b64encode(before).decode() if before else None,
            "actual_position": result.get("actual_position"),
            "window_title_before": result.get("window_title_before"),
            "warning": result.get("warning"),
            "output": result.get("output"),
        }
    )


def decided_by(look: ActionRow, msg: ActionResult, typed: ActionRow, *, seen: bool) -> dict[str, Any]:
    """What the step's verdict records of the look: which screenshot judged it, and what was read first."""
    first = typed.verdict if isinstance(typed.verdict, dict) else {}
    return {
        "action_id": look.action_id,
        "attempt_id": msg.attempt_id,
        "screenshot": "the later look's screen after" if seen else "none: the look was not taken",
        "error": None if seen else msg.error,
        "first_read": typed_read(first),
        "first_verdict": {k: first.get(k) for k in ("verdict", "failure_category", "reason")},
    }


def first_crops(typed: ActionRow) -> list[dict[str, Any]]:
    """The crops of the step's first judgement, named as such."""
    return [{**c, "label": f"{c.get('label')} (first look)"} for c in typed.evidence or [] if isinstance(c, dict)]


def awaiting(replay: ReplayRow, a: ActionRow) -> bool:
    """A typing step held for a later look that is no longer queued ahead of it (the look skipped or given up)."""
    return replay.state == m.RUNNING and a.state == m.HELD and a.outcome == m.AWAITING_LATER_LOOK
