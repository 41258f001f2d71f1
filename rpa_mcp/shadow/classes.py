"""Step classes: navigation, input, irreversible — known when the workflow is built.

An irreversible step changes a record for good (save, validate, sign, send, delete, dispense):
the replay never clicks one at its recorded position alone, and a run that stopped after one
was sent ends `reconciliation_required`, naming it. The class comes from the step's label and
intent (French and English words) and from the demonstration (a Ctrl+S, an Enter that
submitted a form); a person changes it with the `set_class` feedback.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Literal, cast

StepClass = Literal["navigation", "input", "irreversible"]
STEP_CLASSES: tuple[str, ...] = ("navigation", "input", "irreversible")

# Word stems (accents folded, lower case) that name an effect that cannot be taken back, and
# whole words that would be too wide as stems ("signes vitaux", "poste", "administration").
IRREVERSIBLE_STEMS = (
    "enregistr", "sauvegard", "valider", "validez", "envoy", "transmet", "supprim", "effac", "dispens",
    "delivr", "confirm", "soumet", "prescri", "cloturer", "publier", "signer", "signez",
    "save", "submit", "send", "delet", "dispens", "approv", "validat", "publish",
)  # fmt: skip
IRREVERSIBLE_WORDS = frozenset({"valide", "envoi", "sign", "post", "commit", "administrer"})
IRREVERSIBLE_KEYS = frozenset({"ctrl+s", "ctrl+enter", "ctrl+shift+s", "cmd+s", "delete", "shift+delete"})
INPUT_ACTIONS = frozenset({"type_text", "select_option", "set_checked", "toggle_checkbox", "paste"})
ALWAYS_IRREVERSIBLE = frozenset({"save"})
_WORD = re.compile(r"[a-z0-9]+")
# Targets whose words are only their place in the screen, not what they do ("Signes vitaux" is a tab).
NAVIGATION_ACTIONS = frozenset({"switch_tab", "focus_window", "open_application", "scroll", "navigate_url", "wait"})


def fold(text: str) -> str:
    """Lower case without accents ("Enregistrer" and "enregistrér" read the same)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def _names_effect(text: str) -> bool:
    return any(w in IRREVERSIBLE_WORDS or w.startswith(IRREVERSIBLE_STEMS) for w in _WORD.findall(fold(text)))


def classify_step(
    action_type: str,
    *,
    label: str | None = None,
    intent: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> StepClass:
    """The class of a step from what it does and what its target says.

    A button named for an effect ("Valider", "Save", "Envoyer") or a key that commits (Ctrl+S) is
    irreversible; typing, choosing an option or ticking a box is input; the rest is navigation.
    The target's label decides for a click; the intent is read only when there is no label.
    """
    params = params or {}
    if action_type in ALWAYS_IRREVERSIBLE:
        return "irreversible"
    if action_type in ("keyboard_shortcut", "key_press", "key_combo"):
        keys = fold(str(params.get("keys") or params.get("key") or params.get("combo") or "")).replace(" ", "")
        return "irreversible" if keys in IRREVERSIBLE_KEYS else "navigation"
    if action_type in INPUT_ACTIONS:
        return "input"
    if action_type in NAVIGATION_ACTIONS:
        return "navigation"
    words = label if label else intent
    if words and _names_effect(words):
        return "irreversible"
    return "navigation"


def step_class_of(step: Mapping[str, Any]) -> StepClass:
    """A workflow step's class: the one it declares (built, or set by a person), else classified now."""
    declared = step.get("step_class")
    if declared in STEP_CLASSES:
        return cast(StepClass, declared)
    target = step.get("target")
    label = None
    if isinstance(target, Mapping):
        label = target.get("label") or target.get("by_text")
    elif isinstance(target, str):
        label = target
    return classify_step(
        str(step.get("action_type") or ""),
        label=str(label) if label else None,
        intent=str(step.get("intent") or "") or None,
        params=step.get("params") if isinstance(step.get("params"), Mapping) else None,
    )
