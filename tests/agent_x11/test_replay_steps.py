"""The first steps of the replay, which the validator already judges right on real screens."""

from __future__ import annotations

import pytest

from tests.agent_x11.replaying import Replays
from tests.agent_x11.test_replay import MACHINE, start_agent
from tests.agent_x11.workflows import ir, open_record_and_write

pytestmark = pytest.mark.desktop


def test_search_open_and_switch_tab_complete_once_each_with_success_verdicts(desktop, rpa_server, tmp_path):
    replays = Replays(rpa_server)
    steps = open_record_and_write()["steps"][:3]
    rpa_server.services.competences.save("Ouvrir le dossier", ir("Ouvrir le dossier", steps), machine_id=MACHINE)
    desktop.browser(wait_title="Recherche patient")
    agent = start_agent(desktop, rpa_server, tmp_path)
    mark = desktop.effects.mark
    try:
        replay_id = replays.start("Ouvrir le dossier", MACHINE)
        status = replays.wait_stopped(replay_id)
    finally:
        replays.close()
    assert status["state"] == "completed", (status.get("pause_reason"), status.get("pause_detail"))
    assert [a.get("verdict") for a in status["actions"]] == ["SUCCESS"] * 3
    effects = desktop.effects.since(mark)
    assert [e.detail["q"] for e in effects if e.kind == "search"] == ["DURAND Alice"]
    assert len([e for e in effects if e.kind == "open_record"]) == 1
    assert [e.detail["tab"] for e in effects if e.kind == "tab"] == ["observations"]
    assert any("executing step 3/3 switch_tab 'Observations'" in line for line in agent.lines)
    assert any("polling for actions" in line for line in agent.lines)
