"""Before/after frames of one action, with the verdict a validator must give (one builder per category).

The action's target is named, not measured here: the corpus builder measures it on the BEFORE
frame (`("tab", label)`, `("tab-close", label)`, `("element", name)`, `("button", label)`).
"""

from __future__ import annotations

from rpa_mcp.screens.scenes.pairs import actions, tabs
from rpa_mcp.screens.scenes.pairs.common import Builder, PairScene, TargetRef

CATEGORIES: dict[str, Builder] = {
    "tab-switch-ok": tabs.tab_switch_ok,
    "wrong-tab": tabs.wrong_tab,
    "already-active": tabs.already_active,
    "no-change": tabs.no_change,
    "clock-only": tabs.clock_only,
    "wrong-application": tabs.wrong_application,
    "tab-closed": tabs.tab_closed,
    "save-ok": actions.save_notepad,
    "save-toast": actions.save_toast,
    "unexpected-dialog": actions.save_unexpected_dialog,
    "click-opens-confirm": actions.click_opens_confirm,
    "blocked-by-dialog": actions.blocked_by_dialog,
    "dialog-closed": actions.dialog_closed,
    "dialog-still-open": actions.dialog_still_open,
    "click-ok": actions.click_menu_ok,
}

__all__ = ["CATEGORIES", "Builder", "PairScene", "TargetRef"]
