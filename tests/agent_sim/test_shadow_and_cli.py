from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from rpa_mcp.agent_sim import DemoRecorder, Journal, VirtualDesktop
from rpa_mcp.agent_sim.cli import EXIT_CRASHED, EXIT_REFUSED, main
from rpa_mcp.testing import FakeClock

from .fake_server import MACHINE, TOKEN, FakeReplayServer, Harness


@pytest.mark.anyio
async def test_demonstration_is_streamed_as_shadow_events(harness: Harness) -> None:
    recorder = DemoRecorder(harness.desktop, session_id="s-1", machine_id=MACHINE, clock=FakeClock())
    recorder.click_label("Imagerie")
    recorder.click(200, 24)  # back to "Dossier patient"
    recorder.click_label("Observations")
    recorder.click(800, 650)
    recorder.type("RAS")
    recorder.key("ctrl+s")
    statuses = await harness.agent().stream_demonstration(recorder.events)
    assert set(statuses) == {200}
    events = harness.server.events
    assert [e["type"] for e in events] == [
        *("focus", "click", "focus", "click", "focus", "click", "focus"),
        *("click", "type", "key"),
    ]
    clicks = [e for e in events if e["type"] == "click"]
    assert clicks[0]["element"]["name"] == "Imagerie" and clicks[0]["screenshot"]
    assert clicks[0]["window_title"].endswith("Dossier patient - Microsoft Edge")
    assert {e["session_id"] for e in events} == {"s-1"} and {e["machine_id"] for e in events} == {MACHINE}
    assert events[-1] == events[-1] | {"type": "key", "keys": "ctrl+s", "app": "msedge.exe"}
    assert harness.desktop.top_dialog is not None  # ctrl+s raised the save confirmation
    assert harness.desktop.agent_inputs() == []  # a person did it, not the agent


@pytest.fixture
def live_server() -> Iterator[tuple[FakeReplayServer, str]]:
    server = FakeReplayServer()
    config = uvicorn.Config(server.app(), host="127.0.0.1", port=0, log_level="warning", lifespan="off", ws="none")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started:
        if time.monotonic() > deadline:  # pragma: no cover - the server could not start
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = uv.servers[0].sockets[0].getsockname()[1]
    try:
        yield server, f"http://127.0.0.1:{port}"
    finally:
        uv.should_exit = True
        thread.join(timeout=10)


def test_cli_runs_the_agent_over_real_http_and_says_what_it_does(
    live_server: tuple[FakeReplayServer, str], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server, url = live_server
    caplog.set_level(logging.INFO, logger="rpa_mcp.agent_sim")
    action_id = server.enqueue(target={"label": "Imagerie", "x": 436, "y": 24})
    journal = tmp_path / "j.sqlite"
    token_file = tmp_path / "agent.token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    argv = ["--url", url, "--token-file", str(token_file), "--machine-id", MACHINE, "--journal", str(journal)]
    assert main([*argv, "--wait", "0", "--max-actions", "1"]) == 0
    assert server.kinds() == ["receipt", "start", "result"]
    assert "Imagerie" in server.results[action_id]["window_title"]
    said = [r.getMessage() for r in caplog.records if r.name.startswith("rpa_mcp.agent_sim")]
    assert said[0].startswith(f"connected to {url} as machine {MACHINE} (protocol v2): waiting for actions")
    for what in (
        "received step 1: click 'Imagerie'",
        "executed step 1: click 'Imagerie'",
        "reported a success of step 1",
    ):
        assert any(line.startswith(what) for line in said), f"{what!r} not said in {said}"


def test_cli_exits_on_a_simulated_crash_and_the_journal_remembers(
    live_server: tuple[FakeReplayServer, str], tmp_path: Path
) -> None:
    server, url = live_server
    server.enqueue(target={"label": "Imagerie", "x": 436, "y": 24})
    journal = tmp_path / "j.sqlite"
    argv = ["--url", url, "--token", TOKEN, "--machine-id", MACHINE, "--journal", str(journal), "--wait", "0"]
    assert main([*argv, "--v1", "--faults", "die_mid_action@1", "--max-actions", "1"]) == EXIT_CRASHED
    reopened = Journal(journal)
    try:
        assert [e.state for e in reopened.entries()] == ["STARTED"]
    finally:
        reopened.close()


def test_desktop_can_start_on_the_wrong_application_screen() -> None:
    desktop = VirtualDesktop.load("incident", start="pacs")
    assert desktop.process == "PacsViewer.exe"


def test_cli_stops_with_a_clear_status_when_the_token_is_refused(
    live_server: tuple[FakeReplayServer, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = live_server
    argv = ["--url", url, "--token", "wrong", "--machine-id", MACHINE, "--journal", str(tmp_path / "j.sqlite")]
    assert main([*argv, "--wait", "0"]) == EXIT_REFUSED
    assert "unauthenticated" in capsys.readouterr().err


def test_cli_plays_a_demonstration_as_a_live_session_then_serves_the_replay(
    live_server: tuple[FakeReplayServer, str], tmp_path: Path
) -> None:
    server, url = live_server
    server.enqueue(target={"label": "Observations", "x": 99, "y": 274})
    argv = ["--url", url, "--token", TOKEN, "--machine-id", MACHINE, "--journal", str(tmp_path / "j.sqlite")]
    assert main([*argv, "--play-demo", "observation", "--wait", "0", "--max-actions", "1"]) == 0
    events = server.events
    assert [e["type"] for e in events] == ["focus", "click", "focus", "click", "type", "key", "click"]
    assert len({e["session_id"] for e in events}) == 1 and {e["machine_id"] for e in events} == {MACHINE}
    assert [e.get("element", {}).get("name") for e in events if e["type"] == "click"] == [
        *("Observations", "Texte de l'observation", "Confirmer"),
    ]
    # the demonstration ended where it began, so the replay's first click found its target
    assert server.kinds() == ["receipt", "start", "result"]
    assert next(iter(server.results.values()))["success"] is True


def test_cli_refuses_an_unknown_demonstration_in_one_line(
    live_server: tuple[FakeReplayServer, str], capsys: pytest.CaptureFixture[str]
) -> None:
    server, url = live_server
    argv = ["--url", url, "--token", TOKEN, "--machine-id", MACHINE, "--play-demo", "nope"]
    assert main(argv) == EXIT_REFUSED
    assert "invalid-input" in capsys.readouterr().err and server.events == []
