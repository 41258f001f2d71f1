"""Questions asked of the accessibility tree (AT-SPI, `rpa_agent.x11.atspi_bus`): what element is under a point
(named by its label, a drop-down's option for the drop-down), what a wheel would turn there, which option an opened
list shows, which one element a window names so. Applications that expose nothing give `None`: the server then
names the target from OCR.
"""

from __future__ import annotations

import logging

from rpa_agent.x11.atspi_bus import (
    ACCESSIBLE,
    COMPONENT,
    CONTAINER_ROLES,
    COORD_SCREEN,
    LABELLED_ROLES,
    LIST_ROLES,
    MAX_DEPTH,
    MAX_NODES,
    NULL_PATH,
    OPTION_ROLES,
    POPUP_ROLES,
    REGISTRY,
    RELATION_LABELLED_BY,
    STATE_CHECKED,
    STATE_FOCUSED,
    STATE_SHOWING,
    AccessibilityBus,
    Element,
    centre_within,
    enable_accessibility,
    inside,
)

logger = logging.getLogger(__name__)
__all__ = [
    "NULL_PATH",
    "REGISTRY",
    "RELATION_LABELLED_BY",
    "STATE_CHECKED",
    "STATE_FOCUSED",
    "STATE_SHOWING",
    "Accessibility",
    "Element",
    "enable_accessibility",
]


