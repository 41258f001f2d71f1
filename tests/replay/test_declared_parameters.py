"""A workflow's declared parameters: typed, described arguments of run_<slug>; a start lacking one is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock

pytestmark = pytest.mark.anyio
OPERATOR = Caller("olivia", frozenset({"operator"}))
PARAMETERS = [
    {"name": "patient", "type": "string", "example": "DURAND", "description": "Nom du patient", "required": True},
    {"name": "date_rdv", "type": "date", "example": "13/03/2025", "description": "", "required": True},
    {"name": "duree", "type": "number", "example": "30", "description": "Minutes", "required": False},
]
IR: dict[str, Any] = {
    "name": "Rendez-vous patient",
    "domain": "accueil",
    "version": 1,
    "source": {"session_id": "s-1", "machine_id": "PC-1"},
    "parameters": PARAMETERS,
    "steps": [
        {
            "index": 1,
            "intent": "Rechercher le patient '{{patient}}'",
            "action_type": "type_text",
            "target": {"by_text": "Rechercher un patient"},
            "params": {"text": "{{patient}}", "submit_key": "enter"},
        },
        {
            "index": 2,
            "intent": "Ouvrir le dossier '{{patient}}'",
            "action_type": "double_click_anchor",
            "target": {"by_text": "{{patient}}", "label": "{{patient}}"},
            "params": {},
        },
        {
            "index": 3,
            "intent": "Saisir la date",
            "action_type": "type_text",
            "target": {"by_text": "Date"},
            "params": {"text": "{{date_rdv}}"},
            "expected": {"text": "Rendez-vous créé"},
        },
    ],
}
VALUES = {"patient": "MARTIN", "date_rdv": "02/04/2026"}


def test_planning_fills_parameters_in_params_and_targets_and_keeps_the_expected_text(service: ReplayService) -> None:
    planned = service.plan(IR["steps"], VALUES, PARAMETERS)
    assert planned[0]["params"]["text"] == "MARTIN"
    assert planned[1]["target"] == {"by_text": "MARTIN", "label": "MARTIN"}
    assert planned[2]["params"]["text"] == "02/04/2026"
    assert planned[2]["expected"]["text"] == "Rendez-vous créé"


@pytest.mark.parametrize(
    ("values", "field", "words"),
    [
        ({"date_rdv": "02/04/2026"}, "params.patient", "needs the parameter 'patient' (Nom du patient)"),
        ({"patient": "  ", "date_rdv": "02/04/2026"}, "params.patient", "was 'DURAND'"),
        ({"patient": "MARTIN", "date_rdv": "demain"}, "params.date_rdv", "a date written like '13/03/2025'"),
        (VALUES | {"duree": "longue"}, "params.duree", "must be a number"),
        (VALUES | {"patiant": "X"}, "params.patiant", "not parameters of this workflow"),
    ],
)
def test_a_start_with_a_missing_or_bad_parameter_is_refused_naming_it(
    service: ReplayService, values: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        service.plan(IR["steps"], values, PARAMETERS)
    assert err.value.code == "invalid-input" and err.value.details["field"] == field
    assert words in err.value.message


def test_an_optional_parameter_may_be_left_out_and_secrets_are_not_undeclared(service: ReplayService) -> None:
    assert service.plan(IR["steps"], VALUES | {"secret:pin": "0042"}, PARAMETERS)


@pytest.fixture
def env(tmp_path: Path) -> Any:
    settings = Settings(data_dir=tmp_path / "data", jwt_secret="k" * 64, replay_preflight=False, mcp_run_tools=10)
    services = build_services(settings, clock=FakeClock(start=1_800_000_000.0))
    services.competences.save(IR["name"], IR, machine_id="PC-1")
    return services, build_registry()


async def test_the_preview_shows_the_values_that_will_be_typed(env: Any) -> None:
    services, registry = env
    args = {"competence": IR["name"], "params": VALUES}
    proposal = await dispatch(registry, services, "propose_start_replay", args, OPERATOR, surface="mcp")
    assert "It will type: step 1: 'MARTIN'; step 3: '02/04/2026'." in proposal["summary"]
    details = proposal["details"]
    assert details["typed"] == [
        {"step": 1, "intent": "Rechercher le patient '{{patient}}'", "text": "MARTIN"},
        {"step": 3, "intent": "Saisir la date", "text": "02/04/2026"},
    ]
    assert {"name": "patient", "value": "MARTIN"} in details["parameters"]


async def test_propose_start_replay_without_a_required_parameter_is_refused(env: Any) -> None:
    services, registry = env
    with pytest.raises(InvalidInput) as err:
        await dispatch(registry, services, "propose_start_replay", {"competence": IR["name"]}, OPERATOR, surface="mcp")
    assert err.value.details["field"] == "params.patient"
    assert err.value.details["missing_params"] == ["patient", "date_rdv"]


async def test_run_tool_takes_the_parameters_as_typed_described_arguments(env: Any) -> None:
    services, registry = env
    services.competences.promote(IR["name"])
    server = build_mcp_server(registry, services, local_caller=OPERATOR)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        schema = tools["run_rendez_vous_patient"].input_schema
        assert schema["required"] == ["patient", "date_rdv"]
        assert schema["properties"]["patient"]["description"].startswith("Nom du patient")
        assert "DURAND" in schema["properties"]["patient"]["description"]
        assert schema["properties"]["date_rdv"]["pattern"] == r"^\d{1,2}/\d{1,2}/\d{4}$"
        assert "number" in str(schema["properties"]["duree"])
        assert "It takes patient, date_rdv, duree;" in tools["run_rendez_vous_patient"].description

        missing = await client.call_tool("run_rendez_vous_patient", {"date_rdv": "02/04/2026"})
        assert missing.is_error and missing.content[0].text.startswith("[invalid-input] patient:")
        bad_date = await client.call_tool("run_rendez_vous_patient", {"patient": "MARTIN", "date_rdv": "demain"})
        assert bad_date.is_error and "date_rdv" in bad_date.content[0].text
        ok = await client.call_tool("run_rendez_vous_patient", VALUES)
        assert not ok.is_error, ok.content
        assert "It will type: step 1: 'MARTIN'" in ok.structured_content["summary"]
