"""Element names and roles: UI Automation first, MSAA (oleacc) when UIA cannot be created.

Roles use UI Automation's control type names. A password field is masked both ways: UIA's
IsPassword, MSAA's STATE_SYSTEM_PROTECTED; its value is never read. A check box's (radio button's)
state comes from UI Automation's TogglePattern (on, off; an indeterminate box or a radio button,
which has no TogglePattern, gives no state) or MSAA's STATE_SYSTEM_CHECKED; without a state the
agent asks the server to read the box beside its label. The role alone still names a radio button
(`RadioButton`): a selected one is never clicked to be cleared (`rpa_agent.core.choices`).

An MSAA answer that says only "client" (`Pane`) for a standard Win32 control — Wine's oleacc does
so for buttons and check boxes — is refined from the control's window class and style (as Windows'
own MSAA proxies name them), a button's state from BM_GETCHECK.
"""

from __future__ import annotations

import logging

from rpa_agent.port import Element
from rpa_agent.windows.api import ControlInfo, MsaaNode, UiaNode, UiaUnavailable, Win32

logger = logging.getLogger(__name__)

STATE_SYSTEM_CHECKED = 0x10
STATE_SYSTEM_PROTECTED = 0x20000000
CHECKABLE = frozenset({"CheckBox", "RadioButton"})
TOGGLE_STATES: dict[int | None, bool] = {0: False, 1: True}  # ToggleState_Off, _On; 2 (indeterminate): unknown

UIA_CONTROL_TYPES = {
    50000: "Button", 50001: "Calendar", 50002: "CheckBox", 50003: "ComboBox", 50004: "Edit",
    50005: "Hyperlink", 50006: "Image", 50007: "ListItem", 50008: "List", 50009: "Menu",
    50010: "MenuBar", 50011: "MenuItem", 50012: "ProgressBar", 50013: "RadioButton",
    50014: "ScrollBar", 50015: "Slider", 50016: "Spinner", 50017: "StatusBar", 50018: "Tab",
    50019: "TabItem", 50020: "Text", 50021: "ToolBar", 50022: "ToolTip", 50023: "Tree",
    50024: "TreeItem", 50025: "Custom", 50026: "Group", 50027: "Thumb", 50028: "DataGrid",
    50029: "DataItem", 50030: "Document", 50031: "SplitButton", 50032: "Window", 50033: "Pane",
    50034: "Header", 50035: "HeaderItem", 50036: "Table", 50037: "TitleBar", 50038: "Separator",
    50039: "SemanticZoom", 50040: "AppBar",
}  # fmt: skip
# MSAA ROLE_SYSTEM_* -> the UI Automation control type that Windows' own MSAA proxy maps it to.
MSAA_ROLES = {
    0x01: "TitleBar", 0x02: "MenuBar", 0x03: "ScrollBar", 0x09: "Window", 0x0A: "Pane", 0x0B: "Menu",
    0x0C: "MenuItem", 0x0D: "ToolTip", 0x0F: "Document", 0x10: "Pane", 0x12: "Window", 0x14: "Group",
    0x15: "Separator", 0x16: "ToolBar", 0x17: "StatusBar", 0x18: "Table", 0x19: "HeaderItem",
    0x1A: "HeaderItem", 0x1B: "DataItem", 0x1C: "DataItem", 0x1D: "DataItem", 0x1E: "Hyperlink",
    0x21: "List", 0x22: "ListItem", 0x23: "Tree", 0x24: "TreeItem", 0x25: "TabItem", 0x28: "Image",
    0x29: "Text", 0x2A: "Edit", 0x2B: "Button", 0x2C: "CheckBox", 0x2D: "RadioButton", 0x2E: "ComboBox",
    0x30: "ProgressBar", 0x33: "Slider", 0x34: "Spinner", 0x38: "Button", 0x39: "Button",
    0x3C: "Tab", 0x3E: "SplitButton",
}  # fmt: skip


# Standard window classes -> UI Automation control type; "Button" is told apart by its style.
CONTROL_CLASSES = {
    "edit": "Edit", "richedit20w": "Edit", "richedit50w": "Edit", "static": "Text", "combobox": "ComboBox",
    "listbox": "List", "syslistview32": "List", "systreeview32": "Tree", "systabcontrol32": "Tab",
    "msctls_progress32": "ProgressBar", "msctls_trackbar32": "Slider",
}  # fmt: skip
BS_TYPEMASK = 0x0F
BUTTON_STYLES = {
    2: "CheckBox",
    3: "CheckBox",
    5: "CheckBox",
    6: "CheckBox",
    4: "RadioButton",
    9: "RadioButton",
    7: "Group",
}
BUTTON_CHECKS: dict[int | None, bool] = {0: False, 1: True}  # BST_UNCHECKED, BST_CHECKED; 2 (indeterminate): unknown


def refined_by_class(element: Element, control: ControlInfo | None) -> Element:
    """An MSAA `Pane` named by its standard control's class (unchanged for any other window)."""
    if control is None:
        return element
    kind = control.class_name.lower()
    if kind == "button":
        role = BUTTON_STYLES.get(control.style & BS_TYPEMASK, "Button")
    else:
        role = CONTROL_CLASSES.get(kind, element.role)
    checked = BUTTON_CHECKS.get(control.check) if role in CHECKABLE else element.checked
    return Element(element.name, role, element.box, element.is_password, element.value, checked)


def from_uia(node: UiaNode) -> Element:
    password = node.is_password()
    role = UIA_CONTROL_TYPES.get(node.control_type(), "Custom")
    checked = TOGGLE_STATES.get(node.toggle_state() if role in CHECKABLE else None)
    value = None if password else node.value()
    return Element(node.name(), role, node.box(), is_password=password, value=value, checked=checked)


def from_msaa(node: MsaaNode) -> Element:
    state = node.state()
    password = bool(state & STATE_SYSTEM_PROTECTED)
    role = MSAA_ROLES.get(node.role(), "Custom")
    checked = bool(state & STATE_SYSTEM_CHECKED) if role in CHECKABLE else None
    value = None if password else node.value()
    return Element(node.name(), role, node.box(), is_password=password, value=value, checked=checked)


class Accessibility:
    """UIA when it can be created, else MSAA for the rest of the agent's life (said once in the log)."""

    def __init__(self, win: Win32) -> None:
        self._win = win
        self.uia_available: bool | None = None  # None: not tried yet

    def element_at(self, x: int, y: int) -> Element | None:
        if self.use_uia():
            try:
                node = self._win.uia_element_at(x, y)
            except UiaUnavailable as exc:
                self.uia_missing(exc)
            else:
                self.uia_available = True
                return from_uia(node) if node is not None else None
        msaa = self._win.msaa_element_at(x, y)
        if msaa is None:
            return None
        element = from_msaa(msaa)
        return refined_by_class(element, self._win.control_at(x, y)) if element.role == "Pane" else element

    def focused_element(self) -> Element | None:
        if self.use_uia():
            try:
                node = self._win.uia_focused()
            except UiaUnavailable as exc:
                self.uia_missing(exc)
            else:
                self.uia_available = True
                return from_uia(node) if node is not None else None
        hwnd = self._win.focused_window()
        msaa = self._win.msaa_window(hwnd) if hwnd else None
        return from_msaa(msaa) if msaa is not None else None

    def use_uia(self) -> bool:
        return self.uia_available is not False

    def uia_missing(self, exc: UiaUnavailable) -> None:
        self.uia_available = False
        logger.warning("ui_automation_unavailable: %s; element names come from MSAA (oleacc) from now on", exc)
