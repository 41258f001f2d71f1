"""The AT-SPI accessibility bus over D-Bus (jeepney): its nodes, their roles, names, states and boxes.

Debian's `pyatspi` needs PyGObject, which pip cannot install without a compiler and the
GObject headers, so this module speaks the AT-SPI D-Bus protocol itself: the session bus
gives the accessibility bus address (`org.a11y.Bus.GetAddress`); the registry lists the
applications; `Component.GetAccessibleAtPoint` walks down to the deepest element under the
point. Applications that expose nothing (or no accessibility bus) give `None`: the server then
names the target from OCR. The questions asked of the tree are `rpa_agent.x11.atspi`'s.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from jeepney import DBusAddress, Properties, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from rpa_agent import port

logger = logging.getLogger(__name__)
ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
REGISTRY = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
NULL_PATH = "/org/a11y/atspi/null"
COORD_SCREEN = 0
MAX_DEPTH = 40
MAX_NODES = 3000
MAX_CHILDREN = 200  # children looked at under one element when looking for a drop-down's open list
TIMEOUT_S = 1.0
STATE_CHECKED = 4
STATE_FOCUSED = 12
STATE_SHOWING = 25
RELATION_LABELLED_BY = 2
# fields and drop-downs: a separate label widget names them (their own name may be a placeholder or the value shown)
LABELLED_ROLES = frozenset({"entry", "text", "password text", "combo box", "spin button", "date editor"})
CHECK_ROLES = frozenset({"check box", "radio button", "toggle button", "check menu item", "radio menu item"})
PASSWORD_ROLES = frozenset({"password text"})
CONTAINER_ROLES = frozenset({"document web", "frame", "panel", "section", "filler", "application"})
LABEL_ROLES = frozenset({"label", "static"})
GROUP_ROLES = CONTAINER_ROLES | {"grouping", "form", "scroll pane", "viewport", "page tab", "dialog", "window"}
GONE_ROLES = frozenset({"invalid", "unknown", "redundant object"})
POPUP_ROLES = frozenset({"window", "menu", "list box"})  # top-level pop-ups (GTK: a nameless "window")
OPTION_ROLES = frozenset({"menu item", "list item", "check menu item", "radio menu item"})
LIST_ROLES = frozenset({"list", "list box", "menu", "tree", "table"})  # a drop-down's list, inside it (Qt)
ROLE_NAMES = {  # AT-SPI role names -> the UI Automation control types the server knows
    "push button": "Button",
    "toggle button": "Button",
    "page tab": "TabItem",
    "entry": "Edit",
    "password text": "Edit",
    "text": "Edit",
    "link": "Hyperlink",
    "table cell": "DataItem",
    "check box": "CheckBox",
    "radio button": "RadioButton",
    "combo box": "ComboBox",
    "menu item": "MenuItem",
    "heading": "Text",
    "label": "Text",
    "static": "Text",
}


@dataclass(frozen=True)
class Element:
    name: str
    role: str  # AT-SPI role name ("push button", "entry", ...)
    bbox: tuple[int, int, int, int] | None  # screen x, y, w, h
    is_password: bool
    focused: bool = False
    checked: bool | None = None  # a check box's (radio button's) state; None for other elements
    value: str | None = None  # a drop-down's own name: the option it shows (its label names the element)

    @property
    def identifies_target(self) -> bool:
        """A named element, a password box or a nameless control; not a page container or a node that
        is already gone (a link that navigated): their box is not what was clicked."""
        return bool(self.name) or self.is_password or self.role not in CONTAINER_ROLES | GONE_ROLES

    def to_port(self) -> port.Element:
        """The element as the port names it (UI Automation's control types)."""
        role = ROLE_NAMES.get(self.role, self.role.title())
        return port.Element(
            self.name, role, self.bbox, is_password=self.is_password, value=self.value, checked=self.checked
        )


def enable_accessibility(session_bus: str) -> None:
    """Turn the desktop's accessibility on (`org.a11y.Status.IsEnabled`), as a screen reader would."""
    conn = open_dbus_connection(bus=session_bus)
    try:
        status = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Status")
        conn.send_and_get_reply(Properties(status).set("IsEnabled", "b", True), timeout=5)
    finally:
        conn.close()


class AccessibilityBus:
    """One connection to the accessibility bus; every call answers within about a second or gives None."""

    _combo: tuple[str, str] | None = None  # the drop-down the last look found: its list may be open now

    def __init__(self, session_bus: str | None) -> None:
        self._lock = threading.Lock()
        self._conn: DBusConnection | None = None
        if not session_bus:
            return
        try:
            session = open_dbus_connection(bus=session_bus)
            try:
                bus = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
                address = session.send_and_get_reply(new_method_call(bus, "GetAddress"), timeout=5).body[0]
            finally:
                session.close()
            self._conn = open_dbus_connection(bus=address)
        except Exception as exc:  # no accessibility bus: element info stays absent
            logger.info("atspi_unavailable: %s", exc)
            self._conn = None

    @property
    def available(self) -> bool:
        return self._conn is not None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _call(
        self, ref: tuple[str, str], iface: str, method: str, sig: str | None = None, body: tuple[Any, ...] = ()
    ) -> Any:
        assert self._conn is not None
        msg = new_method_call(DBusAddress(ref[1], bus_name=ref[0], interface=iface), method, sig, body)
        reply = self._conn.send_and_get_reply(msg, timeout=TIMEOUT_S)
        if reply.header.message_type.name == "error":
            raise LookupError(f"{method}: {reply.body}")
        return reply.body

    def _prop(self, ref: tuple[str, str], iface: str, name: str) -> Any:
        assert self._conn is not None
        reply = self._conn.send_and_get_reply(
            Properties(DBusAddress(ref[1], bus_name=ref[0], interface=iface)).get(name), timeout=TIMEOUT_S
        )
        return reply.body[0][1]

    def _states(self, ref: tuple[str, str]) -> set[int]:
        words = self._call(ref, ACCESSIBLE, "GetState")[0]
        return {i * 32 + bit for i, word in enumerate(words) for bit in range(32) if word >> bit & 1}

    def _describe(self, ref: tuple[str, str]) -> Element:
        own = name = str(self._prop(ref, ACCESSIBLE, "Name") or "")
        role = str(self._call(ref, ACCESSIBLE, "GetRoleName")[0])
        bbox = self._extents(ref)
        if role in LABELLED_ROLES:
            name = self._label_of(ref, bbox) or name
        shown = own.strip() or None if role == "combo box" else None
        states = self._states(ref)
        checked = STATE_CHECKED in states if role in CHECK_ROLES else None
        return Element(name.strip(), role, bbox, role in PASSWORD_ROLES, STATE_FOCUSED in states, checked, shown)

    def _label_of(self, ref: tuple[str, str], box: tuple[int, int, int, int] | None) -> str:
        """The text of the label widgets this element is labelled by (AT-SPI relation), '' when none.

        A toolkit may also name the group around the field (Qt: a field in a group box is labelled by its
        buddy label and by the box): with a label widget among them, a container, or an element whose
        extents hold the field's, is the group's title, not the field's name (their join is on no screen).
        """
        try:
            relations = self._call(ref, ACCESSIBLE, "GetRelationSet")[0]
        except LookupError:
            return ""
        targets = [(str(t[0]), str(t[1])) for kind, refs in relations if kind == RELATION_LABELLED_BY for t in refs]
        labels = [(t, str(self._call(t, ACCESSIBLE, "GetRoleName")[0])) for t in targets]
        if any(role in LABEL_ROLES for _, role in labels):
            labels = [(t, role) for t, role in labels if not self._encloses(t, role, box)]
        names = [str(self._prop(t, ACCESSIBLE, "Name") or "").strip() for t, _ in labels]
        return " ".join(dict.fromkeys(n for n in names if n))

    def _encloses(self, ref: tuple[str, str], role: str, box: tuple[int, int, int, int] | None) -> bool:
        """A labelling element that is a group around the field (its role, or its extents holding the field)."""
        if role in LABEL_ROLES:
            return False
        if role in GROUP_ROLES:
            return True
        outer = self._extents(ref)
        return (
            outer is not None
            and box is not None
            and outer[0] <= box[0]
            and outer[1] <= box[1]
            and box[0] + box[2] <= outer[0] + outer[2]
            and box[1] + box[3] <= outer[1] + outer[3]
        )

    def _frames(self, window_title: str | None, point: tuple[int, int] | None = None) -> list[tuple[str, str]]:
        """The applications' showing top-level windows: a pop-up over `point` first (a drop-down's list,
        a menu: above every frame), then the frame titled `window_title`, then the others."""
        frames: list[tuple[int, tuple[str, str]]] = []
        for app in self._call(REGISTRY, ACCESSIBLE, "GetChildren")[0]:
            try:
                children = self._call(tuple(app), ACCESSIBLE, "GetChildren")[0]
            except LookupError:  # an application that closed and is still listed: its windows are gone
                continue
            for frame in children:
                ref = (str(frame[0]), str(frame[1]))
                try:
                    if STATE_SHOWING not in self._states(ref):
                        continue
                    named = bool(window_title) and str(self._prop(ref, ACCESSIBLE, "Name") or "") == window_title
                    frames.append((0 if point and self._popup_over(ref, point) else 1 if named else 2, ref))
                except LookupError:
                    continue
        return [ref for _, ref in sorted(frames, key=lambda item: item[0])]

    def _popup_over(self, ref: tuple[str, str], point: tuple[int, int]) -> bool:
        if str(self._call(ref, ACCESSIBLE, "GetRoleName")[0]) not in POPUP_ROLES:
            return False
        return inside(self._extents(ref), point)

    def _extents(self, ref: tuple[str, str]) -> tuple[int, int, int, int] | None:
        try:
            x, y, w, h = self._call(ref, COMPONENT, "GetExtents", "u", (COORD_SCREEN,))[0]
        except LookupError:
            return None
        return (int(x), int(y), int(w), int(h)) if w > 0 and h > 0 else None

    def _children(self, ref: tuple[str, str]) -> list[tuple[str, str]]:
        return [(str(c[0]), str(c[1])) for c in self._call(ref, ACCESSIBLE, "GetChildren")[0]][:MAX_CHILDREN]

    def _role(self, ref: tuple[str, str]) -> str:
        return str(self._call(ref, ACCESSIBLE, "GetRoleName")[0])

    def _named(self, ref: tuple[str, str], element: Element) -> Element:
        """A nameless leaf (the text inside a link or a button) stands for its named parent."""
        for _ in range(3):
            if element.name or element.role in CONTAINER_ROLES:
                return element
            parent = self._prop(ref, ACCESSIBLE, "Parent")
            if not parent or parent[1] == NULL_PATH:
                return element
            ref = (str(parent[0]), str(parent[1]))
            candidate = self._describe(ref)
            if candidate.role in CONTAINER_ROLES:
                return element
            element = candidate
        return element

    def _descend(self, ref: tuple[str, str], x: int, y: int) -> tuple[str, str] | None:
        """The deepest descendant of `ref` whose extents contain (x, y), by walking the tree."""
        best, pending, seen = None, [ref], 0
        while pending and seen < MAX_NODES:
            node = pending.pop()
            seen += 1
            for child in self._call(node, ACCESSIBLE, "GetChildren")[0]:
                cref = (str(child[0]), str(child[1]))
                try:
                    cx, cy, cw, ch = self._call(cref, COMPONENT, "GetExtents", "u", (COORD_SCREEN,))[0]
                except LookupError:
                    continue
                if cx <= x < cx + cw and cy <= y < cy + ch:
                    best = cref
                    pending.append(cref)
        return best


def inside(box: tuple[int, int, int, int] | None, point: tuple[int, int]) -> bool:
    return box is not None and box[0] <= point[0] < box[0] + box[2] and box[1] <= point[1] < box[1] + box[3]


def centre_within(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    """`inner`'s centre inside `outer` (an item scrolled half out of its list still shows)."""
    return inside(outer, (inner[0] + inner[2] // 2, inner[1] + inner[3] // 2))
