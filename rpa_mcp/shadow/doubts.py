"""Evidence that a proposed step may be wrong whatever its kind's record: the person is asked about it first.

The confidence table (`rpa_mcp.shadow.calibration`) knows a step by its kind and by what named it;
it cannot see that the label naming this step is only a format mask, a drop-down's empty choice or
a lone punctuation mark, that a click landed on something that is no control and changed nothing,
that a control's value was not captured, or that the server itself suggests removing the step.
Each of these is a *doubt* (a code, shown with the step); a step with one is capped at `DOUBTED`,
below the ask-first line, so that it is among the steps asked about first. The rules are generic
(none names an application, a word of its screens or its layout) and are judged on applications the
table never saw (`rpa-mcp bench apps`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rpa_mcp.shadow.calibration import ASK_BELOW
from rpa_mcp.shadow.described import Described
from rpa_mcp.shadow.elements import (
    BUTTON_ROLES,
    CHECK_ROLES,
    COMBO_ROLES,
    CONTAINER_ROLES,
    role_of,
)
from rpa_mcp.shadow.field_labels import names_a_field
from rpa_mcp.vision.ocr import normalize_text

DOUBTED = round(ASK_BELOW - 0.2, 2)  # a doubted step's confidence at most: asked about first
STILL = 0.0001  # share of a screen's pixels a click that changed nothing may change (a caret's blink)
# A drop-down's empty choice ("— choisir —", "-- select --", "Sélectionner…"): what it shows before a choice.
_EMPTY_CHOICE = frozenset(
    {"choisir", "choisissez", "selectionner", "selectionnez", "select", "choose", "aucun", "aucune", "none"}
)
CLICKS = frozenset({"click_anchor", "double_click_anchor"})
# Roles a click acts on: what a person clicks to do something (a text, a container or a picture is none)
CONTROL_ROLES = BUTTON_ROLES | CHECK_ROLES | COMBO_ROLES | frozenset({"menuitem", "link", "hyperlink", "tabitem"})

LABEL_NOT_A_NAME = "label_not_a_name"
CONTROL_VALUE_NOT_CAPTURED = "control_value_not_captured"
CLICK_CHANGED_NOTHING = "click_changed_nothing"
REMOVAL_SUGGESTED = "removal_suggested"


def names_nothing(label: str) -> bool:
    """A label that is a format mask or holds fewer than two letters or digits (`names_a_field`), or a
    drop-down's empty choice."""
    text = normalize_text(label)
    return not names_a_field(text) or re.sub(r"[\W_]+", " ", text).strip() in _EMPTY_CHOICE


def doubts(
    action_type: str,
    target: Mapping[str, Any],
    params: Mapping[str, Any],
    *,
    field_label: str | None,
    suggestions: Sequence[Mapping[str, Any]],
    screen_still: bool | None,
    value_assumed: bool = False,
) -> list[str]:
    """The doubts about one proposed step (empty: none), in a fixed order. `value_assumed`: the step's value is
    a guess no one confirmed (an uncertain step the person gave no value)."""
    out: list[str] = []
    labels = [x for x in (target.get("label"), target.get("by_text"), field_label) if isinstance(x, str) and x.strip()]
    if labels and all(names_nothing(x) for x in labels[:1]):
        out.append(LABEL_NOT_A_NAME)
    if _value_not_captured(action_type, target, params, assumed=value_assumed):
        out.append(CONTROL_VALUE_NOT_CAPTURED)
    element = target.get("element") if isinstance(target.get("element"), Mapping) else None
    if action_type in CLICKS and screen_still is True and role_of(element) not in CONTROL_ROLES:
        out.append(CLICK_CHANGED_NOTHING)
    if any(s.get("action") == "undo" for s in suggestions):
        out.append(REMOVAL_SUGGESTED)
    return out


def click_on_no_control(d: Described) -> bool:
    """A click whose element is no control (a text, a container, nothing the accessibility tree knows): whether
    the screen changed after it is worth a look."""
    element = d.target.get("element") if isinstance(d.target.get("element"), Mapping) else None
    return d.action_type in CLICKS and role_of(element) not in CONTROL_ROLES


def capped(confidence: float, found: Sequence[str]) -> float:
    """The confidence of a step with these doubts: at most `DOUBTED` when there is one."""
    return min(confidence, DOUBTED) if found else confidence


def _value_not_captured(
    action_type: str, target: Mapping[str, Any], params: Mapping[str, Any], *, assumed: bool
) -> bool:
    """A drop-down or check box whose value the step does not hold: its option, its state (or one assumed:
    not reported, read too late to be sure, or a box no frame showed flipping), or a plain click on it (the
    option chosen, the state left, were not seen)."""
    if action_type == "select_option":
        option = params.get("option")
        return not isinstance(option, str) or names_nothing(option)
    if action_type == "set_checked":
        return assumed or not isinstance(params.get("checked"), bool | str)
    element = target.get("element") if isinstance(target.get("element"), Mapping) else None
    return action_type in CLICKS and role_of(element) in (COMBO_ROLES | CHECK_ROLES) - CONTAINER_ROLES
