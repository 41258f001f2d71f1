"""Workflow IR from the understood steps (the `workflow_ir` that `shadow_build` returns).

Besides a step's action, target and value, each step keeps its ``expected`` evidence ({window_title?,
text?}: a new title, a toast seen after it, the fields the validator's `expected` takes), its
``expected_outcome`` ({kind, text, source}: the post-condition a replay must see again) and, for a
step that selects a record, its ``identity`` (the text the person saw on it). The IR declares the
``parameters`` its steps use as ``{{name}}``; a parameter's demonstrated value written in a title, a
post-condition or an identity is replaced by its placeholder there too (`templated`), so a run for
another patient expects that patient. Each step has its class (``step_class``: navigation, input or
irreversible) and whether a person declared its outcome ``uncheckable`` on screen (shown at approval;
such a run ends ``completed_unverified`` at best).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from rpa_mcp.shadow.classes import step_class_of
from rpa_mcp.shadow.parameters import classify, declared
from rpa_mcp.shadow.record_names import uncovered
from rpa_mcp.vision.ocr import normalize_text
from rpa_mcp.vision.text_match import ANY_WORDS

IR_VERSION = 1
WAIT_AFTER_MS = {
    "click_anchor": 500,
    "double_click_anchor": 800,
    "right_click_anchor": 500,
    "switch_tab": 800,
    "type_text": 200,
    "select_option": 400,
    "set_checked": 300,
    "save": 1000,
    "keyboard_shortcut": 500,
    "key_press": 300,
    "scroll": 300,
    "open_application": 1500,
    "focus_window": 500,
}
ALWAYS_STRICT = frozenset({"switch_tab", "double_click_anchor", "open_application", "focus_window"})


def build_ir(
    steps: Sequence[dict[str, Any]],
    *,
    name: str,
    domain: str,
    session_id: str,
    machine_id: str | None,
    created_at: float,
) -> dict[str, Any]:
    return {
        "name": name,
        "domain": domain,
        "version": IR_VERSION,
        "source": {"session_id": session_id, "machine_id": machine_id},
        "created_at": datetime.fromtimestamp(created_at, UTC).isoformat().replace("+00:00", "Z"),
        "parameters": declared(steps),
        "steps": templated([ir_step(i, step) for i, step in enumerate(steps, start=1)], declared(steps)),
    }


def ir_step(index: int, step: dict[str, Any]) -> dict[str, Any]:
    action = step["action_type"]
    before, after = step.get("window_before"), step.get("window_after")
    target = {k: v for k, v in step.get("target", {}).items() if v is not None}
    changed_window = bool(after and before and after != before)
    return {
        "index": index,
        "intent": step["intent"],
        "action_type": action,
        "target": target,
        "params": dict(step.get("params") or {}),
        "expected_window_before": before,
        "expected_window_after": after,
        "expected": dict(step.get("expected") or {}),
        "success_strict": action in ALWAYS_STRICT or (action == "click_anchor" and changed_window),
        "wait_after_ms": WAIT_AFTER_MS.get(action, 500),
        "expected_modals": [],
        "step_class": step_class_of(step),
        "uncheckable": bool(step.get("uncheckable")),
        "expected_outcome": dict(step["expected_outcome"]) if step.get("expected_outcome") else None,
        "identity": step.get("identity"),
        # a person validated the record step alone: a record chosen by part of its name is theirs to accept
        **({"identity_confirmed": True} if step.get("identity") and step.get("record_confirmed") else {}),
    }


PARAMETER_TARGET_DROPS = ("bbox", "frame_size", "anchor_ref", "anchor_offset", "x_pct", "y_pct")
MIN_TEMPLATED = 3  # shorter demonstrated values (a '2', 'Le') are not replaced in texts
# A name typed as a parameter ('FAURE') is often shown with the first name after it ('FAURE Céline'):
# those words belong to the demonstrated patient too, so they go with the placeholder.
# They become ANY_WORDS, which matches whatever the run's record shows there.
FOLLOWING_NAME = r"(?P<rest>(?:[ \t]+[A-ZÀ-Ý][a-zà-ÿ]+(?:-[A-ZÀ-Ý][a-zà-ÿ]+)?){1,2})?"


def _value_pattern(example: str) -> str:
    value = rf"(?<!\w)(?i:{re.escape(example)})(?!\w)"  # any case: typed 'faure', shown 'FAURE'
    return value + (FOLLOWING_NAME if classify(example) == "name" else "")


def _placed(mark: str, wildcard: bool, others: frozenset[str] = frozenset()) -> Callable[[re.Match[str]], str]:
    """The placeholder for a value found; the name words after it become ANY_WORDS, unless they are another
    parameter's value ('GAUTHIER Édith' with the first name a parameter too): kept for it to name them."""

    def place(found: re.Match[str]) -> str:
        rest = found.groupdict().get("rest")
        if rest and normalize_text(rest.split()[0]) in others:
            return mark + rest
        return mark + (f" {ANY_WORDS}" if wildcard and rest else "")

    return place


