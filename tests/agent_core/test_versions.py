"""An agent of protocol N works with a server of protocol N and N-1; the protocol header decides."""

from __future__ import annotations

from rpa_agent.core.journal import Journal
from rpa_agent.core.wire import PROTOCOL_HEADER, PROTOCOL_VERSION
from rpa_agent.port import Window

from .fakes import FakeDesktop, FakeHttp, FakeServer, FakeWindows, handle_next, make_agent


class StackedWindows(FakeWindows):
    def stacked(self) -> list[Window]:
        return [Window(1, "Dossier patient", 10, "chromium", (0, 0, 800, 600))]


def test_every_request_says_the_protocol_the_agent_speaks() -> None:
    agent = make_agent(FakeServer(), FakeDesktop(), Journal(":memory:"))
    assert isinstance(agent.http, FakeHttp) and agent.http.headers[PROTOCOL_HEADER] == str(PROTOCOL_VERSION)


def test_with_a_server_of_the_same_protocol_receipt_and_start_are_acked() -> None:
    server, desktop = FakeServer(protocol=PROTOCOL_VERSION), FakeDesktop()
    server.action()
    handle_next(make_agent(server, desktop, Journal(":memory:")))
    assert server.kinds() == ["receipt", "start", "result"] and len(desktop.input.sent) == 1


def test_with_a_server_one_protocol_older_the_agent_sends_only_what_it_knows() -> None:
    server, desktop = FakeServer(protocol=PROTOCOL_VERSION - 1), FakeDesktop()
    server.action()
    handle_next(make_agent(server, desktop, Journal(":memory:")))
    assert server.kinds() == ["result"] and len(desktop.input.sent) == 1
    assert server.results[0]["executed"] is True


def test_a_server_speaking_a_newer_protocol_gets_nothing_executed() -> None:
    server, desktop = FakeServer(protocol=PROTOCOL_VERSION + 1), FakeDesktop()
    server.action()
    lines: list[str] = []
    handle_next(make_agent(server, desktop, Journal(":memory:"), lines))
    assert desktop.input.sent == [] and server.results[0]["error"].startswith("PROTOCOL")
    assert any("update the agent" in line for line in lines)


def test_a_server_of_the_previous_release_is_asked_without_the_windows_it_does_not_know() -> None:
    server, desktop = FakeServer(knows_windows=False), FakeDesktop()
    desktop.windows = StackedWindows()
    server.resolve = {"resolved": True, "x": 33, "y": 44, "method": "ocr"}
    server.action(action_id="a1", target={"label": "Imagerie"})
    server.action(action_id="a2", target={"label": "Imagerie"})
    agent = make_agent(server, desktop, Journal(":memory:"))
    handle_next(agent)
    handle_next(agent)
    asked = [body for kind, body in server.sent if kind == "resolve_target"]
    assert ["windows" in body for body in asked] == [True, False, False]  # refused once, then never sent
    assert desktop.input.sent == [("click", 33, 44, "left", 1)] * 2


def test_an_answer_field_of_a_newer_server_is_ignored_and_the_known_ones_kept() -> None:
    server, desktop = FakeServer(), FakeDesktop()
    server.resolve = {"resolved": True, "x": 33, "y": 44, "method": "ocr", "anchor_seen": {"label": "Nom"}}
    server.action(action_id="a1", target={"label": "Imagerie"})
    handle_next(make_agent(server, desktop, Journal(":memory:")))
    assert desktop.input.sent == [("click", 33, 44, "left", 1)]
    assert server.results[0]["executed"] is True


def test_a_known_answer_field_that_breaks_its_schema_is_still_refused() -> None:
    server, desktop = FakeServer(), FakeDesktop()
    server.resolve = {"resolved": True, "x": "33", "y": 44, "method": "ocr", "anchor_seen": 1}
    server.action(action_id="a1", target={"label": "Imagerie"})
    handle_next(make_agent(server, desktop, Journal(":memory:")))
    assert desktop.input.sent == []
    assert "wire contract" in str(server.results[0]["error"]), server.results[0]
