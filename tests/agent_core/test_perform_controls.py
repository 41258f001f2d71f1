"""The performer sets controls, scrolls a row into view and tells the server which windows are shown."""

from __future__ import annotations

from typing import Any

import pytest
from rpa_agent.core.journal import Journal
from rpa_agent.port import Element, Stacking, Window

from .fakes import FakeDesktop, FakeServer, FakeWindows, handle_next, make_agent

COMBO, OPTION, BOX = (40, 30), (40, 38), (12, 40)
FOUND: dict[str, Any] = {"resolved": True, "method": "hybrid_text_direct"}
NOT_FOUND: dict[str, Any] = {"resolved": False, "method": "not_found", "reason": "not on this screen"}


class Server(FakeServer):
    """A replay server whose resolve_target answers come from a list, in order."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        super().__init__()
        self.answers = list(answers)

    def __call__(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if path.endswith("/resolve_target"):
            self.sent.append(("resolve_target", body))
            return 200, self.answers.pop(0) if self.answers else NOT_FOUND
        return super().__call__(method, path, body)

    def resolves(self) -> list[dict[str, Any]]:
        return [body for kind, body in self.sent if kind == "resolve_target"]


class StackedWindows(FakeWindows):
    """Windows that know their order, and a check box at BOX whose accessible state a click flips."""

    def __init__(self, checked: bool | None) -> None:
        super().__init__()
        self.open = [
            Window(2, "Imagerie", 11, "chromium", (100, 80, 640, 480)),
            Window(1, "Dossier patient", 10, "chromium", None),
        ]
        self.checked = checked
        self.chosen: str | None = None  # the option the drop-down at COMBO names once one is clicked

    def stacked(self) -> list[Window]:
        return list(self.open)

    def element_at(self, x: int, y: int) -> Element | None:
        if (x, y) == COMBO and self.chosen:
            return Element("Conditionnement", "ComboBox", value=self.chosen)
        return Element("Urgent", "CheckBox", checked=self.checked) if (x, y) == BOX else None


class ControlDesktop(FakeDesktop):
    def __init__(self, checked: bool | None = False) -> None:
        super().__init__()
        self.windows = StackedWindows(checked)
        clicked = self.input.click

        def click(x: int, y: int, **kwargs: Any) -> None:
            clicked(x, y, **kwargs)
            if (x, y) == BOX and self.windows.checked is not None:
                self.windows.checked = not self.windows.checked
            if (x, y) == OPTION:
                self.windows.chosen = "Boîte"

        self.input.click = click  # type: ignore[method-assign]  # the box flips as a click lands on it


@pytest.fixture
def journal() -> Journal:
    return Journal(":memory:")


def test_a_resolve_request_carries_the_windows_shown_top_most_first_with_their_boxes(journal: Journal) -> None:
    server, desktop = Server(FOUND | {"x": 33, "y": 44}), ControlDesktop()
    assert isinstance(desktop.windows, Stacking)
    server.action(target={"label": "Imagerie"})
    handle_next(make_agent(server, desktop, journal))
    assert server.resolves()[0]["windows"] == [
        {"title": "Imagerie", "process": "chromium", "box": [100, 80, 640, 480]},
        {"title": "Dossier patient", "process": "chromium", "box": None},
    ]
    assert server.results[0]["success"] is True


def test_without_a_window_order_the_resolve_request_carries_no_windows(journal: Journal) -> None:
    server, desktop = Server(FOUND | {"x": 33, "y": 44}), FakeDesktop()
    assert not isinstance(desktop.windows, Stacking)
    server.action(target={"label": "Imagerie"})
    handle_next(make_agent(server, desktop, journal))
    assert "windows" not in server.resolves()[0]


def test_an_option_is_chosen_in_the_list_its_drop_down_opened(journal: Journal) -> None:
    server = Server(FOUND | dict(zip("xy", COMBO, strict=True)), FOUND | dict(zip("xy", OPTION, strict=True)))
    desktop = ControlDesktop()
    server.action(action_type="select_option", target={"label": "Conditionnement"}, params={"option": "Boîte"})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("click", *COMBO, "left", 1), ("click", *OPTION, "left", 1)]
    option = server.resolves()[1]["target_spec"]
    assert option["by_text"] == "Boîte" and (option["rel_x"], option["rel_y"]) == (40 / 64, 30 / 48)
    result = server.results[0]
    assert (result["executed"], result["success"], result["actual_position"]) == (True, True, list(COMBO))
    assert result["output"] == {"option": "Boîte"}  # the tree names it after the settle: the server compares it


def test_an_option_not_in_the_list_closes_it_and_the_step_fails_as_executed(journal: Journal) -> None:
    server, desktop = Server(FOUND | dict(zip("xy", COMBO, strict=True)), NOT_FOUND), ControlDesktop()
    server.action(action_type="select_option", target={"label": "Conditionnement"}, params={"option": "Ampoule"})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("click", *COMBO, "left", 1), ("combo", "escape")]
    result = server.results[0]
    assert result["executed"] is True and result["success"] is False
    assert result["error"].startswith("target_not_resolved")


def test_an_unticked_box_is_clicked_and_the_state_read_after_is_the_output(journal: Journal) -> None:
    server, desktop = Server(FOUND | dict(zip("xy", BOX, strict=True))), ControlDesktop(checked=False)
    server.action(action_type="set_checked", target={"label": "Urgent"}, params={"checked": "true"})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("click", *BOX, "left", 1)]
    assert server.results[0]["output"] == {"checked": True} and server.results[0]["success"] is True


def test_a_box_already_in_the_wanted_state_is_reported_without_a_click(journal: Journal) -> None:
    server, desktop = Server(FOUND | dict(zip("xy", BOX, strict=True))), ControlDesktop(checked=True)
    server.action(action_type="set_checked", target={"label": "Urgent"}, params={"checked": True})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == []
    result = server.results[0]
    assert (result["executed"], result["success"], result["output"]) == (True, True, {"checked": True})


def test_a_box_whose_state_nobody_reads_is_not_clicked_and_not_executed(journal: Journal) -> None:
    server = Server(FOUND | dict(zip("xy", BOX, strict=True)), FOUND | {"x": 1, "y": 1, "checked": None})
    desktop = ControlDesktop(checked=None)
    server.action(action_type="set_checked", target={"label": "Urgent"}, params={"checked": True})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == []
    state = server.resolves()[1]["target_spec"]  # read around the box, as the option around its drop-down
    assert state == {"label": "Urgent", "by_text": "Urgent", "rel_x": 12 / 64, "rel_y": 40 / 48, "check_state": True}
    result = server.results[0]
    assert result["executed"] is False and result["error"].startswith("target_not_resolved")


def test_an_irreversible_choice_is_never_made_at_its_recorded_point_alone(journal: Journal) -> None:
    server, desktop = Server(), ControlDesktop()
    server.action(
        action_type="set_checked", irreversible=True, target={"rel_x": 0.2, "rel_y": 0.8}, params={"checked": True}
    )
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [] and server.results[0]["error"].startswith("target_not_resolved")


def test_a_row_out_of_view_is_scrolled_into_view_and_the_result_says_so(journal: Journal) -> None:
    server, desktop = Server(NOT_FOUND, FOUND | {"x": 30, "y": 20}), ControlDesktop()
    row = {"label": "MOREL Jeanne", "rel_x": 0.5, "rel_y": 0.5, "spec": {"element": {"role": "DataItem"}}}
    server.action(action_type="click", target=row)
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("scroll", 32, 24, "down", 3), ("click", 30, 20, "left", 1)]
    result = server.results[0]
    assert result["success"] is True and "scrolled 3 notch(es)" in result["warning"]


def test_a_button_not_found_is_never_scrolled_for(journal: Journal) -> None:
    server, desktop = Server(NOT_FOUND), ControlDesktop()
    server.action(action_type="click", target={"label": "Valider", "rel_x": 0.5, "rel_y": 0.5})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [] and server.results[0]["error"].startswith("target_not_resolved")


class MovingPage(Server):
    """The page moves right after the first resolution (a record restoring its scroll once drawn)."""

    def __init__(self, desktop: ControlDesktop, *answers: dict[str, Any]) -> None:
        super().__init__(*answers)
        self.desktop = desktop

    def __call__(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        answer = super().__call__(method, path, body)
        if path.endswith("/resolve_target") and len(self.resolves()) == 1:
            self.desktop.screen.shown += 1  # drawn elsewhere now
        return answer


def test_a_target_the_page_moved_away_from_after_it_was_found_is_found_again_before_the_click(
    journal: Journal,
) -> None:
    desktop = ControlDesktop()
    server = MovingPage(desktop, FOUND | {"x": 30, "y": 20}, FOUND | {"x": 30, "y": 8})
    server.action(action_type="click", target={"label": "Observations", "rel_x": 0.5, "rel_y": 0.5})
    handle_next(make_agent(server, desktop, journal))
    assert len(server.resolves()) == 2 and desktop.input.sent == [("click", 30, 8, "left", 1)]
    assert "the screen moved" in server.results[0]["warning"]


def test_a_target_not_found_again_once_the_page_moved_is_never_clicked(journal: Journal) -> None:
    desktop = ControlDesktop()
    server = MovingPage(desktop, FOUND | {"x": 30, "y": 20}, NOT_FOUND)
    server.action(action_type="click", target={"label": "Observations", "rel_x": 0.5, "rel_y": 0.5})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [] and "(the screen moved)" in server.results[0]["error"]


OCCLUDED: dict[str, Any] = {
    "resolved": False, "method": "window_occluded", "reason": "WINDOW_OCCLUDED: covered by the window 'Imagerie'",
}  # fmt: skip


def test_a_target_another_window_covers_is_clicked_once_the_step_s_own_window_is_raised(journal: Journal) -> None:
    server, desktop = Server(OCCLUDED, FOUND | {"x": 30, "y": 20}), ControlDesktop()
    desktop.windows.front = 2  # the viewer in front, over the record
    target = {"label": "Valider", "rel_x": 0.5, "rel_y": 0.5, "window_title": "Dossier patient"}
    server.action(action_type="click", target=target)
    handle_next(make_agent(server, desktop, journal))
    assert desktop.windows.front == 1 and desktop.input.sent == [("click", 30, 20, "left", 1)]
    assert len(server.resolves()) == 2
    warning = server.results[0]["warning"]
    assert "raised the step's window 'Dossier patient' over 'Imagerie'" in warning  # declared, kept in the evidence


def test_a_target_covered_while_its_own_window_is_in_front_is_never_clicked(journal: Journal) -> None:
    server, desktop = Server(OCCLUDED, FOUND | {"x": 30, "y": 20}), ControlDesktop()
    target = {"label": "Valider", "rel_x": 0.5, "rel_y": 0.5, "window_title": "Dossier patient"}
    server.action(action_type="click", target=target)  # its own window in front: a window kept on top covers it
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [] and "window_occluded" in server.results[0]["error"]
    assert len(server.resolves()) == 1
