"""A drop-down whose open list is its own child, not a pop-up (Qt's QComboBox): the option clicked is read
from the tree, exact, and found again at replay; a closed list's items, left where they were, are not.

The toolkit's hit test does not enter the list: under an option it gives the field below the list. The
accessibility bus is the in-memory tree of test_atspi_popups (first child whose extents hold the point).
"""

from __future__ import annotations

from typing import Any

from rpa_agent.x11.atspi import REGISTRY, RELATION_LABELLED_BY, STATE_SHOWING

from tests.agent_x11.test_atspi_popups import HitTestTree

TITLE = "Consultations — Accueil"
SHOWING = [STATE_SHOWING]
COMBO = (1278, 142, 622, 20)
OPTION = (1300, 184)  # the second option's row in the open list, over the date field below the drop-down


def desk(list_open: bool) -> dict[str, dict[str, Any]]:
    """A group box holding a labelled drop-down above a date field; the list opens below the drop-down, as
    the drop-down's child; closed, the list has no extents and its items keep their last boxes."""
    names = ["<choisir>", "Cardiologie", "Pneumologie", "Neurologie"]
    items = {
        f"/item{n}": {"name": name, "role": "list item", "extents": (1280, 163 + 14 * n, 618, 14),
                      "states": SHOWING, "parent": "/list"}
        for n, name in enumerate(names)
    }  # fmt: skip
    return {
        REGISTRY[1]: {"role": "desktop frame", "children": ["/app"]},
        "/app": {"role": "application", "children": ["/frame"]},
        "/frame": {"name": TITLE, "role": "frame", "states": SHOWING, "extents": (0, 19, 1920, 1061),
                   "children": ["/group"]},
        "/group": {"name": "Consultation", "role": "panel", "extents": (1153, 71, 758, 981), "parent": "/frame",
                   "children": ["/label", "/combo", "/datelabel", "/date"]},
        "/label": {"name": "Service :", "role": "label", "extents": (1164, 142, 52, 20), "parent": "/group"},
        "/combo": {"name": "<choisir>", "role": "combo box", "extents": COMBO, "parent": "/group",
                   "relations": [(RELATION_LABELLED_BY, ["/label", "/group"])], "children": ["/list"]},
        "/list": {"role": "list", "extents": (1280, 163, 618, 56) if list_open else (0, 0, 0, 0),
                  "states": SHOWING, "parent": "/combo", "children": list(items)},
        "/datelabel": {"name": "Date :", "role": "label", "extents": (1164, 168, 78, 20), "parent": "/group"},
        "/date": {"name": "", "role": "text", "extents": (1278, 168, 622, 20), "parent": "/group",
                  "relations": [(RELATION_LABELLED_BY, ["/datelabel", "/group"])]},
        **items,
    }  # fmt: skip


def test_the_option_clicked_after_opening_the_drop_down_is_read_from_its_list_item() -> None:
    eyes = HitTestTree(desk(list_open=False))
    opener = eyes.element_at(COMBO[0] + 20, COMBO[1] + 10, TITLE)
    assert opener is not None and (opener.name, opener.role) == ("Service :", "combo box")
    eyes.nodes = desk(list_open=True)  # the list opened on that click
    option = eyes.element_at(*OPTION, TITLE)
    assert option is not None and (option.name, option.role) == ("Cardiologie", "list item")


def test_an_open_list_inside_a_drop_down_is_found_beside_the_field_under_it_with_no_click_before() -> None:
    eyes = HitTestTree(desk(list_open=True))  # opened from the keyboard: no click on the drop-down was seen
    option = eyes.element_at(OPTION[0], OPTION[1] + 14, TITLE)
    assert option is not None and (option.name, option.role) == ("Pneumologie", "list item")


def test_a_closed_list_s_items_left_in_place_are_not_under_the_point() -> None:
    eyes = HitTestTree(desk(list_open=False))
    eyes.element_at(COMBO[0] + 20, COMBO[1] + 10, TITLE)  # the drop-down clicked, its list closed again
    under = eyes.element_at(*OPTION, TITLE)
    assert under is not None and (under.name, under.role) == ("Date :", "text")


def test_at_replay_the_option_is_found_in_the_open_list_inside_the_drop_down_only_while_open() -> None:
    shown = HitTestTree(desk(list_open=True)).option_shown("Cardiologie")
    assert shown is not None and shown.bbox == (1280, 177, 618, 14)
    assert HitTestTree(desk(list_open=False)).option_shown("Cardiologie") is None
    assert HitTestTree(desk(list_open=True)).option_shown("Dermatologie") is None


class CountedCalls(HitTestTree):
    """Counts the bus calls, as each one costs a round trip to an application."""

    calls = 0

    def _call(self, ref: Any, iface: str, method: str, sig: str | None = None, body: tuple[Any, ...] = ()) -> Any:
        self.calls += 1
        return super()._call(ref, iface, method, sig, body)


