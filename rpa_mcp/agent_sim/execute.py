"""Turning one `NextAction` into input on the virtual desktop (the agent's hands and eyes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rpa_agent.core.actions import (  # the action types, as the workstation agent groups them
    CLICKS,
    DEFAULT_KEYS,
    DOUBLE_CLICKS,
    KEYS,
    NO_INPUT,
    RIGHT_CLICKS,
    SELECT_ALL,
    SERVER_SIDE,
    TYPING,
    replaces_field,
)

from rpa_mcp.agent_sim.desktop import VirtualDesktop
from rpa_mcp.replay import identity
from rpa_mcp.replay.choices import wanted_state
from rpa_mcp.replay.wire import NextAction
from rpa_mcp.vision.text_match import title_matches


@dataclass(frozen=True)
class Outcome:
    executed: bool  # some input reached the desktop
    success: bool
    error: str | None = None
    retryable: bool | None = None
    position: tuple[int, int] | None = None
    warning: str | None = None
    duration_s: float = 0.0  # extra time the action takes (waits, long actions): heartbeats cover it
    output: Any = None  # what the action read (set_checked: {"checked": state after})


def resolve_position(desktop: VirtualDesktop, action: NextAction) -> tuple[int, int] | None:
    """Server-resolved x/y first, then the agent's own vision (label), then the recorded fraction
    (never for an irreversible step)."""
    target = action.target
    if target is None:
        return None
    if target.x is not None and target.y is not None:
        return target.x, target.y
    if target.label:
        found = desktop.find_label(target.label)
        if found is not None:
            return found
    if action.irreversible:
        return None  # an irreversible step is never clicked at its recorded position alone
    if identity.identity_of(target.spec) is not None:
        return None  # a record is chosen by who it is: never at its recorded position alone
    if target.rel_x is not None and target.rel_y is not None:
        width, height = desktop.size
        rel_x, rel_y = (v / 100.0 if v > 1.0 else v for v in (target.rel_x, target.rel_y))  # tolerate percents
        return round(rel_x * (width - 1)), round(rel_y * (height - 1))
    return None


def _keys(params: dict[str, Any]) -> str | None:
    keys = params.get("keys") or params.get("combo") or params.get("key")
    if isinstance(keys, list):
        keys = "+".join(str(k) for k in keys)
    return keys if isinstance(keys, str) and keys else None


def duration_of(params: dict[str, Any]) -> float:
    for key, scale in (("duration_s", 1.0), ("seconds", 1.0), ("duration_ms", 0.001), ("ms", 0.001)):
        value = params.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value) * scale
    return 0.0


def inject(desktop: VirtualDesktop, action: NextAction) -> Outcome:
    kind = action.action_type.lower()
    params = action.params
    duration = duration_of(params)
    if kind in SERVER_SIDE:
        return Outcome(False, True, warning=f"{kind} is a server-side action: nothing to do on the desktop")
    if kind in NO_INPUT:  # carried out (waited, screen captured): done, though no input was injected
        return Outcome(True, True, duration_s=duration)
    position = resolve_position(desktop, action)
    if kind in TYPING:
        text = params.get("text")
        if not isinstance(text, str):
            return Outcome(False, False, "INVALID_ACTION: type_text needs params.text", False)
        if position is not None:  # typing into a field starts with a click on it
            desktop.click(*position)
        if replaces_field(kind, params):
            desktop.press(SELECT_ALL)  # then the text replaces what the field held, never follows it
        desktop.type_text(text)
        submit = params.get("submit_key") or ("enter" if kind == "paste_and_execute" else None)
        if isinstance(submit, str) and submit:
            desktop.press(submit)
        return Outcome(True, True, position=position, duration_s=duration)
    if kind in KEYS or (kind in DEFAULT_KEYS and position is None):
        keys = _keys(params) or DEFAULT_KEYS.get(kind)
        if keys is None:
            return Outcome(False, False, f"INVALID_ACTION: {kind} needs params.keys", False)
        desktop.press(keys)
        return Outcome(True, True, duration_s=duration)
    if kind == "select_option":
        return choose_option(desktop, position, params, duration)
    if kind == "set_checked":
        return set_checked(desktop, position, params, duration)
    if kind == "scroll":
        desktop.scroll()
        return Outcome(True, True, position=position, duration_s=duration)
    if kind == "focus_window" and position is None:
        wanted = action.target.window_title if action.target else None
        if wanted and not title_matches(desktop.window_title, wanted):
            return Outcome(False, False, f"WINDOW_NOT_FOUND: {wanted!r} is not on this desktop", True)
        # carried out without input (the window is in front), like a wait: executed (wire contract)
        return Outcome(True, True, duration_s=duration)
    if kind in CLICKS or kind in DOUBLE_CLICKS or kind in RIGHT_CLICKS or kind in ("save", "focus_window"):
        if position is None:
            return Outcome(False, False, "TARGET_NOT_RESOLVED: no coordinates and the label is not on screen", True)
        if action.target is not None and identity.identity_of(action.target.spec) is not None:
            seen = identity.check(desktop.text_at(*position), action.target.spec)
            if not seen.ok:  # read before any input: the record there is not the one the person chose
                return Outcome(False, False, seen.reason, False)
        click_kind = "double_click" if kind in DOUBLE_CLICKS else "right_click" if kind in RIGHT_CLICKS else "click"
        desktop.click(*position, kind=click_kind)
        return Outcome(True, True, position=position, duration_s=duration)
    return Outcome(False, False, f"UNSUPPORTED_ACTION: {action.action_type!r} on the virtual desktop", False)


def choose_option(
    desktop: VirtualDesktop, position: tuple[int, int] | None, params: dict[str, Any], duration: float
) -> Outcome:
    """Open the drop-down, find the option's text in its list, click it."""
    option = params.get("option")
    if not isinstance(option, str) or not option:
        return Outcome(False, False, "INVALID_ACTION: select_option needs params.option (the option's text)", False)
    if position is None:
        return Outcome(False, False, "TARGET_NOT_RESOLVED: no coordinates and the drop-down is not on screen", True)
    desktop.click(*position)
    found = desktop.find_label(option)
    if found is None:
        desktop.click(*position)  # close the list again: nothing chosen
        return Outcome(True, False, f"TARGET_NOT_RESOLVED: {option!r} is not in the list", True, position)
    desktop.click(*found)
    return Outcome(True, True, position=position, duration_s=duration)


def set_checked(
    desktop: VirtualDesktop, position: tuple[int, int] | None, params: dict[str, Any], duration: float
) -> Outcome:
    """Read the box's state; click only when it differs from the wanted one; read it again."""
    wanted = wanted_state(params)
    if wanted is None:
        return Outcome(False, False, "INVALID_ACTION: set_checked needs params.checked (true or false)", False)
    if position is None:
        return Outcome(False, False, "TARGET_NOT_RESOLVED: no coordinates and the box is not on screen", True)
    before = desktop.checked_at(*position)
    if before is None:
        return Outcome(False, False, "TARGET_NOT_RESOLVED: no check box whose state can be read there", True)
    if before != wanted:
        desktop.click(*position)
    after = desktop.checked_at(*position)
    # executed even when nothing was clicked: the step was carried out (the box already was so), like a wait
    if after != wanted:
        error = f"TEXT_MISMATCH: the box reads {after} after the click, not {wanted}"
        return Outcome(True, False, error, True, position, output={"checked": after})
    return Outcome(True, True, position=position, duration_s=duration, output={"checked": after})
