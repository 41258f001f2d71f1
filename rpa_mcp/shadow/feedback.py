"""The person's corrections to the understanding (SPEC §3.3), applied to the segments.

`apply_feedback` works on a copy: a rejected feedback (`FeedbackRejected`, with the reason
to relay) leaves the understanding exactly as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from rpa_mcp.shadow.segmenter import Segment

FeedbackAction = Literal["validate", "correct", "undo", "cancel", "merge_next", "split"]
ACTIONS: tuple[str, ...] = ("validate", "correct", "undo", "cancel", "merge_next", "split")
MAX_INTENT = 200


class FeedbackRejected(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def apply_feedback(
    segments: list[Segment],
    action: str,
    *,
    step_index: int | None = None,
    new_intent: str | None = None,
    at_event_index: int | None = None,
    event_types: Mapping[int, str] | None = None,
    now: float = 0.0,
) -> tuple[list[Segment], str]:
    """Returns the new segments and a one-line summary of what changed."""
    _check_arguments(action, step_index, new_intent, at_event_index)
    segs = [Segment.from_dict(s.to_dict()) for s in segments]
    if action == "cancel":
        return [], f"cancelled: {len(segs)} step(s) dropped"
    if not segs:
        raise FeedbackRejected("there are no steps yet: nothing to " + action.replace("_", " "))
    if step_index is not None and not 1 <= step_index <= len(segs):
        raise FeedbackRejected(f"step_index {step_index} does not exist: steps are numbered 1 to {len(segs)}")

    if action == "validate":
        chosen = segs if step_index is None else [segs[step_index - 1]]
        for seg in chosen:
            seg.status, seg.updated_at = "validated", now
        return segs, "all steps validated" if step_index is None else f"step {step_index} validated"

    assert step_index is not None
    seg = segs[step_index - 1]
    if action == "correct":
        assert new_intent is not None
        seg.intent, seg.status, seg.updated_at = " ".join(new_intent.split()), "corrected", now
        return segs, f"step {step_index} corrected"
    if action == "undo":
        del segs[step_index - 1]
        return segs, f"step {step_index} removed"
    if action == "merge_next":
        if step_index == len(segs):
            raise FeedbackRejected(f"step {step_index} is the last step: there is no next step to merge it with")
        nxt = segs.pop(step_index)
        seg.events = sorted(seg.events + nxt.events)
        seg.closed, seg.status, seg.intent, seg.updated_at = nxt.closed, "proposed", None, now
        _retype(seg, event_types)
        return segs, f"steps {step_index} and {step_index + 1} merged"
    # split
    assert at_event_index is not None
    if at_event_index not in seg.events:
        raise FeedbackRejected(f"event {at_event_index} is not in step {step_index} (its events are {seg.events})")
    if at_event_index == seg.events[0]:
        raise FeedbackRejected(
            f"event {at_event_index} is the first event of step {step_index}: split at one of its later events"
        )
    cut = seg.events.index(at_event_index)
    second = Segment(events=seg.events[cut:], kind=seg.kind, closed=seg.closed, last_ts=seg.last_ts, updated_at=now)
    seg.events, seg.closed, seg.status, seg.intent, seg.updated_at = seg.events[:cut], True, "proposed", None, now
    _retype(seg, event_types)
    _retype(second, event_types)
    segs.insert(step_index, second)
    return segs, f"step {step_index} split at event {at_event_index}"


def _check_arguments(action: str, step_index: int | None, new_intent: str | None, at_event_index: int | None) -> None:
    if action not in ACTIONS:
        raise FeedbackRejected(f"unknown action {action!r}: use one of {', '.join(ACTIONS)}")
    if action in ("correct", "undo", "merge_next", "split") and step_index is None:
        raise FeedbackRejected(f"{action} needs step_index (which step, counted from 1)")
    if action == "cancel" and step_index is not None:
        raise FeedbackRejected("cancel drops every step: do not give step_index (use undo to drop one step)")
    if action == "correct":
        if new_intent is None or not new_intent.strip():
            raise FeedbackRejected("correct needs new_intent: what the step really does, in the person's words")
        if len(new_intent) > MAX_INTENT:
            raise FeedbackRejected(f"new_intent is too long ({len(new_intent)} characters, at most {MAX_INTENT})")
    elif new_intent is not None:
        raise FeedbackRejected(f"new_intent is only used with action=correct, not {action}")
    if action == "split" and at_event_index is None:
        raise FeedbackRejected("split needs at_event_index: the event that starts the new step")
    if action != "split" and at_event_index is not None:
        raise FeedbackRejected(f"at_event_index is only used with action=split, not {action}")


def _retype(seg: Segment, event_types: Mapping[int, str] | None) -> None:
    """After a merge or split, the segment's kind follows its first action event."""
    if not event_types:
        return
    types = [event_types.get(i, "") for i in seg.events]
    first = next((t for t in types if t and t != "screenshot"), "")
    seg.first_type = first
    seg.kind = {"double_click": "click", "right_click": "click"}.get(first, first) or seg.kind
    seg.typed = "type" in types
