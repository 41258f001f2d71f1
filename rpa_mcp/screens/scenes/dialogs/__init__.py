"""Frames that show one dialog, toast or bubble (the classifier's set), one builder per family."""

from __future__ import annotations

from rpa_mcp.screens.scenes.dialogs import apps, browser, easily, others, system
from rpa_mcp.screens.scenes.dialogs.common import Builder

FAMILIES: dict[str, Builder] = {
    "uac": system.uac,
    "hello": system.hello,
    "credential": system.credential,
    "smartscreen": system.smartscreen,
    "defender": system.defender,
    "confirm-delete": system.confirm_delete,
    "file-in-use": system.file_in_use,
    "save-as": system.save_as,
    "notepad-save": apps.notepad_save,
    "office-save": apps.office_save,
    "outlook-reminder": apps.outlook_reminder,
    "app-error": apps.app_error,
    "app-confirm-delete": apps.app_confirm_delete,
    "unknown": apps.unknown,
    "other-app-prompt": others.other_app_prompt,
    "perm-camera": browser.permission("camera"),
    "perm-microphone": browser.permission("microphone"),
    "perm-location": browser.permission("location"),
    "perm-notifications": browser.permission("notifications"),
    "js-dialog": browser.js_dialog,
    "translate": browser.translate,
    "easily-save-confirm": easily.easily_save_confirm,
    "easily-toast": easily.easily_toast,
    "easily-required": easily.easily_required,
    "easily-clinical": easily.easily_clinical,
    "easily-session": easily.easily_session,
    "easily-delete": easily.easily_delete,
}

__all__ = ["FAMILIES", "Builder"]
