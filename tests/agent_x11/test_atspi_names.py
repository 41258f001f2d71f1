"""Fields and drop-downs named by a separate label widget (labelled-by), check boxes with their state.

The accessibility bus is replaced by a small tree answering the same D-Bus calls (no desktop needed).
"""

from __future__ import annotations

import threading
from typing import Any

from rpa_agent.core.recorder import event_element
from rpa_agent.x11.atspi import RELATION_LABELLED_BY, STATE_CHECKED, STATE_FOCUSED, Accessibility

from rpa_mcp.shadow.elements import checked_at_press

Ref = tuple[str, str]


class TreeAccessibility(Accessibility):
    """Accessibility over an in-memory tree: {path: {name, role, extents, states, relations}}."""

    def __init__(self, nodes: dict[str, dict[str, Any]]) -> None:
        self._lock = threading.Lock()
        self._conn = object()  # type: ignore[assignment]  # never used: the calls below answer
        self.nodes = nodes

    def _node(self, ref: Ref) -> dict[str, Any]:
        return self.nodes[ref[1]]

    def _prop(self, ref: Ref, iface: str, name: str) -> Any:
        return self._node(ref).get(name.lower(), "")

    def _call(self, ref: Ref, iface: str, method: str, sig: str | None = None, body: tuple[Any, ...] = ()) -> Any:
        node = self._node(ref)
        if method == "GetRoleName":
            return (node["role"],)
        if method == "GetExtents":
            return (node.get("extents", (0, 0, 0, 0)),)
        if method == "GetState":
            bits = sum(1 << s for s in node.get("states", ()))
            return ([bits & 0xFFFFFFFF, bits >> 32],)
        if method == "GetRelationSet":
            return ([(kind, [(":1.1", path) for path in paths]) for kind, paths in node.get("relations", [])],)
        raise LookupError(method)


def describe(nodes: dict[str, dict[str, Any]], path: str) -> Any:
    return TreeAccessibility(nodes)._describe((":1.1", path))


def test_an_entry_named_only_by_its_label_widget_takes_the_label() -> None:
    nodes = {
        "/label": {"name": "Date de prélèvement", "role": "label"},
        "/entry": {"name": "", "role": "entry", "relations": [(RELATION_LABELLED_BY, ["/label"])]},
    }
    assert describe(nodes, "/entry").name == "Date de prélèvement"


def test_the_label_widget_wins_over_a_placeholder_exposed_as_the_name() -> None:
    nodes = {
        "/label": {"name": "Date de prélèvement", "role": "label"},
        "/entry": {"name": "jj/mm/aaaa", "role": "entry", "relations": [(RELATION_LABELLED_BY, ["/label"])]},
    }
    assert describe(nodes, "/entry").name == "Date de prélèvement"


def test_a_combo_box_is_named_by_its_label_not_by_the_option_it_shows() -> None:
    nodes = {
        "/label": {"name": "Service", "role": "label"},
        "/combo": {"name": "Cardiologie", "role": "combo box", "relations": [(RELATION_LABELLED_BY, ["/label"])]},
    }
    element = describe(nodes, "/combo")
    assert element.name == "Service" and event_element(element.to_port())["role"] == "ComboBox"


def test_other_relations_and_buttons_keep_their_own_name() -> None:
    nodes = {
        "/label": {"name": "Ignored", "role": "label"},
        "/entry": {"name": "Nom", "role": "entry", "relations": [(1, ["/label"])]},  # label-for: not ours
        "/button": {"name": "Valider", "role": "push button", "relations": [(RELATION_LABELLED_BY, ["/label"])]},
    }
    assert describe(nodes, "/entry").name == "Nom"
    assert describe(nodes, "/button").name == "Valider"


def test_a_check_box_reports_its_state_as_the_server_reads_it() -> None:
    nodes = {
        "/on": {"name": "Urgent", "role": "check box", "states": [STATE_CHECKED, STATE_FOCUSED]},
        "/off": {"name": "A jeun", "role": "check box", "states": []},
        "/button": {"name": "Valider", "role": "push button", "states": [STATE_CHECKED]},
    }
    on, off, button = (describe(nodes, path).to_port() for path in ("/on", "/off", "/button"))
    assert (on.checked, off.checked, button.checked) == (True, False, None)  # what set_checked reads at replay
    sent = [event_element(element) for element in (on, off, button)]  # what the recorder sends
    assert sent[0]["states"] == ["checked"] and sent[1]["states"] == [] and "states" not in sent[2]
    assert [checked_at_press(event) for event in sent] == [True, False, None]


def test_a_radio_button_is_named_as_one_so_that_a_selected_one_is_never_clicked_to_be_cleared() -> None:
    from rpa_agent.core.choices import ROLE_KINDS

    nodes = {
        "/urgent": {"name": "Urgent", "role": "radio button", "states": [STATE_CHECKED]},
        "/fasting": {"name": "A jeun", "role": "check box", "states": []},
    }
    urgent, fasting = (describe(nodes, path).to_port() for path in ("/urgent", "/fasting"))
    assert (ROLE_KINDS.get(urgent.role), urgent.checked) == ("radio", True)
    assert (ROLE_KINDS.get(fasting.role), fasting.checked) == ("box", False)


def test_a_field_in_a_group_box_is_named_by_its_label_not_by_the_box_around_it() -> None:
    # Qt: a field in a QGroupBox is labelled by its buddy label and by the group box (a panel); the join
    # of both ("Nom du patient : Recherche patient") is on no screen, the label is
    nodes = {
        "/group": {"name": "Recherche patient", "role": "panel", "extents": (9, 71, 1138, 981)},
        "/label": {"name": "Nom du patient :", "role": "label", "extents": (20, 96, 93, 24)},
        "/entry": {"name": "Nom du patient :", "role": "text", "extents": (119, 98, 933, 20),
                   "relations": [(RELATION_LABELLED_BY, ["/label"]), (RELATION_LABELLED_BY, ["/group"])]},
    }  # fmt: skip
    assert describe(nodes, "/entry").name == "Nom du patient :"


def test_a_labelling_element_holding_the_field_is_its_group_whatever_its_role() -> None:
    nodes = {
        "/box": {"name": "Rendez-vous", "role": "tool bar", "extents": (1153, 71, 758, 981)},
        "/label": {"name": "Examen :", "role": "label", "extents": (1164, 142, 52, 20)},
        "/combo": {"name": "<sélectionner>", "role": "combo box", "extents": (1278, 142, 622, 20),
                   "relations": [(RELATION_LABELLED_BY, ["/box", "/label"])]},
    }  # fmt: skip
    assert describe(nodes, "/combo").name == "Examen :"


def test_without_a_label_widget_every_labelling_element_still_names_the_field() -> None:
    nodes = {  # no label among them: the group's title is the only name there is
        "/group": {"name": "Adresse", "role": "panel", "extents": (0, 0, 500, 300)},
        "/entry": {"name": "", "role": "entry", "extents": (10, 10, 200, 20),
                   "relations": [(RELATION_LABELLED_BY, ["/group"])]},
        "/l1": {"name": "Rue", "role": "label", "extents": (10, 40, 50, 20)},
        "/l2": {"name": "numéro", "role": "label", "extents": (70, 40, 50, 20)},
        "/street": {"name": "", "role": "entry", "extents": (130, 40, 200, 20),
                    "relations": [(RELATION_LABELLED_BY, ["/l1", "/l2"])]},
    }  # fmt: skip
    assert describe(nodes, "/entry").name == "Adresse"
    assert describe(nodes, "/street").name == "Rue numéro"  # two label widgets: both, as before
