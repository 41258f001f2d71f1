"""The person's corrections to the understanding, applied to the segments.

`apply_feedback` works on a copy: a rejected feedback (`FeedbackRejected`, with the reason
to relay) leaves the understanding exactly as it was.

``parameterize`` (`step_index`, `name`, optional `description`) makes the value a step typed
(or the label of the row it chose) a workflow parameter ``{{name}}``: the step must have such
a value, a secret cannot be one (it already is a ``{{secret:…}}``), and one name stands for
one value (two steps may share a parameter only when they used the same value).

``validate`` with a `step_index` also says the person looked at that step alone: a record it chooses by
part of who it is (`rpa_mcp.shadow.record_names`) is then accepted; validating all steps at once is not that.

``set_class`` (`step_index`, `step_class` and/or `uncheckable`) changes a step's class
(navigation, input, irreversible) or declares that its outcome cannot be checked on screen.
``set_outcome`` (`step_index`, `outcome_text`, optional `outcome_kind`: message, heading, dialog,
window_title, field_value, row) says what the step must show to count as done at replay (a
parameter may appear as ``{{name}}``); ``clear_outcome`` says the step shows nothing checkable.

``retarget`` (`step_index`, and the new target found on the step's screenshot by the service:
see `shadow.retarget`) makes the step act on another element. ``set_value`` (`step_index`, `value`
or `checked`) sets what a typing step types, the option a drop-down step chooses, or the state a
check box step leaves; a step whose value is a parameter takes it from each run instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from rpa_mcp.shadow.classes import STEP_CLASSES
from rpa_mcp.shadow.parameters import classify, name_problem, type_of
from rpa_mcp.shadow.record_names import missing_name
from rpa_mcp.shadow.segment import Segment
from rpa_mcp.validation.model import OUTCOME_KINDS

FeedbackAction = Literal[
    "validate",
    "correct",
    "undo",
    "cancel",
    "merge_next",
    "split",
    "parameterize",
    "set_class",
    "set_outcome",
    "clear_outcome",
    "retarget",
    "set_value",
]
VALUE_ACTIONS = {"type_text": "text", "select_option": "option"}  # action type -> the param its value sets
MAX_VALUE = 1000
ACTIONS: tuple[str, ...] = get_args(FeedbackAction)
MAX_INTENT = 200
MAX_OUTCOME = 500
MAX_DESCRIPTION = 300


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
    name: str | None = None,
    description: str | None = None,
    steps: Sequence[Mapping[str, Any]] | None = None,
    event_types: Mapping[int, str] | None = None,
    now: float = 0.0,
    step_class: str | None = None,
    uncheckable: bool | None = None,
    outcome_text: str | None = None,
    outcome_kind: str | None = None,
    target: dict[str, Any] | None = None,
    value: str | None = None,
    checked: bool | None = None,
) -> tuple[list[Segment], str]:
    """Returns the new segments and a one-line summary of what changed.

    `steps` (the steps as shown) is needed by ``parameterize``, which looks at the value a step typed.
    """
    _check_arguments(action, step_index, new_intent, at_event_index)
    _check_parameter_arguments(action, name, description)
    _check_class_arguments(action, step_index, step_class, uncheckable)
    _check_outcome_arguments(action, step_index, outcome_text, outcome_kind)
    _check_value_arguments(action, step_index, target, value, checked)
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
            seg.record_confirmed = seg.record_confirmed or step_index is not None  # this step, looked at alone
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
    if action == "parameterize":
        assert name is not None and steps is not None
        seg.parameter = _parameter(steps, step_index, name, description)
        seg.updated_at = now
        return segs, f"step {step_index} now uses the parameter {{{{{name}}}}}"
    if action == "set_class":
        if step_class is not None:
            seg.step_class = step_class
        if uncheckable is not None:
            seg.uncheckable = uncheckable
        seg.updated_at = now
        said = [f"class {step_class}"] if step_class else []
        if uncheckable is not None:
            said.append("outcome not checkable on screen" if uncheckable else "outcome checkable on screen")
        return segs, f"step {step_index}: {', '.join(said)}"
    if action == "set_outcome":
        assert outcome_text is not None
        text, kind = " ".join(outcome_text.split()), outcome_kind or "message"
        seg.outcome, seg.updated_at = {"kind": kind, "text": text, "source": "person"}, now
        return segs, f"step {step_index} is done when this {kind.replace('_', ' ')} is seen: {text!r}"
    if action == "clear_outcome":
        seg.outcome, seg.updated_at = {}, now
        return segs, f"step {step_index} has no outcome to check: a replay cannot verify it"
    if action == "retarget":
        assert target is not None
        seg.retarget, seg.status, seg.updated_at = dict(target), "corrected", now
        seg.record_confirmed = False
        return segs, f"step {step_index} now acts on {target['label']!r}"
    if action == "set_value":
        return segs, _set_value(seg, step_index, steps, value, checked, now)
    if action == "merge_next":
        if step_index == len(segs):
            raise FeedbackRejected(f"step {step_index} is the last step: there is no next step to merge it with")
        nxt = segs.pop(step_index)
        seg.events = sorted(seg.events + nxt.events)
        seg.closed, seg.status, seg.intent, seg.updated_at = nxt.closed, "proposed", None, now
        seg.record_confirmed = False
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
    seg.record_confirmed = False
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
    if action == "parameterize" and step_index is None:
        raise FeedbackRejected("parameterize needs step_index (which step's value becomes a parameter)")
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
    seg.parameter = seg.detour = None  # what they applied to is no longer this step
    seg.newlines = [i for i in seg.newlines if i in seg.events]
    seg.submit = seg.submit if seg.submit in seg.events else None
    seg.enter = seg.enter if seg.enter in seg.events else None


def _check_class_arguments(
    action: str, step_index: int | None, step_class: str | None, uncheckable: bool | None
) -> None:
    if action != "set_class":
        if step_class is not None or uncheckable is not None:
            raise FeedbackRejected(f"step_class and uncheckable are only used with action=set_class, not {action}")
        return
    if step_index is None:
        raise FeedbackRejected("set_class needs step_index (which step, counted from 1)")
    if step_class is None and uncheckable is None:
        raise FeedbackRejected("set_class needs step_class (navigation, input or irreversible) or uncheckable")
    if step_class is not None and step_class not in STEP_CLASSES:
        raise FeedbackRejected(f"step_class {step_class!r} is not a class: use one of {', '.join(STEP_CLASSES)}")


def _check_value_arguments(
    action: str, step_index: int | None, target: dict[str, Any] | None, value: str | None, checked: bool | None
) -> None:
    if action == "retarget":
        if step_index is None:
            raise FeedbackRejected("retarget needs step_index and target_label or target_point")
        if target is None:
            raise FeedbackRejected("retarget needs target_label (the element's visible text) or target_point")
    if action == "set_value":
        if step_index is None or (value is None) == (checked is None):
            raise FeedbackRejected(
                "set_value needs step_index and one of value (text typed, option chosen) or checked (true/false)"
            )
        if value is not None and not value.strip():
            raise FeedbackRejected("value: give the text to type or the option to choose (it is empty)")
        if value is not None and len(value) > MAX_VALUE:
            raise FeedbackRejected(f"value: at most {MAX_VALUE} characters (it has {len(value)})")


def _set_value(
    seg: Segment,
    step_index: int,
    steps: Sequence[Mapping[str, Any]] | None,
    value: str | None,
    checked: bool | None,
    now: float,
) -> str:
    """Set what the step types, chooses or leaves ticked; its one-line summary."""
    assert steps is not None
    kind = steps[step_index - 1].get("action_type")
    if seg.parameter:
        raise FeedbackRejected(
            f"step {step_index} takes its value from the parameter {{{{{seg.parameter['name']}}}}} at each run: "
            "give it there"
        )
    if checked is not None:
        if kind != "set_checked":
            raise FeedbackRejected(f"checked: step {step_index} is a {kind} step, not a check box (set_checked) step")
        seg.value, seg.status, seg.updated_at = {"checked": checked}, "corrected", now
        return f"step {step_index} leaves the box {'ticked' if checked else 'unticked'}"
    assert value is not None
    if kind not in VALUE_ACTIONS:
        raise FeedbackRejected(
            f"value: step {step_index} is a {kind} step: only a typing (type_text) or drop-down (select_option) "
            "step has a value"
        )
    seg.value, seg.status, seg.updated_at = {VALUE_ACTIONS[str(kind)]: value}, "corrected", now
    return f"step {step_index} now {'types' if kind == 'type_text' else 'chooses'} {value!r}"


def _check_parameter_arguments(action: str, name: str | None, description: str | None) -> None:
    if action != "parameterize":
        if name is not None or description is not None:
            raise FeedbackRejected(f"name and description are only used with action=parameterize, not {action}")
        return
    if name is None or not name.strip():
        raise FeedbackRejected("parameterize needs name: what the value is, e.g. 'patient' (lowercase, digits, _)")
    problem = name_problem(name)
    if problem:
        raise FeedbackRejected(problem)
    if description is not None and len(description) > MAX_DESCRIPTION:
        raise FeedbackRejected(f"description is too long ({len(description)} characters, at most {MAX_DESCRIPTION})")


def _check_outcome_arguments(
    action: str, step_index: int | None, outcome_text: str | None, outcome_kind: str | None
) -> None:
    if action not in ("set_outcome", "clear_outcome"):
        if outcome_text is not None or outcome_kind is not None:
            raise FeedbackRejected(f"outcome_text and outcome_kind are only used with action=set_outcome, not {action}")
        return
    if step_index is None:
        raise FeedbackRejected(f"{action} needs step_index (which step's outcome, counted from 1)")
    if action == "clear_outcome":
        if outcome_text is not None or outcome_kind is not None:
            raise FeedbackRejected("clear_outcome takes only step_index: use set_outcome to give an outcome")
        return
    if outcome_text is None or not outcome_text.strip():
        raise FeedbackRejected(
            "set_outcome needs outcome_text: what the application shows once the step is done, e.g. 'Enregistré'"
        )
    if len(outcome_text) > MAX_OUTCOME:
        raise FeedbackRejected(f"outcome_text is too long ({len(outcome_text)} characters, at most {MAX_OUTCOME})")
    if outcome_kind is not None and outcome_kind not in OUTCOME_KINDS:
        raise FeedbackRejected(f"unknown outcome_kind {outcome_kind!r}: use one of {', '.join(OUTCOME_KINDS)}")


def _parameter(
    steps: Sequence[Mapping[str, Any]], step_index: int, name: str, description: str | None
) -> dict[str, Any]:
    step = steps[step_index - 1]
    params = step.get("params") or {}
    if params.get("secret"):
        raise FeedbackRejected(
            f"step {step_index} types a secret: it is already a parameter given at replay time, never recorded"
        )
    value = (step.get("parameter") or {}).get("example") or step.get("value")
    if not value:
        raise FeedbackRejected(
            f"step {step_index} ({step.get('intent')}) has no value to make a parameter: only a step that types "
            "text, or chooses a row by its label, can take one"
        )
    part = _rest_of_record(steps, step, name)
    value = part or value
    for other in steps:
        used = other.get("parameter") or {}
        if other is not step and used.get("name") == name and used.get("example") != value:
            raise FeedbackRejected(
                f"the parameter '{name}' already stands for {used.get('example')!r} at step {other.get('index')}: "
                "choose another name for this value"
            )
    kind = classify(str(value), step.get("target", {}).get("by_text")) or "text"
    said = {"name": name, "description": " ".join((description or "").split()), "type": type_of(kind)}
    return said | ({"example": part, "part_of_record": True} if part else {})


def _rest_of_record(steps: Sequence[Mapping[str, Any]], step: Mapping[str, Any], name: str) -> str | None:
    """A record step named in part by other steps' parameters (the surname typed in the search): the parameter
    a person makes of it is the rest of the name its text shows (the first name, as the step's suggestion
    says), so the record is named in full ('{{nom}} {{prenom}}'); None for any other step."""
    identity = step.get("identity")
    if not isinstance(identity, str) or step.get("parameter"):
        return None
    others = [s.get("parameter") or {} for s in steps if s is not step]
    return missing_name(identity, [p.get("example") for p in others if p.get("name") != name])
