"""The one element of a window called by a name, from its accessibility tree (the port's `NamedElements`).

The window's tree is walked breadth first — UI Automation's control view, or MSAA's children when UI
Automation cannot be created — reading at most `MAX_NODES` nodes: a walk cut short by that cap cannot say
that a second element of the same name is not further on, and answers None. Only an element on screen
(UIA: not `IsOffscreen`; MSAA: neither `STATE_SYSTEM_INVISIBLE` nor `STATE_SYSTEM_OFFSCREEN`) with a
box counts. A field's name is its label's: UI Automation and Windows' MSAA proxies name an edit
control by the label before it, as `element_at` reads it. Under Wine, whose oleacc answers nothing for a
window object, the walk goes through each window's client object (and its menu bar object, which Wine
does not have: a menu item is out of reach there); its "client" over a standard control is named from
the control's class, as `element_at` does.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from rpa_agent.core.titles import title_matches
from rpa_agent.port import Element
from rpa_agent.windows.api import ControlInfo, MsaaNode, UiaNode, UiaUnavailable, Win32
from rpa_agent.windows.elements import Accessibility, from_msaa, from_uia, refined_by_class

logger = logging.getLogger(__name__)

MAX_NODES = 3000
STATE_SYSTEM_INVISIBLE = 0x8000
STATE_SYSTEM_OFFSCREEN = 0x10000


class Walked(Protocol):
    def name(self) -> str: ...


Node = TypeVar("Node", bound=Walked)


class TooManyNodes(Exception):
    """The walk read `MAX_NODES` nodes with more still to read."""


def only_in_tree(
    root: Node,
    name: str,
    children: Callable[[Node, int], Sequence[Node]],
    describe: Callable[[Node], Element | None],
    cap: int = MAX_NODES,
) -> Element | None:
    """The one node under `root` (itself included) called exactly `name` that `describe` accepts; None when
    none or more than one. Raises TooManyNodes when `cap` nodes were read and more remain."""
    pending: deque[Node] = deque([root])
    read, found = 1, []
    while pending:
        node = pending.popleft()
        if node.name().strip() == name:
            element = describe(node)
            if element is not None:
                found.append(element)
                if len(found) > 1:
                    return None  # two of them: the tree does not say which
        kids = children(node, cap - read + 1)  # one more than room: to know the walk would go on
        if read + len(kids) > cap:
            raise TooManyNodes(f"more than {cap} accessible nodes")
        read += len(kids)
        pending.extend(kids)
    return found[0] if found else None


def shown(element: Element) -> bool:
    return element.box is not None and element.box[2] > 0 and element.box[3] > 0


def uia_describer(role: str) -> Callable[[UiaNode], Element | None]:
    def describe(node: UiaNode) -> Element | None:
        if node.is_offscreen():
            return None
        element = from_uia(node)
        return element if element.role == role and shown(element) else None

    return describe


def msaa_describer(
    role: str, control_at: Callable[[int, int], ControlInfo | None]
) -> Callable[[MsaaNode], Element | None]:
    def describe(node: MsaaNode) -> Element | None:
        if node.state() & (STATE_SYSTEM_INVISIBLE | STATE_SYSTEM_OFFSCREEN):
            return None
        element = from_msaa(node)
        if element.role == "Pane" and element.box is not None:  # Wine's "client" over a standard control
            x, y, w, h = element.box
            element = refined_by_class(element, control_at(x + w // 2, y + h // 2))
        return element if element.role == role and shown(element) else None

    return describe


def uia_children(node: UiaNode, limit: int) -> Sequence[UiaNode]:
    return node.children(limit)


def msaa_children(node: MsaaNode, limit: int) -> Sequence[MsaaNode]:
    return node.children(limit)


def element_named(win: Win32, access: Accessibility, name: str, role: str, window_title: str) -> Element | None:
    """The port's `NamedElements.element_named` over the window in front; any failure of the walk is None."""
    wanted = name.strip()
    hwnd = win.foreground_window()
    if not hwnd or not wanted or not title_matches(win.window_text(hwnd).strip(), window_title):
        return None  # another window in front: its element of the same name is never the step's
    try:
        return _in_window(win, access, hwnd, wanted, role)
    except Exception as exc:  # a COM or ctypes failure, a window gone mid-walk, a tree too big
        logger.debug("element_named_failed: %r (%s) in window 0x%x: %s", wanted, role, hwnd, exc)
        return None


def _in_window(win: Win32, access: Accessibility, hwnd: int, name: str, role: str) -> Element | None:
    if access.use_uia():
        try:
            root = win.uia_window(hwnd)
        except UiaUnavailable as exc:
            access.uia_missing(exc)
        else:
            access.uia_available = True
            return only_in_tree(root, name, uia_children, uia_describer(role)) if root is not None else None
    frame = win.msaa_frame(hwnd)
    return only_in_tree(frame, name, msaa_children, msaa_describer(role, win.control_at)) if frame else None