class Accessibility(AccessibilityBus):
    """The questions the agent asks of the tree, over one connection to the bus."""

    def element_at(self, x: int, y: int, window_title: str | None = None) -> Element | None:
        """The deepest accessible element under screen point (x, y); the frame named `window_title`
        (the foreground window's title) is searched first."""
        if self._conn is None:
            return None
        with self._lock:
            try:
                return self._element_at(x, y, window_title)
            except Exception as exc:  # an application that went away, a timeout: no element info
                logger.debug("atspi_element_at_failed: %s", exc)
                return None

    def _opener(
        self, ref: tuple[str, str], element: Element, point: tuple[int, int]
    ) -> tuple[tuple[str, str], Element]:
        """A drop-down's list item over the drop-down itself stands for the drop-down: the click that
        opened the list (it shows its current option there by the time it is looked up)."""
        if element.role not in OPTION_ROLES:
            return ref, element
        ancestor = ref
        for _ in range(3):
            parent = self._prop(ancestor, ACCESSIBLE, "Parent")
            if not parent or parent[1] == NULL_PATH:
                break
            ancestor = (str(parent[0]), str(parent[1]))
            if str(self._call(ancestor, ACCESSIBLE, "GetRoleName")[0]) == "combo box":
                return (
                    (ancestor, self._describe(ancestor)) if inside(self._extents(ancestor), point) else (ref, element)
                )
        return ref, element

    def _element_at(self, x: int, y: int, window_title: str | None) -> Element | None:
        for frame in self._frames(window_title, (x, y)):
            ref, found = frame, None
            for _ in range(MAX_DEPTH):
                child = self._call(ref, COMPONENT, "GetAccessibleAtPoint", "iiu", (x, y, COORD_SCREEN))[0]
                if child[1] == NULL_PATH or (str(child[0]), str(child[1])) == ref:
                    break
                ref = found = (str(child[0]), str(child[1]))
            if found is not None:
                element = self._describe(found)
                if element.role in CONTAINER_ROLES:  # hit testing not ready (a page just loaded): by geometry
                    deeper = self._descend(found, x, y)
                    if deeper is not None:
                        found, element = deeper, self._describe(deeper)
                item = self._open_list_item(found, (x, y)) if element.role not in OPTION_ROLES else None
                if item is not None:
                    found, element = item, self._describe(item)
                found, element = self._opener(found, element, (x, y))
                self._combo = found if element.role == "combo box" else None
                return self._named(found, element)
        self._combo = None
        return None

    def roles_at(self, x: int, y: int, window_title: str) -> list[str] | None:
        """The roles from the frame titled `window_title` down to the deepest element under (x, y) (a pop-up
        over the point: its role alone); None when the tree does not say (no bus, no such frame showing)."""
        if self._conn is None or not window_title:
            return None
        with self._lock:
            try:
                return self._roles_at(x, y, window_title)
            except Exception as exc:
                logger.debug("atspi_roles_at_failed: %s", exc)
                return None

    def _roles_at(self, x: int, y: int, window_title: str) -> list[str] | None:
        frames = self._frames(window_title, (x, y))
        if not frames:
            return None
        frame = frames[0]
        if self._popup_over(frame, (x, y)):
            return [self._role(frame)]
        if str(self._prop(frame, ACCESSIBLE, "Name") or "") != window_title:
            return None
        ref = frame
        for _ in range(MAX_DEPTH):  # a toolkit may answer its deepest element at once (Chromium)
            child = self._call(ref, COMPONENT, "GetAccessibleAtPoint", "iiu", (x, y, COORD_SCREEN))[0]
            if child[1] == NULL_PATH or (str(child[0]), str(child[1])) == ref:
                break
            ref = (str(child[0]), str(child[1]))
        if self._role(ref) in CONTAINER_ROLES:  # hit testing not ready (a page just loaded): by geometry
            ref = self._descend(ref, x, y) or ref
        roles: list[str] = []  # the deepest element, then its ancestors up to the frame
        while len(roles) < MAX_DEPTH:
            roles.append(self._role(ref))
            parent = self._prop(ref, ACCESSIBLE, "Parent")
            if ref == frame or not parent or parent[1] == NULL_PATH:
                break
            ref = (str(parent[0]), str(parent[1]))
        return roles[::-1]

    def _open_list_item(self, hit: tuple[str, str], point: tuple[int, int]) -> tuple[str, str] | None:
        """The option under `point` in a drop-down's open list that the toolkit keeps inside the drop-down
        (Qt: the list's items are the combo box's children, no pop-up of their own, and the hit test gives
        the field under the list): the drop-down the last look found, then those beside the element hit
        (its parent's and grandparent's children, a container's own). The list counts as open while it has
        extents holding the point (closed, Qt leaves it empty and its items where they were). A drop-down
        gone since (its application closed) or a node that does not answer is passed over: the element hit
        stands."""
        try:
            combos = self._combos_near(hit)
        except LookupError as exc:
            logger.debug("atspi_open_list_failed: %s", exc)
            combos = []
        for combo in combos:
            try:
                item = self._item_at(combo, point)
            except LookupError:  # gone (its application closed): the next one
                continue
            if item is not None:
                return item
        return None

    def _combos_near(self, hit: tuple[str, str]) -> list[tuple[str, str]]:
        combos = [self._combo] if self._combo is not None else []
        if self._role(hit) in CONTAINER_ROLES:  # the panel under the list, hit where no field is
            combos += [c for c in self._children(hit) if self._role(c) == "combo box"]
        ancestor = hit
        for _ in range(2):
            parent = self._prop(ancestor, ACCESSIBLE, "Parent")
            if not parent or parent[1] == NULL_PATH:
                break
            ancestor = (str(parent[0]), str(parent[1]))
            combos += [c for c in self._children(ancestor) if self._role(c) == "combo box"]
        return list(dict.fromkeys(combos))

    def _item_at(self, combo: tuple[str, str], point: tuple[int, int]) -> tuple[str, str] | None:
        """The option under `point` in `combo`'s list while that list is open (its extents hold the point)."""
        for listed in self._children(combo):
            if self._role(listed) not in LIST_ROLES or not inside(self._extents(listed), point):
                continue
            for item in self._children(listed):
                if self._role(item) in OPTION_ROLES and inside(self._extents(item), point):
                    return item
        return None

    def option_shown(
        self, name: str, near: tuple[int, int] | None = None, window_title: str | None = None
    ) -> Element | None:
        """The showing option (a list or menu item) called exactly `name` inside a showing pop-up (a
        drop-down's opened list), with its box; None when no pop-up shows it or the tree does not say.
        `near`: the point of the drop-down that opened the list (in the window titled `window_title`): a list
        kept inside its drop-down (Qt) is looked for in the drop-down at that point only, never by walking
        every application's tree (a browser's page alone costs half a second)."""
        if self._conn is None or not name.strip():
            return None
        with self._lock:
            try:
                return self._option_shown(name.strip(), near, window_title)
            except Exception as exc:
                logger.debug("atspi_option_failed: %s", exc)
                return None

    def _option_shown(self, name: str, near: tuple[int, int] | None, window_title: str | None) -> Element | None:
        frames = self._frames(None)
        popups = [f for f in frames if str(self._call(f, ACCESSIBLE, "GetRoleName")[0]) in POPUP_ROLES]
        found = self._option_in_popups(popups, name)
        if found is not None:
            return found
        if near is None:
            return self._option_in_open_list(frames, name)
        self._element_at(near[0], near[1], window_title)  # the drop-down at the point, when it is one
        return self._option_in_combo(self._combo, name) if self._combo is not None else None

    def _option_in_open_list(self, frames: list[tuple[str, str]], name: str) -> Element | None:
        """The option called `name` in a drop-down's open list kept inside the drop-down (Qt), with its box
        inside the list's: the list is open while it has extents (closed, its items keep their old boxes)."""
        pending, seen = list(frames), 0
        while pending and seen < MAX_NODES:
            ref = pending.pop(0)
            seen += 1
            role = self._role(ref)
            if role in LIST_ROLES | OPTION_ROLES | {"tree table", "table cell", "cell"}:
                continue  # no drop-down inside a list, a table or an option: not walked
            children = self._children(ref)
            if role != "combo box":
                pending.extend(children)
                continue
            found = self._option_in_combo(ref, name, children)
            if found is not None:
                return found
        return None

    def _option_in_combo(
        self, combo: tuple[str, str], name: str, children: list[tuple[str, str]] | None = None
    ) -> Element | None:
        """The option called `name` in `combo`'s open list (one with extents), its box inside the list's."""
        for listed in self._children(combo) if children is None else children:
            box = self._extents(listed) if self._role(listed) in LIST_ROLES else None
            if box is None:
                continue
            for item in self._children(listed):
                if self._role(item) not in OPTION_ROLES:
                    continue
                if str(self._prop(item, ACCESSIBLE, "Name") or "").strip() != name:
                    continue
                element = self._describe(item)
                if element.bbox is not None and centre_within(element.bbox, box):
                    return element
        return None

    def _option_in_popups(self, popups: list[tuple[str, str]], name: str) -> Element | None:
        seen = 0
        for popup in popups:
            pending = [popup]
            while pending and seen < MAX_NODES:
                ref = pending.pop(0)
                seen += 1
                role = str(self._call(ref, ACCESSIBLE, "GetRoleName")[0])
                if role in OPTION_ROLES and str(self._prop(ref, ACCESSIBLE, "Name") or "").strip() == name:
                    element = self._describe(ref)
                    if element.bbox is not None and STATE_SHOWING in self._states(ref):
                        return element
                pending.extend((str(c[0]), str(c[1])) for c in self._call(ref, ACCESSIBLE, "GetChildren")[0])
        return None

    def only_element(self, name: str, port_role: str, window_title: str | None) -> Element | None:
        """The one showing element called exactly `name` whose control type (as the port names it) is
        `port_role`, in the frame titled `window_title`; None when there is none, more than one, or no title."""
        if self._conn is None or not window_title or not name.strip():
            return None
        with self._lock:
            try:
                return self._only_element(name.strip(), port_role, window_title)
            except Exception as exc:
                logger.debug("atspi_only_element_failed: %s", exc)
                return None

    def _only_element(self, name: str, port_role: str, window_title: str) -> Element | None:
        frames = [f for f in self._frames(window_title) if str(self._prop(f, ACCESSIBLE, "Name") or "") == window_title]
        pending, seen, found = frames[:1], 0, []
        while pending and seen < MAX_NODES:
            ref = pending.pop(0)
            seen += 1
            if str(self._prop(ref, ACCESSIBLE, "Name") or "").strip() == name or self._role(ref) in LABELLED_ROLES:
                element = self._describe(ref)  # a field's name is its label's (labelled-by)
                same = element.name == name and element.to_port().role == port_role and element.bbox is not None
                if same and STATE_SHOWING in self._states(ref):
                    found.append(element)
                    if len(found) > 1:
                        return None  # two of them: the tree does not say which
            pending.extend(self._children(ref))
        return found[0] if found else None

    def find(self, name: str, *, role: str | None = None, window_title: str | None = None) -> Element | None:
        """The first showing element called `name` (and of `role`), breadth first: for scripted people."""
        if self._conn is None:
            return None
        with self._lock:
            try:
                return self._find(name, role, window_title)
            except Exception as exc:
                logger.debug("atspi_find_failed: %s", exc)
                return None

    def _find(self, name: str, role: str | None, window_title: str | None) -> Element | None:
        pending = list(self._frames(window_title))[:1] if window_title else list(self._frames(None))
        seen = 0
        while pending and seen < MAX_NODES:
            ref = pending.pop(0)
            seen += 1
            if str(self._prop(ref, ACCESSIBLE, "Name") or "").strip() == name:
                element = self._describe(ref)
                showing = element.bbox is not None and STATE_SHOWING in self._states(ref)
                if (role is None or element.role == role) and showing:
                    return element
            pending.extend((str(c[0]), str(c[1])) for c in self._call(ref, ACCESSIBLE, "GetChildren")[0])
        return None
