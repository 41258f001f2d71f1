"""The difference between two versions of a workflow, step by step: added, removed, changed, unchanged.

Steps are matched by what they act on (action type and target label), so a step whose
intent, parameters or expected windows changed shows as *changed* with the fields that
differ, rather than as one removal and one addition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any, Literal

Kind = Literal["added", "removed", "changed", "unchanged"]
COMPARED = ("intent", "action_type", "target", "params", "expected_window_before", "expected_window_after",
            "success_strict", "expected_modals")  # fmt: skip
TARGET_FIELDS = ("label", "by_text", "bbox", "window_title")


def target_label(step: dict[str, Any]) -> str:
    target = step.get("target")
    if isinstance(target, dict):
        return str(target.get("label") or target.get("by_text") or "")
    return str(target or "")


def _key(step: dict[str, Any]) -> tuple[str, str]:
    return (str(step.get("action_type", "")), target_label(step))


def _view(step: dict[str, Any], name: str) -> Any:
    value = step.get(name)
    if name == "target" and isinstance(value, dict):
        return {k: value.get(k) for k in TARGET_FIELDS if value.get(k) is not None}
    return value


@dataclass(frozen=True)
class StepChange:
    kind: Kind
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    fields: tuple[str, ...] = field(default=())


def _pair(old: dict[str, Any], new: dict[str, Any]) -> StepChange:
    fields = tuple(n for n in COMPARED if _view(old, n) != _view(new, n))
    return StepChange("changed" if fields else "unchanged", old, new, fields)


def compare_steps(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[StepChange]:
    matcher = SequenceMatcher(a=[_key(s) for s in old], b=[_key(s) for s in new], autojunk=False)
    out: list[StepChange] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += [_pair(old[i], new[j]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
        elif tag == "delete":
            out += [StepChange("removed", old[i], None) for i in range(i1, i2)]
        elif tag == "insert":
            out += [StepChange("added", None, new[j]) for j in range(j1, j2)]
        else:  # replace: pair them up in order, the rest are removals or additions
            n = min(i2 - i1, j2 - j1)
            out += [_pair(old[i1 + k], new[j1 + k]) for k in range(n)]
            out += [StepChange("removed", old[i], None) for i in range(i1 + n, i2)]
            out += [StepChange("added", None, new[j]) for j in range(j1 + n, j2)]
    return out


def counts(changes: list[StepChange]) -> dict[str, int]:
    out = {"added": 0, "removed": 0, "changed": 0, "unchanged": 0}
    for c in changes:
        out[c.kind] += 1
    return out
