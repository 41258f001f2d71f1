"""The look a replay begins with asks whether the window's accessibility tree names the run's first target: the
agent answers by the rules of its step-time fallback (`by_tree`), with no input, and only when they allow it."""

from __future__ import annotations

from typing import Any

import pytest
from rpa_agent.core.journal import Journal
from rpa_agent.port import Element, NamedElements, Window

from .fakes import FakeDesktop, FakeServer, FakeWindows, handle_next, make_agent

WINDOW = (100, 80, 800, 600)
BUTTON = (400, 300, 80, 20)


def question(**changes: Any) -> dict[str, Any]:
    """The server's question about a first step clicking the button 'Dossier' of the window 'MédiDossier'."""
    spec = {"element": {"name": "Dossier", "role": "Button"}, "window_title": "MédiDossier"}
    asked: dict[str, Any] = {
        "action_type": "click_anchor",
        "irreversible": False,
        "target": {"label": "Dossier", "window_title": "MédiDossier", "spec": spec},
    }
    return asked | changes


class TreeWindows(FakeWindows):
    """A window in front whose tree shows `elements` (name, role, box); the backend answers None for none or
    more than one, or when the window in front is not the one named (as the X11 and Windows backends do)."""

    def __init__(self, *elements: tuple[str, str, tuple[int, int, int, int]], front: str = "MédiDossier") -> None:
        super().__init__()
        self.open = [Window(1, front, 10, "chromium", WINDOW), Window(2, "Imagerie", 11, "chromium", None)]
        self.elements = list(elements)
        self.asked: list[tuple[str, str, str]] = []

    def element_named(self, name: str, role: str, window_title: str) -> Element | None:
        self.asked.append((name, role, window_title))
        front = self.foreground()
        if front is None or front.title != window_title:
            return None
        found = [Element(n, r, box) for n, r, box in self.elements if (n, r) == (name, role)]
        return found[0] if len(found) == 1 else None

    def element_at(self, x: int, y: int) -> Element | None:
        """The hit test: the element whose box holds the point (the last one: drawn over the others)."""
        held = [Element(n, r, (bx, by, bw, bh)) for n, r, (bx, by, bw, bh) in self.elements
                if bx <= x < bx + bw and by <= y < by + bh]  # fmt: skip
        return Element(held[-1].name, held[-1].role) if held else None


def look(windows: FakeWindows, params: dict[str, Any]) -> tuple[dict[str, Any], FakeDesktop]:
    """The agent carries out a look with `params` on a desktop with `windows`: its result, and the desktop."""
    server, desktop = FakeServer(), FakeDesktop()
    desktop.windows = windows
    server.action(action_type="screenshot_evidence", target=None, params=params)
    handle_next(make_agent(server, desktop, Journal(":memory:")))
    result = server.results[0]
    assert (result["executed"], result["success"]) == (True, True) and desktop.input.sent == []  # no input
    return result, desktop


def test_the_first_target_the_tree_names_is_answered_with_its_centre_and_its_window() -> None:
    windows = TreeWindows(("Dossier", "Button", BUTTON))
    assert isinstance(windows, NamedElements)
    result, _ = look(windows, {"first_step_tree": question()})
    assert result["output"] == {
        "first_step_tree": {
            "found": True,
            "name": "Dossier",
            "role": "Button",
            "point": [440, 310],
            "box": list(BUTTON),
            "window_title": "MédiDossier",
            "window_box": list(WINDOW),
        }
    }
    assert windows.asked == [("Dossier", "Button", "MédiDossier")]


def answer(windows: FakeWindows, asked: dict[str, Any]) -> dict[str, Any]:
    result, _ = look(windows, {"first_step_tree": asked})
    found: dict[str, Any] = result["output"]["first_step_tree"]
    return found


def test_two_elements_of_that_name_are_answered_not_found() -> None:
    windows = TreeWindows(("Dossier", "Button", BUTTON), ("Dossier", "Button", (10, 10, 80, 20)))
    assert answer(windows, question()) == {
        "found": False,
        "name": "Dossier",
        "role": "Button",
        "reason": "no single showing element of that name and type, uncovered, in the step's window in front",
    }


def test_another_window_in_front_is_answered_not_found() -> None:
    windows = TreeWindows(("Dossier", "Button", BUTTON), front="Visionneuse PACS")
    assert answer(windows, question())["found"] is False


@pytest.mark.parametrize(
    "asked",
    [
        pytest.param(question(irreversible=True), id="irreversible"),
        pytest.param(
            question(target={**question()["target"], "spec": {**question()["target"]["spec"], "identity": "DUPONT"}}),
            id="record-selecting",
        ),
        pytest.param(question(action_type="key_combo"), id="no-point-to-act-at"),
        pytest.param(question(target={**question()["target"], "label": "Dossiers"}), id="name-is-not-the-label"),
        pytest.param(
            question(target={**question()["target"], "spec": {"element": {"name": "Dossier", "role": "Button"}}}),
            id="no-window-recorded",
        ),
    ],
)
def test_a_step_the_fallback_never_stands_in_for_is_answered_not_found_without_asking_the_tree(
    asked: dict[str, Any],
) -> None:
    windows = TreeWindows(("Dossier", "Button", BUTTON))
    found = answer(windows, asked)
    assert found["found"] is False and "never stands in" in found["reason"]
    assert windows.asked == []


def test_a_look_that_asks_nothing_answers_nothing() -> None:
    result, _ = look(TreeWindows(("Dossier", "Button", BUTTON)), {})
    assert "output" not in result


def test_a_backend_without_a_tree_answers_nothing() -> None:
    result, _ = look(FakeWindows(), {"first_step_tree": question()})
    assert "output" not in result  # the server then decides by OCR alone, as before


def test_a_question_that_breaks_the_wire_is_not_answered() -> None:
    windows = TreeWindows(("Dossier", "Button", BUTTON))
    result, _ = look(windows, {"first_step_tree": {"action_type": "click_anchor", "target": {"lab": "Dossier"}}})
    assert "output" not in result and windows.asked == []
