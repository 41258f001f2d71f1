"""Server-side steps for real: extract_text shaped and checked by the step's schema; t2a_decision on a
configured language model; without a model the step pauses saying what to set."""

from __future__ import annotations

import pytest

from rpa_mcp.llm import build_action_runner
from rpa_mcp.replay import model as m
from rpa_mcp.settings import Settings
from rpa_mcp.vision.ocr import OcrLine
from tests.llm.fake_model import fake_model
from tests.replay.kit import FakeAgent, drain, make_service, make_services, steps

pytestmark = pytest.mark.anyio
IPP = {"type": "object", "required": ["ipp"], "properties": {"ipp": {"type": "string", "pattern": "^[0-9]{9}$"}}}


def read_ipp(**params: object) -> dict[str, object]:
    return {
        "index": 1,
        "intent": "read the IPP",
        "action_type": "extract_text",
        "target": {"bbox": [0, 0, 16, 16]},
        "params": {"variable": "ipp", **params},
    }


async def run(service, agent, clock, plan):
    rid = await service.start(steps=plan, competence="demo", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    return service.store.get_replay(rid)


async def test_extract_text_takes_the_fields_out_and_checks_them(service, services, agent, clock) -> None:
    services.ocr.lines = [OcrLine("IPP 000123456 · Séjour 2503120045", (0, 0, 10, 5), 0.99)]
    plan = [*steps(1), read_ipp(pattern=r"IPP (?P<ipp>\d+)", json_schema=IPP)]
    replay = await run(service, agent, clock, plan)
    assert replay["state"] == m.COMPLETED and replay["variables"]["ipp"] == {"ipp": "000123456"}


async def test_extract_text_that_breaks_the_schema_pauses_with_the_problem(service, services, agent, clock) -> None:
    services.ocr.lines = [OcrLine("IPP 0001234 · Séjour 2503120045", (0, 0, 10, 5), 0.99)]  # 7 digits
    plan = [*steps(1), read_ipp(pattern=r"IPP (?P<ipp>\d+)", json_schema=IPP)]
    replay = await run(service, agent, clock, plan)
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.SERVER_ACTION_FAILED
    assert "does not match the step's JSON Schema at ipp" in replay["pause_detail"]["error"]


async def test_a_decision_runs_on_the_configured_model_with_what_earlier_steps_read(tmp_path) -> None:
    with fake_model() as model:
        model.answer({"decision": "GHM 05M09", "reason": "heart failure"})
        settings = Settings(data_dir=tmp_path / "data", llm_url=model.url, llm_model="coder-1")
        services = make_services(tmp_path, server_actions=build_action_runner(settings))
        services.ocr.lines = [OcrLine("Insuffisance cardiaque I50.0", (0, 0, 10, 5), 0.99)]
        service = make_service(services)
        agent = FakeAgent(service, clock=services.clock)
        decide = {
            "index": 2,
            "intent": "code the stay",
            "action_type": "t2a_decision",
            "params": {"variable": "ghm", "prompt": "GHM for: {dx}", "choices": ["GHM 05M09", "GHM 05M08"]},
        }
        plan = [*steps(1), {**read_ipp(), "params": {"variable": "dx"}}, decide]
        replay = await run(service, agent, services.clock, plan)
    assert replay["state"] == m.COMPLETED and replay["variables"]["ghm"] == "GHM 05M09"
    assert "Insuffisance cardiaque I50.0" in model.requests[0]["body"]["messages"][1]["content"]


async def test_without_a_model_a_decision_pauses_saying_what_to_set(service, agent, clock) -> None:
    plan = [*steps(1), {"index": 1, "intent": "decide", "action_type": "t2a_decision", "params": {"prompt": "?"}}]
    replay = await run(service, agent, clock, plan)
    assert replay["pause_reason"] == m.SERVER_ACTION_FAILED
    assert (
        replay["pause_detail"]["error"] == "t2a_decision cannot run: no language model is configured: set RPA_LLM_URL"
    )
