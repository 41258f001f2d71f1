"""Keys go only to the step's window: with another window in front (a dialog that came late, another program
brought forward) the agent types nothing and the replay pauses."""

from __future__ import annotations

import pytest
from rpa_agent.core.journal import Journal
from rpa_agent.port import Window

from .fakes import FakeDesktop, FakeServer, handle_next, make_agent

FIELD = {"x": 30, "y": 20, "window_title": "Admission — {{*}}"}


@pytest.fixture
def journal() -> Journal:
    return Journal(":memory:")


def desktop_with(front: str | None) -> FakeDesktop:
    desktop = FakeDesktop()
    desktop.windows.open = [Window(1, "Admission — FAURE Céline", 10, "python3")]
    if front is not None:
        desktop.windows.open.insert(0, Window(2, front, 10, "python3"))
    desktop.windows.front = 2 if front is not None else 1
    return desktop


def test_keys_for_the_step_s_window_are_not_sent_to_a_dialog_in_front(journal: Journal) -> None:
    server, desktop = FakeServer(), desktop_with("Confirmer l'enregistrement")
    server.action(action_type="key_press", target={"window_title": "Admission — {{*}}"}, params={"keys": "enter"})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == []  # Enter would have answered the dialog
    result = server.results[0]
    assert result["executed"] is False and result["error"].startswith("WRONG_WINDOW")
    assert "Confirmer l'enregistrement" in result["error"]


def test_text_is_not_typed_into_a_dialog_that_kept_the_keyboard_after_the_field_s_click(journal: Journal) -> None:
    server, desktop = FakeServer(), desktop_with("Enregistrer sous")
    server.action(action_type="type_text", target=FIELD, params={"text": "Douleur thoracique"})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("click", 30, 20, "left", 1)]  # clicked, then nothing typed
    result = server.results[0]
    assert (result["executed"], result["success"]) == (True, False)
    assert result["error"].startswith("WRONG_WINDOW")


def test_text_is_typed_when_the_step_s_window_is_in_front(journal: Journal) -> None:
    server, desktop = FakeServer(), desktop_with(None)
    server.action(action_type="type_text", target=FIELD, params={"text": "Douleur thoracique"})
    handle_next(make_agent(server, desktop, journal))
    assert ("type", "Douleur thoracique") in desktop.input.sent
    assert server.results[0]["success"] is True


def test_keys_go_as_before_when_the_step_names_no_window_or_the_backend_names_none(journal: Journal) -> None:
    server, desktop = FakeServer(), desktop_with("Confirmer")
    server.action(action_type="key_press", target=None, params={"keys": "ctrl+s"})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("combo", "ctrl+s")]
    server, desktop = FakeServer(), desktop_with(None)
    desktop.windows.front = 0  # no window the backend can name in front
    server.action(
        "a2", "t2", action_type="key_press", target={"window_title": "Admission — {{*}}"}, params={"keys": "tab"}
    )
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("combo", "tab")]