def templated(steps: list[dict[str, Any]], parameters: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each parameter's demonstrated value, where a title, a post-condition or an identity shows it,
    becomes ``{{name}}`` (whole words, any case): the patient typed as a parameter is expected back.

    A longer value first ('GAUTHIER Édith' before 'GAUTHIER'), so a row made a parameter keeps its whole
    name. An identity the parameters name only in part (its other words became ANY_WORDS, or stay the
    demonstrated record's, which a run with values does not check) keeps those words as
    ``identity_partial`` (`record_names.uncovered`): a run pauses before that click unless a person
    validated the step itself (``identity_confirmed``)."""
    examples = sorted(
        (p for p in parameters if len(str(p.get("example") or "").strip()) >= MIN_TEMPLATED),
        key=lambda p: -len(str(p["example"]).strip()),
    )
    marks = [(re.compile(_value_pattern(str(p["example"]).strip())), "{{" + p["name"] + "}}") for p in examples]
    others = frozenset(normalize_text(w) for p in examples for w in str(p["example"]).split())
    everything = [p.get("example") for p in parameters]  # what a run's values may check on a record
    if not marks:
        for step in steps:
            step.pop("identity_confirmed", None)
        return steps

    def sub(text: Any, wildcard: bool = True) -> Any:
        """Expected texts keep ANY_WORDS where the record's other words were; a label to look for does not."""
        if not isinstance(text, str):
            return text
        for pattern, mark in marks:
            text = pattern.sub(_placed(mark, wildcard, others), text)
        return text

    for step in steps:
        if isinstance(step.get("identity"), str) and (partial := uncovered(step["identity"], everything)):
            step["identity_partial"] = partial
        else:
            step.pop("identity_confirmed", None)
        for key in ("expected_window_before", "expected_window_after", "identity"):
            step[key] = sub(step.get(key))
        step["expected"] = {k: sub(v) for k, v in step["expected"].items()}
        if step.get("expected_outcome"):
            step["expected_outcome"]["text"] = sub(step["expected_outcome"]["text"])
        target = step["target"]
        if isinstance(target.get("window_title"), str):
            target["window_title"] = sub(target["window_title"])
        if step.get("identity") and isinstance(target.get("label"), str) and sub(target["label"]) != target["label"]:
            # a record chosen by the parameter's value: found by that value, never by the demonstrated row's
            # place or picture, and read before the click
            # the row's other words (first name, birth date) are the demonstrated patient's: the label is the
            # run's value alone, the rest is read on the row by the identity check
            label = " ".join(re.findall(r"\{\{[a-z][a-z0-9_]*\}\}", sub(target["label"], False)))
            target["label"] = target["by_text"] = label
            if isinstance(target.get("element"), dict):
                element = target["element"].items()
                target["element"] = {k: v for k, v in element if k not in ("bbox", "rect")} | {"name": label}
            for key in PARAMETER_TARGET_DROPS:
                target.pop(key, None)
            if "identity_partial" not in step and isinstance(step.get("intent"), str):
                step["intent"] = sub(step["intent"], False)  # named in full: 'GAUTHIER {{prenom}}' -> both marks
    return steps


def step_lines(ir: dict[str, Any]) -> list[str]:
    """One readable line per step (used to show what a new version changes)."""
    return [f"{s['index']}. {s['intent']} [{s['action_type']}]" for s in ir.get("steps", [])]
