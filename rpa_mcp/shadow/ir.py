"""Workflow IR from the understood steps (the `workflow_ir` that `shadow_build` returns).

Besides a step's action, target and value, each step keeps its ``expected`` evidence ({window_title?,
text?}: a new title, a toast seen after it, the fields the validator's `expected` takes), its
``expected_outcome`` ({kind, text, source}: the post-condition a replay must see again) and, for a
step that selects a record, its ``identity`` (the text the person saw on it). The IR declares the
``parameters`` its steps use as ``{{name}}``; a parameter's demonstrated value written in a title, a
post-condition or an identity is replaced by its placeholder there too (`templated`), so a run for
another patient expects that patient.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from rpa_mcp.shadow.parameters import classify, declared

IR_VERSION = 1
WAIT_AFTER_MS = {
    "click_anchor": 500,
    "double_click_anchor": 800,
    "right_click_anchor": 500,
    "switch_tab": 800,
    "type_text": 200,
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
        "expected_outcome": dict(step["expected_outcome"]) if step.get("expected_outcome") else None,
        "identity": step.get("identity"),
    }


MIN_TEMPLATED = 3  # shorter demonstrated values (a '2', 'Le') are not replaced in texts
# A name typed as a parameter ('FAURE') is often shown with the first name after it ('FAURE Céline'):
# those words belong to the demonstrated patient too, so they go with the placeholder.
FOLLOWING_NAME = r"(?:[ \t]+[A-ZÀ-Ý][a-zà-ÿ]+(?:-[A-ZÀ-Ý][a-zà-ÿ]+)?){0,2}"


def _value_pattern(example: str) -> str:
    value = rf"(?<!\w)(?i:{re.escape(example)})(?!\w)"  # any case: typed 'faure', shown 'FAURE'
    return value + (FOLLOWING_NAME if classify(example) == "name" else "")


def templated(steps: list[dict[str, Any]], parameters: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each parameter's demonstrated value, where a title, a post-condition or an identity shows it,
    becomes ``{{name}}`` (whole words, any case): the patient typed as a parameter is expected back."""
    marks = [
        (re.compile(_value_pattern(str(p["example"]).strip())), "{{" + p["name"] + "}}")
        for p in parameters
        if len(str(p.get("example") or "").strip()) >= MIN_TEMPLATED
    ]
    if not marks:
        return steps

    def sub(text: Any) -> Any:
        if not isinstance(text, str):
            return text
        for pattern, mark in marks:
            text = pattern.sub(mark, text)
        return text

    for step in steps:
        for key in ("expected_window_before", "expected_window_after", "identity"):
            step[key] = sub(step.get(key))
        step["expected"] = {k: sub(v) for k, v in step["expected"].items()}
        if step.get("expected_outcome"):
            step["expected_outcome"]["text"] = sub(step["expected_outcome"]["text"])
        if isinstance(step["target"].get("window_title"), str):
            step["target"]["window_title"] = sub(step["target"]["window_title"])
    return steps


def step_lines(ir: dict[str, Any]) -> list[str]:
    """One readable line per step (used to show what a new version changes)."""
    return [f"{s['index']}. {s['intent']} [{s['action_type']}]" for s in ir.get("steps", [])]
