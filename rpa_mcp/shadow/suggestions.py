"""What the LLM should offer the person about a step: remove a detour or a no-op, make a value a parameter.

Each suggestion is ``{action, kind, reason, ...}`` where `action` is the feedback that would
apply it (``undo``, ``parameterize`` with its ``name``, ``type`` and ``example``) and `reason`
is a sentence in the session's language to relay as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rpa_mcp.shadow.calibration import ASK_BELOW
from rpa_mcp.shadow.described import Described
from rpa_mcp.shadow.parameters import classify, declared, reason, suggest_name, type_of
from rpa_mcp.shadow.segment import Segment
from rpa_mcp.shadow.targets import clean_label

UNDO_REASONS = {
    "fr": {
        "detour": "détour par '{visited}' : retour sur '{back}' sans rien y changer — à retirer, "
        "sauf si cela fait partie de la tâche",
        "noise": "le menu contextuel a été ouvert puis fermé sans rien choisir",
        "stray": "un clic sur un endroit où rien n'est nommé, qui n'a rien changé à l'écran",
    },
    "en": {
        "detour": "a detour through '{visited}': back to '{back}' without changing anything — remove it "
        "unless it is part of the task",
        "noise": "the context menu was opened and closed without choosing anything",
        "stray": "a click on a spot where nothing is named, which changed nothing on the screen",
    },
}


def stray_candidate(d: Described) -> bool:
    """A plain click that neither the element under it nor the text around it named: maybe a misclick."""
    return d.action_type == "click_anchor" and d.evidence in ("raw", "window_title")


def suggest(seg: Segment, d: Described, locale: str, *, screen_same: bool | None) -> list[dict[str, Any]]:
    lang = "fr" if locale == "fr" else "en"
    out: list[dict[str, Any]] = []
    if seg.kind == "detour" and seg.detour and screen_same is not False:
        text = UNDO_REASONS[lang]["detour"].format(
            visited=clean_label(seg.detour.get("visited")) or "?", back=clean_label(seg.detour.get("back_to")) or "?"
        )
        out.append({"action": "undo", "kind": "detour", "reason": text})
    if d.pattern == "noise":
        out.append({"action": "undo", "kind": "noise", "reason": UNDO_REASONS[lang]["noise"]})
    if seg.kind != "detour" and stray_candidate(d) and screen_same is True:
        out.append({"action": "undo", "kind": "stray", "reason": UNDO_REASONS[lang]["stray"]})
    if seg.parameter is None and not d.params.get("secret") and d.value:
        kind = None
        if d.action_type in ("type_text", "select_option"):
            kind = classify(d.value, d.field_label)
        elif d.action_type in ("double_click_anchor", "click_anchor") and classify(d.value) == "name":
            kind = "record"
        if kind is not None:
            label = d.field_label if d.action_type in ("type_text", "select_option") else None
            name = suggest_name(label, kind, lang)
            out.append(
                {
                    "action": "parameterize",
                    "kind": kind,
                    "name": name,
                    "type": type_of(kind),
                    "example": d.value,
                    "reason": f"'{clean_label(d.value, limit=40)}' {reason(kind, lang)}",
                }
            )
    return out


def settle_names(steps: Sequence[dict[str, Any]]) -> None:
    """Give suggested parameters names unique across the session (in place; a value keeps one name).

    A name already declared for the same value is suggested again; another value gets ``<name>_2``.
    """
    owner: dict[str, Any] = {s["parameter"]["name"]: s["parameter"]["example"] for s in steps if s.get("parameter")}
    for step in steps:
        if not step.get("suggestions") or all(x["action"] != "parameterize" for x in step["suggestions"]):
            continue
        settled = []
        for sug in step["suggestions"]:
            if sug["action"] == "parameterize":
                base, name, n = sug["name"], sug["name"], 2
                while name in owner and owner[name] != sug["example"]:
                    name, n = f"{base[:36]}_{n}", n + 1
                owner[name] = sug["example"]
                sug = {**sug, "name": name}
            settled.append(sug)
        step["suggestions"] = settled


def review(steps: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What to ask the person first: the least sure steps, then the suggestions; the parameters declared."""
    unsure = sorted((s for s in steps if s["confidence"] < ASK_BELOW), key=lambda s: (s["confidence"], s["index"]))
    return {
        "ask_first": [s["index"] for s in unsure],
        "ask_below": ASK_BELOW,
        "suggestions": [{"step_index": s["index"], **x} for s in steps for x in s.get("suggestions") or []],
        "parameters": declared(steps),
    }