def with_a_page(nodes: dict[str, dict[str, Any]], size: int = 400) -> dict[str, dict[str, Any]]:
    """Another application's window holding a long page (a browser's): walking it costs a call a node."""
    nodes[REGISTRY[1]]["children"] = ["/app", "/browser"]
    cells = [f"/cell{n}" for n in range(size)]
    nodes["/browser"] = {"role": "application", "children": ["/page"]}
    nodes["/page"] = {"name": "Intranet", "role": "frame", "states": SHOWING, "extents": (0, 0, 900, 1000),
                      "children": cells}  # fmt: skip
    nodes.update({c: {"name": "", "role": "section", "extents": (0, 0, 10, 10), "parent": "/page"} for c in cells})
    return nodes


def test_at_replay_the_list_is_looked_for_in_the_drop_down_that_opened_it_not_in_every_window() -> None:
    opener = (COMBO[0] + 20, COMBO[1] + 10)
    eyes = CountedCalls(with_a_page(desk(list_open=True)))
    shown = eyes.option_shown("Cardiologie", opener, TITLE)
    assert shown is not None and shown.bbox == (1280, 177, 618, 14)
    assert eyes.calls < 60, eyes.calls  # the drop-down's own list, not the page's four hundred nodes
    walked = CountedCalls(with_a_page(desk(list_open=True)))
    assert walked.option_shown("Cardiologie") is not None and walked.calls > 400  # no point: every window
    assert CountedCalls(desk(list_open=False)).option_shown("Cardiologie", opener, TITLE) is None  # closed
    date = (COMBO[0] + 20, 176)  # a field, not a drop-down: nothing is walked, the screen is read instead
    assert CountedCalls(desk(list_open=True)).option_shown("Cardiologie", date, TITLE) is None


def test_a_drop_down_named_by_its_label_still_says_the_option_it_shows() -> None:
    nodes = desk(list_open=False)
    nodes["/combo"]["name"] = "Cardiologie"  # chosen: the drop-down's own name is the option it shows
    combo = HitTestTree(nodes).element_at(COMBO[0] + 20, COMBO[1] + 10, TITLE)
    assert combo is not None and (combo.name, combo.value) == ("Service :", "Cardiologie")
    assert combo.to_port().value == "Cardiologie"


class GoneApps(HitTestTree):
    """Paths under /gone belong to an application that closed: the bus answers them with an error."""

    def _call(self, ref: Any, iface: str, method: str, sig: str | None = None, body: tuple[Any, ...] = ()) -> Any:
        if ref[1].startswith("/gone"):
            raise LookupError(f"{method}: the name was not provided by any .service files")
        return super()._call(ref, iface, method, sig, body)


def test_a_drop_down_remembered_from_a_closed_application_never_spoils_the_element_under_the_point() -> None:
    eyes = GoneApps(desk(list_open=False))
    eyes._combo = (":1.5", "/gone/combo")  # the last look found a drop-down; its application closed since
    under = eyes.element_at(*OPTION, TITLE)
    assert under is not None and (under.name, under.role) == ("Date :", "text")
    eyes = GoneApps(desk(list_open=True))
    eyes._combo = (":1.5", "/gone/combo")
    option = eyes.element_at(*OPTION, TITLE)  # the open list beside the field is still found
    assert option is not None and (option.name, option.role) == ("Cardiologie", "list item")


def radios(twice: bool = False) -> dict[str, dict[str, Any]]:
    nodes = desk(list_open=False)
    nodes["/group"]["children"].append("/priority")
    nodes["/date"]["states"] = SHOWING
    nodes["/priority"] = {"role": "filler", "extents": (1278, 194, 622, 19), "parent": "/group",
                          "children": ["/planned", "/urgent", *(["/urgent2"] if twice else [])]}  # fmt: skip
    for path, name, x in (("/planned", "Programmé", 1278), ("/urgent", "Urgent", 1371), ("/urgent2", "Urgent", 1440)):
        nodes[path] = {"name": name, "role": "radio button", "extents": (x, 194, 60, 19), "states": SHOWING,
                       "parent": "/priority"}  # fmt: skip
    return nodes


def test_the_one_element_named_so_with_that_role_in_the_window_in_front_is_found() -> None:
    urgent = HitTestTree(radios()).only_element("Urgent", "RadioButton", TITLE)
    assert urgent is not None and urgent.bbox == (1371, 194, 60, 19)
    field = HitTestTree(radios()).only_element("Date :", "Edit", TITLE)  # a field, by its label
    assert field is not None and field.bbox == (1278, 168, 622, 20)
    assert HitTestTree(radios()).only_element("Urgent", "CheckBox", TITLE) is None  # another role
    assert HitTestTree(radios(twice=True)).only_element("Urgent", "RadioButton", TITLE) is None  # two: not said
    assert HitTestTree(radios()).only_element("Urgent", "RadioButton", "Une autre fenêtre") is None


def test_an_application_closed_but_still_listed_leaves_the_others_windows_readable() -> None:
    nodes = desk(list_open=True)
    nodes[REGISTRY[1]]["children"] = ["/gone/app", "/app"]  # the registry still lists a closed application
    eyes = GoneApps(nodes)
    assert eyes.option_shown("Cardiologie") is not None
    option = eyes.element_at(*OPTION, TITLE)
    assert option is not None and option.name == "Cardiologie"
