"""Workflow IR from the understood steps (the `workflow_ir` that `shadow_build` returns).

Besides a step's action, target and value, each step keeps its ``expected`` evidence ({window_title?,
text?}: a new title, a toast seen after it, the fields the validator's `expected` takes),
and the IR declares the ``parameters`` its steps use as ``{{name}}``. Each step has its class
(``step_class``: navigation, input or irreversible) and whether a person declared its outcome
``uncheckable`` on screen (shown at approval; such a run ends ``completed_unverified`` at best).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from rpa_mcp.shadow.classes import step_class_of
from rpa_mcp.shadow.parameters import declared

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
        "steps": [ir_step(i, step) for i, step in enumerate(steps, start=1)],
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
    }


def step_lines(ir: dict[str, Any]) -> list[str]:
    """One readable line per step (used to show what a new version changes)."""
    return [f"{s['index']}. {s['intent']} [{s['action_type']}]" for s in ir.get("steps", [])]
