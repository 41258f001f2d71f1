"""A drop-down's open list is above the window: the option clicked in it is that option, and the click
that opened it is the drop-down, not the current option the list shows over it (GTK's pop-ups).

The accessibility bus is the in-memory tree of test_atspi_names, with hit testing and parents.
"""

from __future__ import annotations

from typing import Any

from rpa_agent.x11.atspi import NULL_PATH, REGISTRY, RELATION_LABELLED_BY, STATE_SHOWING

from tests.agent_x11.test_atspi_names import Ref, TreeAccessibility

TITLE = "Admission — Bureau des entrées"
SHOWING = [STATE_SHOWING]


def inside(box: tuple[int, int, int, int], x: int, y: int) -> bool:
    return box[0] <= x < box[0] + box[2] and box[1] <= y < box[1] + box[3]


class HitTestTree(TreeAccessibility):
    """Children, parents and GetAccessibleAtPoint (the first child whose extents hold the point)."""

    def _prop(self, ref: Ref, iface: str, name: str) -> Any:
        if name == "Parent":
            parent = self._node(ref).get("parent")
            return (":1.1", parent) if parent else (":1.1", NULL_PATH)
        return super()._prop(ref, iface, name)

    def _call(self, ref: Ref, iface: str, method: str, sig: str | None = None, body: tuple[Any, ...] = ()) -> Any:
        node = self._node(ref)
        if method == "GetChildren":
            return ([(":1.1", path) for path in node.get("children", [])],)
        if method == "GetAccessibleAtPoint":
            x, y = body[0], body[1]
            for path in node.get("children", []):
                if inside(self.nodes[path].get("extents", (0, 0, 0, 0)), x, y):
                    return ((":1.1", path),)
            return ((":1.1", NULL_PATH),)
        return super()._call(ref, iface, method, sig, body)


def admission(popup_open: bool) -> dict[str, dict[str, Any]]:
    """A window with a labelled drop-down above a date field; when open, its list in a pop-up over both."""
    items = {
        "/current": {"name": "— choisir —", "role": "menu item", "extents": (1600, 198, 216, 30), "parent": "/menu"},
        "/cardio": {"name": "Cardiologie", "role": "menu item", "extents": (1600, 228, 216, 30), "parent": "/menu"},
    }
    nodes: dict[str, dict[str, Any]] = {
        REGISTRY[1]: {"role": "desktop frame", "children": ["/app"]},
        "/app": {"role": "application", "children": ["/frame", *(["/popup"] if popup_open else [])]},
        "/frame": {"name": TITLE, "role": "frame", "states": SHOWING, "extents": (0, 0, 1920, 1080),
                   "children": ["/panel"]},
        "/panel": {"role": "panel", "extents": (1450, 150, 450, 200), "children": ["/label", "/combo", "/date"],
                   "parent": "/frame"},
        "/label": {"name": "Service", "role": "label", "extents": (1450, 194, 140, 34), "parent": "/panel"},
        "/combo": {"name": "— choisir —", "role": "combo box", "extents": (1600, 194, 216, 34), "parent": "/panel",
                   "relations": [(RELATION_LABELLED_BY, ["/label"])], "children": ["/menu"]},
        "/menu": {"role": "menu", "extents": (1600, 194, 216, 64) if popup_open else (0, 0, 0, 0),
                  "parent": "/combo", "children": list(items)},
        "/date": {"name": "", "role": "text", "extents": (1600, 238, 216, 34), "parent": "/panel"},
        **items,
    }  # fmt: skip
    if popup_open:
        nodes["/popup"] = {"name": "", "role": "window", "states": SHOWING, "extents": (1600, 194, 216, 64),
                           "children": ["/menu"]}  # fmt: skip
    return nodes


def test_the_option_clicked_in_an_open_list_is_that_option_not_the_field_under_the_list() -> None:
    eyes = HitTestTree(admission(popup_open=True))
    element = eyes.element_at(1700, 243, TITLE)
    assert element is not None and (element.name, element.role) == ("Cardiologie", "menu item")


def test_the_click_that_opened_the_list_is_the_drop_down_named_by_its_label() -> None:
    eyes = HitTestTree(admission(popup_open=True))  # the list opened on the press, over the drop-down
    element = eyes.element_at(1700, 211, TITLE)
    assert element is not None and (element.name, element.role) == ("Service", "combo box")


def test_with_the_list_closed_the_window_answers_as_before() -> None:
    eyes = HitTestTree(admission(popup_open=False))
    combo, date = eyes.element_at(1700, 211, TITLE), eyes.element_at(1700, 250, TITLE)
    assert combo is not None and (combo.name, combo.role) == ("Service", "combo box")
    assert date is not None and date.role == "text"
