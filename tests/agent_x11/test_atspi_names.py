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
