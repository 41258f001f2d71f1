"""The validator in a replay uses what the step recorded when the agent gives no box and no position.

The field incident: a click meant for the "Imagerie" tab of the hospital record landed in
another application; the agent said it succeeded and reported only the window in front. The
verdict must be FAILURE / WRONG_APPLICATION from that title alone, never UNVERIFIED.
"""

from __future__ import annotations

import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.settings import shipped_dir
from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation import Validator
from tests.replay.kit import FakeAgent, drain, make_service, make_services

pytestmark = pytest.mark.anyio
RECORD = "Easily — Dossier patient - Google Chrome"
ELSEWHERE = "Nouvel onglet - Microsoft Edge"


def imagerie(**target: object) -> dict[str, object]:
    return {
        "index": 0,
        "intent": "Open the 'Imagerie' tab",
        "action_type": "switch_tab",
        "target": {"label": "Imagerie", "window_title": RECORD, **target},
    }


async def replay_with_real_validator(tmp_path, step: dict[str, object]) -> dict[str, object]:
    services = make_services(tmp_path)
    services.validator = Validator.from_catalog(shipped_dir("catalog"), FakeOcr())
    service = make_service(services)
    agent = FakeAgent(service, clock=services.clock)
    agent.result_for["switch_tab"] = {
        "actual_position": None,
        "window_title": ELSEWHERE,
        "window_title_before": ELSEWHERE,
    }
    rid = await service.start(steps=[step], competence="demo", version=1, machine_id="pc-1")
    await drain(service, [agent], services.clock)
    replay = service.store.get_replay(rid)
    assert replay is not None
    return replay


@pytest.mark.parametrize("recorded", [{}, {"rel_x": 0.227, "rel_y": 0.022}], ids=["title only", "recorded position"])
async def test_a_click_that_landed_in_another_application_is_wrong_application(tmp_path, recorded) -> None:
    replay = await replay_with_real_validator(tmp_path, imagerie(**recorded))
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.VALIDATION_FAILED, replay["pause_detail"]
    assert replay["pause_detail"]["failure_category"] == "WRONG_APPLICATION"
