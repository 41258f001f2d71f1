"""The action types of the replay wire, grouped by what the agent does for them.

The server's validator matrix (catalog/validator_matrix.yaml) names them; the agent only needs
to know which input each one is.
"""

from __future__ import annotations

from typing import Any

DOUBLE_CLICKS = frozenset({"double_click", "double_click_anchor"})
RIGHT_CLICKS = frozenset({"right_click", "right_click_anchor"})
CLICKS = frozenset(
    {
        "click",
        "left_click",
        "click_anchor",
        "switch_tab",
        "close_tab",
        "dialog_button",
        "toggle_checkbox",
        "drag_drop_anchor",
        "open_application",
        "close_application",
        "new_tab",
    }
)
ANY_CLICK = CLICKS | DOUBLE_CLICKS | RIGHT_CLICKS
CHOICES = frozenset({"select_option", "set_checked"})  # set a control: clicks, read first (`rpa_agent.core.choices`)
TYPING = frozenset({"type", "type_text", "text", "paste_and_execute"})
KEYS = frozenset({"key", "key_combo", "hotkey", "keys", "keyboard_shortcut", "key_press"})
REPLACING = frozenset({"type", "type_text", "text"})  # typing replaces what the field held (not a command line)
SELECT_ALL = "ctrl+a"
NO_INPUT = frozenset({"wait", "wait_for_element", "screenshot_evidence", "pause_for_human"})
SERVER_SIDE = frozenset({"extract_text", "t2a_decision"})
DEFAULT_KEYS = {"save": "ctrl+s", "new_tab": "ctrl+t", "close_tab": "ctrl+w"}
NEEDS_POINT = ANY_CLICK | CHOICES | TYPING | {"scroll", "save"}


def replaces_field(kind: str, params: dict[str, Any]) -> bool:
    """Typing a value replaces the field's content (select-all first), unless the step says `replace: false`."""
    return kind in REPLACING and params.get("replace", True) is not False


def keys_of(params: dict[str, Any], kind: str = "") -> str | None:
    """The key combination of a key step ("ctrl+s"), from `keys`, `combo` or `key` (a list is joined)."""
    keys = params.get("keys") or params.get("combo") or params.get("key") or DEFAULT_KEYS.get(kind)
    if isinstance(keys, list):
        keys = "+".join(str(k) for k in keys)
    return keys if isinstance(keys, str) and keys else None


def wait_seconds(params: dict[str, Any]) -> float:
    """How long a wait step waits (`duration_s`, `seconds`, `duration_ms`, `ms`); 0 when not given."""
    for key, scale in (("duration_s", 1.0), ("seconds", 1.0), ("duration_ms", 0.001), ("ms", 0.001)):
        value = params.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value) * scale
    return 0.0
