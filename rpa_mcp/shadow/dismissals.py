"""A click whose menu, list or dialog was closed at once with Escape, the screen left as it was: a look.

A person opens a menu to read its items (or a list, a dialog) and closes it with Escape; the two
steps changed nothing. When the screen the click began on and the screen after the Escape (the next
step's) differ by nothing but a text caret, a clock or specks, both steps get a removal suggestion and, with it, the
doubt that puts them among the steps asked about first. Judged across steps, on steps as derived (in
place); a step a person validated or reworded is left alone, and nothing is suggested before the
screen after the Escape is known.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rpa_mcp.shadow.doubts import REMOVAL_SUGGESTED, capped
from rpa_mcp.shadow.shots import SCREENSHOT_URI

DISMISSED = "dismissed"
REASONS = {
    "fr": "ouvert par un clic puis fermé par Échap : l'écran est resté tel qu'il était — à retirer, sauf si "
    "cela fait partie de la tâche",
    "en": "opened by a click and closed with Escape: the screen stayed as it was — remove it unless it is "
    "part of the task",
}
OPENERS = frozenset({"click_anchor", "double_click_anchor"})

SameScreen = Callable[[str, str], bool | None]  # (shot, shot) -> nothing changed; None: cannot tell


def suggest_dismissals(steps: Sequence[dict[str, Any]], same_screen: SameScreen, locale: str) -> None:
    """Add the removal suggestion to each click and Escape that together changed nothing (in place; the
    steps are fresh copies)."""
    reason = REASONS["fr" if locale == "fr" else "en"]
    for click, escape, after in zip(steps, steps[1:], steps[2:], strict=False):
        if not (_open_by_click(click) and _escape(escape)):
            continue
        before, then = _shot(click), _shot(after)
        if before is None or then is None or same_screen(before, then) is not True:
            continue
        for step in (click, escape):
            if any(s.get("action") == "undo" for s in step.get("suggestions") or []):
                continue
            step["suggestions"] = [
                *(step.get("suggestions") or []),
                {"action": "undo", "kind": DISMISSED, "reason": reason},
            ]
            step["doubts"] = [*(step.get("doubts") or []), REMOVAL_SUGGESTED]
            step["confidence"] = round(capped(step["confidence"], step["doubts"]), 2)


def _proposed(step: dict[str, Any]) -> bool:
    return step.get("status") == "proposed" and step.get("evidence") != "person"


def _open_by_click(step: dict[str, Any]) -> bool:
    return _proposed(step) and step.get("action_type") in OPENERS


def _escape(step: dict[str, Any]) -> bool:
    params = step.get("params") or {}
    return _proposed(step) and step.get("action_type") == "key_press" and params.get("keys") == "escape"


def _shot(step: dict[str, Any]) -> str | None:
    uri = step.get("screenshot")
    return uri[len(SCREENSHOT_URI) :] if isinstance(uri, str) and uri.startswith(SCREENSHOT_URI) else None
