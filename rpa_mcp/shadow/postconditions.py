"""What a step left behind that proves it worked: its expected evidence.

- a **new window title** (the record that opened, the '*' of an unsaved file gone);
- a **dialog that closed** (the step answered it and the window behind came back);
- a **toast** or status message: reported by the agent as an element whose role is a
  notification (UIA ToolTip, AT-SPI alert/status...), or read on the screen after the step
  (`rpa_mcp.shadow.toasts`).

They become the IR step's ``expected`` ({window_title, text}: the fields the validator's
`expected` takes) and its ``expected_outcome`` ({kind, text}: the post-condition a replayed step
must show again to count as done; `outcome_of`). A step that selects a record keeps the identity
text the person saw (`identity_of`), compared with the target's text before the click at replay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rpa_mcp.shadow.elements import (
    TAB_ROLES,
    is_button,
    is_control,
    is_notification,
    is_row,
    role_of,
    screen_title,
)
from rpa_mcp.shadow.events import normalize_keys
from rpa_mcp.shadow.parameters import classify
from rpa_mcp.shadow.targets import plain_text

SCREENSHOT_URI = "rpa://screenshots/"
ACTION_TYPES = frozenset({"click", "double_click", "right_click", "key", "type", "scroll"})
LOOK_AHEAD = 8  # events after a step searched for its evidence
TOAST_ACTIONS = frozenset(
    {"save", "click_anchor", "key_press", "keyboard_shortcut", "type_text", "double_click_anchor"}
)


def shot_of(event: dict[str, Any]) -> str | None:
    ref = event.get("screenshot_ref")
    return str(ref).removeprefix(SCREENSHOT_URI) if ref else None


def after_step(rows: Sequence[dict[str, Any]], pos: int | None) -> tuple[list[str], str | None]:
    """(notification texts reported after the step, the first screenshot taken after it)."""
    notes: list[str] = []
    shot = None
    if pos is None:
        return notes, None
    for row in rows[pos + 1 : pos + 1 + LOOK_AHEAD]:
        event = row["event"]
        element = event.get("element")
        if is_notification(element) and (text := plain_text((element or {}).get("name"))):
            notes.append(text)
        shot = shot or shot_of(event)
        if event.get("type") in ACTION_TYPES:
            break  # its screenshot (taken before it) still shows the screen after our step
    return notes, shot


def notified(events: Sequence[tuple[int, dict[str, Any], dict[str, Any]]]) -> list[str]:
    """Notification texts the agent reported among the step's own events (after its action)."""
    out = []
    for _, event, _ in events[1:]:
        element = event.get("element")
        if is_notification(element) and (text := plain_text((element or {}).get("name"))):
            out.append(text)
    return out


def shot_before(rows: Sequence[dict[str, Any]], pos: int | None, facts: dict[str, Any]) -> str | None:
    """The screen just before the step's action: its own screenshot, else the last one before it."""
    if facts.get("shot"):
        return str(facts["shot"])
    if pos is None:
        return None
    for row in reversed(rows[: pos + 1]):
        if shot := shot_of(row["event"]):
            return shot
    return None


def wants_toast(action_type: str, events: Sequence[tuple[int, dict[str, Any], dict[str, Any]]]) -> bool:
    """Steps that commit something: a save, a button (named so by the tree, or seen as one on the screen: `button_box`
    in the click's facts), a submitted field, Enter."""
    if action_type not in TOAST_ACTIONS:
        return False
    last = events[-1][1]
    if action_type == "type_text":
        return any(normalize_keys(e.get("keys") or "") in ("enter", "numpadenter") for _, e, _ in events)
    if action_type in ("click_anchor", "double_click_anchor"):
        pressed = any(is_button(e.get("element")) or f.get("button_box") for _, e, f in events)
        return pressed or action_type == "double_click_anchor"
    return action_type == "save" or normalize_keys(last.get("keys") or "") in ("enter", "ctrl+enter")


def collect(
    *,
    action_type: str,
    window_before: str | None,
    window_after: str | None,
    came_back: Callable[[], bool],
    notes: Sequence[str],
    toast: str | None,
    answered: bool,
) -> tuple[list[dict[str, str]], dict[str, str]]:
    """(post-conditions shown to the person, the IR's expected {window_title?, text?}).

    `came_back()`: the window after is one an earlier step began on (so what the step closed was a dialog).
    """
    found: list[dict[str, str]] = []
    expected: dict[str, str] = {}
    if window_after and window_after != window_before and not _only_unsaved_mark(window_before, window_after):
        if answered and window_before and came_back():
            found.append({"kind": "dialog_closed", "text": window_before})
        found.append({"kind": "window_title", "text": window_after})
        expected["window_title"] = window_after
    for text in [*notes, *([toast] if toast else [])]:
        if all(f["text"] != text for f in found):
            found.append({"kind": "toast", "text": text})
            expected.setdefault("text", text)
    return found, expected


def _only_unsaved_mark(before: str | None, after: str) -> bool:
    """Typing in Notepad adds '*' to the title: that is not evidence of anything."""
    return bool(before) and screen_title(before) == screen_title(after) and after.lstrip().startswith("*")


RECORD_KINDS = frozenset({"name", "identifier"})
SELECTING_ACTIONS = frozenset({"click_anchor", "double_click_anchor", "switch_tab"})
MAX_IDENTITY = 200


def outcome_of(found: Sequence[dict[str, str]], *, answered: bool = False) -> dict[str, str] | None:
    """The step's post-condition: a message it showed first, else a form or dialog it opened inside its
    window, else the window title it led to.

    A step that answered a dialog (its window closed and the one behind came back) has none of its own.
    """
    for kind, label in (("toast", "message"), ("dialog_opened", "dialog"), ("window_title", "window_title")):
        for item in found:
            if item["kind"] == kind and item.get("text"):
                if kind == "window_title" and answered and any(f["kind"] == "dialog_closed" for f in found):
                    return None
                return {"kind": label, "text": item["text"], "source": "demonstration"}
    return None


def identity_of(
    action_type: str, target: dict[str, Any], parameter: dict[str, Any] | None, *, seen_button: bool = False
) -> str | None:
    """The identity text of a step that selects a record: a result row, a search result, a tab or a
    banner naming a patient (its element's whole name, else its label); None for any other step.

    A step is record-selecting when its element is a row or a cell, when it chooses an item by a value
    made a parameter, or when its label reads like a person's name or an identifier — unless it is a
    button: a button's capitalised words are an action ("Confirmer le RDV", "Save Changes"). A button is
    its element's role, else, with no accessible element, what the screen showed (`seen_button`: its
    text on a push button's face, `rpa_mcp.vision.push_button`).
    """
    if action_type not in SELECTING_ACTIONS:
        return None
    element = target.get("element") if isinstance(target.get("element"), dict) else None
    name = plain_text((element or {}).get("name"))
    label = plain_text(target.get("label") or target.get("by_text"))
    text = name or label
    if not text:
        return None
    row = is_row(element) or (role_of(element) in TAB_ROLES and classify(text) in RECORD_KINDS)
    button = is_button(element) or (seen_button and not is_control(element))
    if row or parameter is not None or (not button and classify(label) in RECORD_KINDS):
        return text[:MAX_IDENTITY]
    return None
