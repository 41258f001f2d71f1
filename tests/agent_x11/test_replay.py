"""`rpa-agent run` replays a workflow on the real desktop; the application's own log counts effects."""

from __future__ import annotations

import pytest

from rpa_mcp.desktop_rig.harness import AgentProcess
from tests.agent_x11.conftest import AGENT_TOKEN
from tests.agent_x11.replaying import Replays
from tests.agent_x11.workflows import open_record_and_write

pytestmark = pytest.mark.desktop
MACHINE = "poste-x11-01"


@pytest.fixture
def replays(rpa_server):
    r = Replays(rpa_server)
    yield r
    r.close()


def start_agent(desktop, rpa_server, tmp_path, *extra: str) -> AgentProcess:
    agent = desktop.agent(
        ["--url", rpa_server.url, "--token", AGENT_TOKEN, "--machine-id", MACHINE, "--journal",
         str(tmp_path / "journal.sqlite"), "--wait", "5", *extra],
    )  # fmt: skip
    agent.wait_line("polling for actions")
    return agent


def test_a_replay_completes_with_every_effect_once_and_every_verdict_success(desktop, rpa_server, replays, tmp_path):
    note = "Patient calme, douleur 2/10, pansement propre."
    rpa_server.services.competences.save("Observation infirmière", open_record_and_write(note=note), machine_id=MACHINE)
    desktop.browser(wait_title="Recherche patient")
    agent = start_agent(desktop, rpa_server, tmp_path)
    mark = desktop.effects.mark
    replay_id = replays.start("Observation infirmière", MACHINE)
    status = replays.wait_stopped(replay_id)
    assert status["state"] == "completed", (status.get("pause_reason"), status.get("pause_detail"), agent.lines[-12:])
    verdicts = [a.get("verdict") for a in status["actions"]]
    assert all(v == "SUCCESS" for v in verdicts), status["actions"]
    assert (status["outcome"], status["steps_done"]) == ("completed", status["steps_total"]), status["outcome"]
    assert [e["intent"] for e in status["irreversible_sent"]], status["irreversible_sent"]  # the save is named
    assert replays.tool("read_resource", uri=f"rpa://replays/{replay_id}/evidence")["text"].count('"intact": true')
    effects = desktop.effects.since(mark)
    assert [e.detail["text"] for e in effects if e.kind == "save"] == [note]
    assert [e.detail["q"] for e in effects if e.kind == "search"] == ["DURAND Alice"]
    assert [e.detail["tab"] for e in effects if e.kind == "tab"] == ["observations"]
    assert len([e for e in effects if e.kind == "open_record"]) == 1
    assert any("executing step 3/5 switch_tab 'Observations'" in line for line in agent.lines)
