"""A competence with a read-back, started through the tools: the console and the audit chain say `verified`."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.bootstrap import Services
from rpa_mcp.replay.unconfigured import RunNow
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeRecordReader
from tests.console.conftest import Browser
from tests.console.helpers import call, jti_of
from tests.console.test_replays import CAROL, agent_for
from tests.integration.test_replay_http import BACK_TO_DOSSIER, IMAGERIE, MACHINE, promote, workflow

pytestmark = pytest.mark.anyio
FHIR = "https://fhir.test/fhir"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"readback_urls": [FHIR]})


class _Stack:
    def __init__(self, services: Services) -> None:
        self.services = services


async def test_a_run_read_back_equal_shows_verified_in_the_console_and_the_audit_chain(
    app: Any, browser: Browser, services: Services
) -> None:
    records = FakeRecordReader(lambda url: {"resourceType": "Patient", "id": "p-1"})
    services.replay.records, services.replay.background = records, RunNow()
    ir = {
        **workflow("Imagerie lue", IMAGERIE, BACK_TO_DOSSIER),
        "readback": {"url": FHIR + "/Patient/p-1", "fields": {"id": "p-1"}},
    }
    name = promote(_Stack(services), ir)
    assert services.competences.get(name).workflow["readback"]["url"] == FHIR + "/Patient/p-1"
    proposal = await call(services, "propose_start_replay", {"competence": name, "machine_id": MACHINE})
    assert proposal["details"]["readback"] == {"url": FHIR + "/Patient/p-1", "fields": {"id": "p-1"}}
    services.confirmations.decide(jti_of(proposal), CAROL, True)
    replay_id = str((await call(services, "apply_start_replay", {"token": proposal["token"]}))["replay_id"])
    agent, http = agent_for(app)
    async with http:
        for _ in range(3):  # two steps, then the look at the screen before completion
            assert await agent.poll_once() is not None
    assert records.calls == [FHIR + "/Patient/p-1"]
    status = await call(services, "get_replay_status", {"replay_id": replay_id})
    assert status["outcome"] == "verified" and status["readback"]["status"] == "verified"
    browser.sign_in("victor", "viewer")
    page = browser.get(f"/console/replays/{replay_id}").text
    assert 'id="replay-outcome" class="badge verified"' in page and 'id="replay-readback"' in page
    services.audit.flush()
    [row] = [r for r in services.audit.rows() if r["operation"] == "replay_read_back"]
    assert row["outcome"] == "verified" and services.audit.verify().ok
    assert MACHINE in row["args_summary"]
