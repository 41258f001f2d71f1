"""`set_readback`: a competence declares which record a completed run is read back from, shown at approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rpa_mcp.bootstrap import build_services
from rpa_mcp.errors import RpaError
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock
from tests.competences.helpers import ir

pytestmark = pytest.mark.anyio
OPERATOR = Caller("olivia", frozenset({"operator"}))
APPROVER = Caller("carol", frozenset({"approver"}), via="web")
BASE = "https://fhir.hopital.test/fhir"
READBACK = {"url": BASE + "/Patient?identifier={{patient_id}}", "fields": {"entry.0.resource.id": "{{patient_id}}"}}


@pytest.fixture
def env(tmp_path: Path) -> Any:
    settings = Settings(data_dir=tmp_path / "data", jwt_secret="k" * 64, readback_urls=BASE)
    services = build_services(settings, clock=FakeClock(start=1_800_000_000.0))
    workflow = ir() | {"parameters": [{"name": "patient_id", "type": "string", "example": "IPP1"}]}
    services.competences.save("Admission patient", workflow)
    return services, build_registry(areas=("competences",))


async def call(env: Any, name: str, args: dict[str, Any], caller: Caller = OPERATOR) -> dict[str, Any]:
    services, registry = env
    return await dispatch(registry, services, name, args, caller, surface="functions")


async def approved(env: Any, args: dict[str, Any]) -> dict[str, Any]:
    proposal = await call(env, "propose_set_readback", args)
    if proposal.get("approval_mode") == "human":
        env[0].confirmations.decide(proposal["approval_url"].rsplit("/", 1)[1], APPROVER, True)
    return await call(env, "apply_set_readback", {"token": proposal["token"]})


async def test_the_approver_sees_the_url_its_allowed_base_and_every_field(env: Any) -> None:
    proposal = await call(env, "propose_set_readback", {"name": "Admission patient", "readback": READBACK})
    assert READBACK["url"] in proposal["summary"] and BASE in proposal["summary"]
    assert "entry.0.resource.id = '{{patient_id}}'" in proposal["summary"]
    assert proposal["details"]["readback"] == READBACK and proposal["details"]["allowed_base"] == BASE
    assert env[0].competences.get("Admission patient").version == 1  # the proposal changed nothing


async def test_applied_it_saves_a_new_version_carrying_the_readback_and_is_audited(env: Any) -> None:
    services, _ = env
    done = await approved(env, {"name": "Admission patient", "readback": READBACK})
    assert (done["version"], done["replaced_version"], done["readback"]) == (2, 1, READBACK)
    assert services.competences.get("Admission patient").workflow["readback"] == READBACK
    assert "set_readback" in str([row["operation"] for row in services.audit.rows()])
    removed = await approved(env, {"name": "Admission patient", "readback": None})
    assert removed["version"] == 3 and "readback" not in services.competences.get("Admission patient").workflow


@pytest.mark.parametrize(
    ("readback", "code", "field"),
    [
        ({"url": "https://autre.test/fhir/Patient?id={{patient_id}}", "fields": {"id": "x"}},
         "readback-not-allowed", "readback.url"),
        ({"url": BASE + "/Patient?identifier={{ipp}}", "fields": {"id": "x"}}, "invalid-input", "readback.url"),
        ({"url": BASE + "/Patient", "fields": {"entry.0": "{{nom}}"}}, "invalid-input", "readback.fields.entry.0"),
        ({"url": BASE + "/Patient", "fields": {"entry[0]": "x"}}, "invalid-input", "readback.fields"),
        ({"url": BASE + "/Patient", "fields": {}}, "invalid-input", "readback.fields"),
    ],
)  # fmt: skip
async def test_a_bad_readback_is_refused_naming_its_field_and_nothing_is_saved(
    env: Any, readback: dict[str, Any], code: str, field: str
) -> None:
    with pytest.raises(RpaError) as err:
        await call(env, "propose_set_readback", {"name": "Admission patient", "readback": readback})
    assert err.value.code == code and str(err.value.details.get("field", "")).startswith(field), err.value.details
    assert env[0].competences.get("Admission patient").version == 1


async def test_a_run_of_the_version_it_saved_is_verified_through_that_readback(tmp_path: Path) -> None:
    from rpa_mcp.testing import FakeRecordReader, HeldJobs
    from tests.replay.kit import FakeAgent, FakeDialogs, FakeValidator, JumpClock, drain

    settings = Settings(
        data_dir=tmp_path / "data", jwt_secret="k" * 64, readback_urls=BASE, approval="write=token,act=token",
        replay_preflight=False,
    )  # fmt: skip
    clock = JumpClock()
    services = build_services(settings, clock=clock, replay_validator=FakeValidator(), replay_dialogs=FakeDialogs())
    workflow = ir(steps=1) | {"parameters": [{"name": "patient_id", "type": "string", "example": "IPP1"}]}
    services.competences.save("Admission patient", workflow, machine_id="pc-1")
    records = FakeRecordReader(lambda url: {"entry": [{"resource": {"id": url.rsplit("=", 1)[1]}}]})
    services.replay.records, services.replay.background = records, HeldJobs()
    env = (services, build_registry(areas=("competences", "replay")))
    await approved(env, {"name": "Admission patient", "readback": READBACK})
    proposal = await call(
        env, "propose_start_replay", {"competence": "Admission patient", "params": {"patient_id": "IPP7"}}
    )
    started = await call(env, "apply_start_replay", {"token": proposal["token"]})
    await drain(services.replay, [FakeAgent(services.replay, clock=clock)], clock)
    services.replay.background.jobs.pop()()
    assert records.calls == [BASE + "/Patient?identifier=IPP7"]
    assert services.replay.status(started["replay_id"])["outcome"] == "verified"
