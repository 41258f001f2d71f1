"""What an event says about the element and the screen it acts on.

Roles come from UI Automation (Windows: ``DataItem``, ``TabItem``, ``Button``) or AT-SPI
(Linux: ``table cell``, ``page tab``, ``push button``); they are compared folded (case,
spaces, underscores and hyphens removed), so both vocabularies land in the same classes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from rpa_mcp.vision.ocr import normalize_text

ROW_ROLES = frozenset(
    {"dataitem", "listitem", "treeitem", "row", "tablerow", "cell", "tablecell", "gridcell", "tablerowheader"}
)
TAB_ROLES = frozenset({"tabitem", "tab", "pagetab"})
BUTTON_ROLES = frozenset({"button", "pushbutton", "splitbutton", "togglebutton", "menubutton"})
MENU_ITEM_ROLES = frozenset({"menuitem", "checkmenuitem", "radiomenuitem"})
LINK_ROLES = frozenset({"hyperlink", "link"})
MULTILINE_ROLES = frozenset({"document", "textarea", "richedit", "terminal", "documenttext"})
FIELD_ROLES = frozenset({"edit", "entry", "combobox", "searchbox", "spinbutton", "passwordtext"})  # "Text" is static
COMBO_ROLES = frozenset({"combobox", "dropdown", "dropdownbutton", "popupbutton", "select"})
# what a drop-down's list is made of (a native pop-up may not be in the tree at all: see `segmenter`)
OPTION_ROLES = frozenset({"listitem", "option", "menuitem", "listboxitem", "dataitem", "tablecell", "treeitem"})
CHECK_ROLES = frozenset({"checkbox", "checkbutton", "radiobutton", "radio", "checkmenuitem", "radiomenuitem"})
RADIO_ROLES = frozenset({"radiobutton", "radio", "radiomenuitem"})
CHECKED_STATES = frozenset({"checked", "pressed", "selected"})
NOTIFY_ROLES = frozenset(
    {"tooltip", "notification", "alert", "status", "statusbar", "infobar", "toast", "log", "dialogalert"}
)
# Elements that hold a whole page or window: a click "on" one tells nothing about what was clicked
# (an accessibility lookup that fell through to the container, or found another window's document).
CONTAINER_ROLES = frozenset(
    {
        "documentweb",
        "frame",
        "panel",
        "section",
        "filler",
        "application",
        "window",
        "pane",
        "scrollpane",
        "internalframe",
    }
)
MULTILINE_STATES = frozenset({"multiline", "multi-line", "multi_line"})
SINGLELINE_STATES = frozenset({"singleline", "single-line", "single_line"})
POINT_TOLERANCE = 6  # screen px: two clicks this close without an element name hit the same thing
_MODIFIED_MARK = re.compile(r"^\s*\*\s*|\s*\*\s*$")  # Notepad, Word: '*' while the document is unsaved


def role_of(element: Mapping[str, Any] | None) -> str:
    if not element:
        return ""
    return re.sub(r"[\s_\-]+", "", str(element.get("role") or "").lower())


def is_container(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in CONTAINER_ROLES


# What the accessibility tree says a person acts on. Anything else it names (static text, a section, a
# div drawn as a control) is named by its own text only: the screen says what it does.
CONTROL_ROLES = (
    ROW_ROLES | TAB_ROLES | BUTTON_ROLES | MENU_ITEM_ROLES | LINK_ROLES | MULTILINE_ROLES | FIELD_ROLES
) | (COMBO_ROLES | OPTION_ROLES | CHECK_ROLES | frozenset({"textbox", "listbox", "slider", "scrollbar"}))


def is_control(element: Mapping[str, Any] | None) -> bool:
    """Whether the accessibility tree says the element is a control (a field, a button, a list's item...)."""
    return role_of(element) in CONTROL_ROLES


def element_key(element: Mapping[str, Any] | None) -> str | None:
    """Identity of an element across events: role, automation id and name (None: neither, or a container)."""
    if not element or is_container(element):
        return None
    aid = str(element.get("automation_id") or "").strip()
    name = normalize_text(str(element.get("name") or ""))
    if not aid and not name:
        return None
    return f"{role_of(element)}|{aid}|{name}"


def same_place(a: list[int] | None, b: list[int] | None) -> bool:
    return bool(a and b and abs(a[0] - b[0]) <= POINT_TOLERANCE and abs(a[1] - b[1]) <= POINT_TOLERANCE)


def is_row(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in ROW_ROLES


def is_tab(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in TAB_ROLES


def is_button(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in BUTTON_ROLES


def is_link(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in LINK_ROLES


def is_field(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in FIELD_ROLES or role_of(element) in MULTILINE_ROLES


def is_menu_item(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in MENU_ITEM_ROLES


def is_combo(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in COMBO_ROLES


def is_option(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in OPTION_ROLES


def is_checkable(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in CHECK_ROLES


def checked_at_press(element: Mapping[str, Any] | None) -> bool | None:
    """A check box's state when the button went down (the recorder looks it up then), None when not said."""
    if not element:
        return None
    if isinstance(element.get("checked"), bool):
        return bool(element["checked"])
    states = element.get("states")
    if not isinstance(states, list | tuple):
        return None
    return bool({str(s).lower() for s in states} & CHECKED_STATES)


def checked_after(element: Mapping[str, Any] | None) -> bool | None:
    """The state a click on this check box (radio button) left: a radio button is always set after it;
    a check box flips from the state it had when pressed; None when the element did not say."""
    return checked_state(element)[0]


def checked_state(element: Mapping[str, Any] | None) -> tuple[bool | None, bool]:
    """(the state a click left, whether that reading is sure).

    A recorder reads a check box when the button goes down; under load the reading can come after the
    release, when the application has toggled the box already (``checked_late``). It then reads the box
    again once the release is done (``checked_after``). Sure: a radio button; a press read before the
    release; two readings that differ (they bracket the toggle). A late press reading that the second
    one repeats (both after the toggle, or both before it) is not sure: the second reading is the value,
    the step is asked first.
    """
    if role_of(element) in RADIO_ROLES:
        return True, True
    before = checked_at_press(element)
    again = element.get("checked_after") if element else None
    if not isinstance(again, bool):
        late = bool(element and element.get("checked_late"))
        return (None, False) if before is None or late else (not before, True)
    if not (element or {}).get("checked_late") and before is not None:
        return not before, again != before  # read before the release: sure, unless the box did not flip
    return again, before is not None and again != before


def is_notification(element: Mapping[str, Any] | None) -> bool:
    return role_of(element) in NOTIFY_ROLES


def multiline(element: Mapping[str, Any] | None) -> bool | None:
    """True for a multi-line field, False for a single-line one, None when the element does not say."""
    if not element:
        return None
    if isinstance(element.get("multiline"), bool):
        return bool(element["multiline"])
    states = {str(s).lower() for s in element.get("states") or []}
    if states & MULTILINE_STATES:
        return True
    if states & SINGLELINE_STATES:
        return False
    role = role_of(element)
    if role in MULTILINE_ROLES:
        return True
    if role in ("combobox", "searchbox", "spinbutton", "passwordtext"):
        return False
    return None


@functools.lru_cache(maxsize=4096)
def screen_title(title: str | None) -> str | None:
    """A window title without the 'unsaved' mark, folded: the same screen before and after typing."""
    if not title:
        return None
    return normalize_text(_MODIFIED_MARK.sub("", title)) or None


def app_key(app: str | None) -> str | None:
    if not app:
        return None
    name = app.strip().lower().replace("/", "\\").rsplit("\\", 1)[-1]
    return name[:-4] if name.endswith(".exe") else name
