"""Read-back: a completed run whose record is read back equal becomes `verified`; anything else stays completed."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import anyio.to_thread
import httpx2
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from rpa_mcp.bootstrap import build_services
from rpa_mcp.competences import CompetenceStore
from rpa_mcp.errors import InvalidInput, ReadbackNotAllowed
from rpa_mcp.readback_http import HttpRecordReader, ThreadBackground
from rpa_mcp.replay.ports import RecordUnreadable
from rpa_mcp.replay.readback import check_template, plan, read_back, within
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.settings import Settings
from rpa_mcp.store.competences import DbCompetenceStore
from rpa_mcp.store.db import Database
from rpa_mcp.testing import FakeClock, FakeRecordReader, HeldJobs
from tests.replay.kit import (
    FakeAgent,
    FakeDialogs,
    FakeValidator,
    JumpClock,
    Verdict,
    drain,
    make_service,
    make_services,
)

pytestmark = pytest.mark.anyio

BASE = "https://fhir.test/fhir"
STEPS = [
    {
        "index": 1,
        "intent": "Nom",
        "action_type": "type_text",
        "target": {"label": "Nom"},
        "params": {"text": "{{nom}}"},
    },
    {"index": 2, "intent": "Enregistrer", "action_type": "click_anchor", "target": {"label": "Enregistrer"}},
]
PARAMS = {"patient_id": "P-123", "nom": "DURAND"}
FIELDS = {"entry.0.resource.identifier.0.value": "{{patient_id}}", "entry.0.resource.name.0.family": "{{nom}}"}
READBACK = {"url": BASE + "/Patient?identifier={{patient_id}}", "fields": FIELDS}
TOKEN = "s3cr3t-readback-token"


def patient(identifier: str, family: str) -> dict[str, Any]:
    resource = {"resourceType": "Patient", "identifier": [{"value": identifier}], "name": [{"family": family}]}
    return {"resourceType": "Bundle", "entry": [{"resource": resource}]}


def engine(tmp_path: Path, records: Any, background: Any = None, **settings: Any) -> tuple[ReplayService, Any]:
    services = make_services(tmp_path, settings={"readback_urls": [BASE], **settings})
    return make_service(services, records=records, background=background), services


async def complete(service: ReplayService, services: SimpleNamespace, readback: dict[str, Any] = READBACK) -> str:
    agent = FakeAgent(service, clock=services.clock)
    typed = {"checker": "OcrRoiChecker", "signal": "typed", "score": 1.0, "detail": "reads", "read": "DURAND"}
    services.validator.script = [Verdict(evidence=[typed]), Verdict()]
    rid = await service.start(
        steps=STEPS, competence="c", version=1, machine_id="pc-1", params=PARAMS, readback=readback
    )
    await drain(service, [agent], services.clock)
    return rid


# --- the engine, over an in-memory channel ---------------------------------------------------------
async def test_a_completed_run_whose_record_reads_back_equal_is_verified_once(tmp_path: Path) -> None:
    records = FakeRecordReader(lambda url: patient("P-123", "DURAND"))
    service, services = engine(tmp_path, records)
    rid = await complete(service, services)
    assert records.calls == [BASE + "/Patient?identifier=P-123"]
    replay = service.store.get_replay(rid)
    assert replay is not None and replay.outcome == "verified"
    status = service.status(rid)
    assert status["outcome"] == "verified" and status["readback"]["status"] == "verified"
    assert [e["outcome"] for e in services.ledger.ended] == ["completed"]  # the end, then the read-back
    [entry] = services.ledger.read_back
    assert entry["outcome"] == "verified" and entry["readback"] == "verified"
    assert entry["evidence_sha256"] == replay.evidence_sha256 != services.ledger.ended[0]["evidence_sha256"]
    sealed = service.evidence_bundle(rid)
    assert sealed["intact"] is True and sealed["bundle"]["outcome"] == "verified"
    assert [f["equal"] for f in sealed["bundle"]["readback"]["fields"]] == [True, True]
    service._read_back(rid)  # asked again: nothing more is requested or recorded
    assert len(records.calls) == 1 and len(services.ledger.read_back) == 1


async def test_a_field_read_back_different_leaves_the_run_completed_with_the_mismatch(tmp_path: Path) -> None:
    service, services = engine(tmp_path, FakeRecordReader(lambda url: patient("P-123", "MARTIN")))
    rid = await complete(service, services)
    status = service.status(rid)
    assert status["outcome"] == "completed"
    assert status["readback"]["status"] == "mismatch" and "name.0.family" in status["readback"]["detail"]
    assert [e["outcome"] for e in services.ledger.read_back] == ["completed"]
    assert service.evidence_bundle(rid)["bundle"]["readback"]["status"] == "mismatch"


@pytest.mark.parametrize(
    ("error", "expected"),
    [(RecordUnreadable("no answer within 10 s", timed_out=True), "timeout"), (RecordUnreadable("HTTP 500"), "failed")],
)
async def test_a_read_back_that_fails_or_times_out_leaves_the_run_completed(
    tmp_path: Path, error: RecordUnreadable, expected: str
) -> None:
    def fail(url: str) -> Any:
        raise error

    service, services = engine(tmp_path, FakeRecordReader(fail))
    rid = await complete(service, services)
    status = service.status(rid)
    assert status["outcome"] == "completed" and status["readback"] == {"status": expected, "detail": error.detail}


async def test_a_run_that_did_not_complete_is_never_read_back(tmp_path: Path) -> None:
    records = FakeRecordReader(lambda url: patient("P-123", "DURAND"))
    service, services = engine(tmp_path, records)
    halted = await service.start(
        steps=STEPS, competence="c", version=1, machine_id="pc-1", params=PARAMS, readback=READBACK
    )
    await service.cancel(halted)
    agent = FakeAgent(service, clock=services.clock)
    nothing = Verdict(verdict="FAILURE", failure_category="NO_VISUAL_CHANGE")
    services.validator.script = [Verdict(), nothing, nothing]  # the save, then its later look: nothing changed
    sent = await service.start(
        steps=STEPS, competence="c", version=1, machine_id="pc-1", params=PARAMS, readback=READBACK
    )
    await drain(service, [agent], services.clock)
    await service.cancel(sent)
    outcomes = {rid: service.status(rid) for rid in (halted, sent)}
    assert [s["outcome"] for s in outcomes.values()] == ["halted_before_effect", "reconciliation_required"]
    assert all(s["readback"]["status"] == "not_run" for s in outcomes.values())
    assert records.calls == [] and services.ledger.read_back == []


async def test_a_start_with_a_read_back_outside_the_allow_list_is_refused_before_anything(tmp_path: Path) -> None:
    records = FakeRecordReader(lambda url: {})
    service, _ = engine(tmp_path, records)
    elsewhere = {"url": "https://other.test/fhir/Patient?identifier={{patient_id}}", "fields": FIELDS}
    with pytest.raises(ReadbackNotAllowed) as refused:
        await service.start(
            steps=STEPS, competence="c", version=1, machine_id="pc-1", params=PARAMS, readback=elsewhere
        )
    assert refused.value.code == "readback-not-allowed" and refused.value.details["setting"] == "RPA_READBACK_URLS"
    assert service.store.list_replays() == [] and records.calls == []


# --- the allow-list --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "https://other.test/fhir/Patient?identifier={{patient_id}}",  # another host
        "http://fhir.test/fhir/Patient",  # another scheme
        "https://fhir.test/fhirX/Patient",  # a sibling path
        "https://fhir.test/fhir{{patient_id}}",  # a value glued to the base's path
        "https://{{patient_id}}.fhir.test/fhir/Patient",  # a value in the host
        "https://fhir.test/fhir/../admin",  # walking out
        "https://user@fhir.test/fhir/Patient",  # credentials in the URL
    ],
)
def test_a_url_outside_the_allowed_bases_is_refused_naming_the_setting(url: str) -> None:
    with pytest.raises(ReadbackNotAllowed) as refused:
        check_template(url, [BASE])
    assert refused.value.details["setting"] == "RPA_READBACK_URLS"


def test_no_allowed_base_refuses_every_read_back() -> None:
    with pytest.raises(ReadbackNotAllowed):
        check_template(BASE + "/Patient", [])


def test_a_parameter_value_cannot_leave_the_allowed_base() -> None:
    planned = plan({"url": BASE + "/Patient/{{id}}", "fields": {"id": "{{id}}"}}, {"id": "../../admin?x=1"}, [BASE])
    assert planned["url"] == BASE + "/Patient/..%2F..%2Fadmin%3Fx%3D1" and within(planned["url"], [BASE])
    assert not within(BASE + "/..", [BASE])  # a whole value of ".." is a dot segment: refused before the request


def test_a_read_back_naming_a_parameter_the_run_does_not_give_is_refused_at_start() -> None:
    with pytest.raises(InvalidInput) as refused:
        plan(READBACK, {"patient_id": "P-123"}, [BASE])  # no `nom` for the family name
    assert refused.value.code == "invalid-input" and refused.value.details["field"].startswith("readback.fields.")


def test_a_planned_url_outside_the_allow_list_is_never_requested() -> None:
    records = FakeRecordReader(lambda url: {})
    result = read_back(records, {"url": "https://other.test/x", "fields": {"a": "1"}}, [BASE], 1.0)
    assert result["status"] == "refused" and records.calls == []


# --- persisting a competence -----------------------------------------------------------------------
def ir(url: str) -> dict[str, Any]:
    return {"name": "x", "version": 1, "steps": STEPS, "readback": {"url": url, "fields": FIELDS}}


@pytest.mark.parametrize("kind", ["files", "database"])
def test_a_competence_naming_a_url_outside_the_allow_list_is_refused_when_saved(tmp_path: Path, kind: str) -> None:
    store: Any = (
        CompetenceStore(tmp_path / "c", FakeClock(), readback_urls=[BASE])
        if kind == "files"
        else DbCompetenceStore(Database(tmp_path / "c.sqlite3"), FakeClock(), root=tmp_path / "c", readback_urls=[BASE])
    )
    with pytest.raises(ReadbackNotAllowed) as refused:
        store.save("Dispensation", ir("https://other.test/fhir/Patient?identifier={{patient_id}}"))
    assert refused.value.details == {"field": "ir.readback.url", "setting": "RPA_READBACK_URLS"}
    assert store.list().competences == []
    saved = store.save("Dispensation", ir(READBACK["url"]))
    assert store.get("Dispensation").workflow["readback"]["url"] == READBACK["url"] and saved.version == 1


def test_a_competence_without_read_back_writes_no_read_back_block(tmp_path: Path) -> None:
    store = CompetenceStore(tmp_path / "c", FakeClock())
    saved = store.save("Plain", {"name": "Plain", "version": 1, "steps": STEPS})
    assert "readback" not in saved.path.read_text(encoding="utf-8")


# --- over real HTTP: a fake FHIR server on loopback --------------------------------------------------
class FakeFhir:
    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        self.release = anyio.Event()  # the slow route answers only once the test is over

    async def patients(self, request: Request) -> JSONResponse:
        self.seen.append({"query": request.url.query, "authorization": request.headers.get("authorization", "")})
        return JSONResponse(patient(request.query_params.get("identifier", ""), "DURAND"))

    async def slow(self, request: Request) -> JSONResponse:
        await self.release.wait()
        return JSONResponse({})

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/fhir/Patient", self.patients), Route("/slow/fhir/Patient", self.slow)])


async def test_over_http_a_matching_record_verifies_and_the_token_is_never_logged_nor_in_the_evidence(
    tmp_path: Path, serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fhir = FakeFhir()
    base = await serve(fhir.app()) + "/fhir"
    jobs = HeldJobs()
    services = make_services(tmp_path, settings={"readback_urls": [base]}, clock=JumpClock())
    service = make_service(services, records=HttpRecordReader(SecretStr(TOKEN)), background=jobs)
    caplog.set_level(logging.DEBUG)
    rid = await complete(service, services, {"url": base + "/Patient?identifier={{patient_id}}", "fields": FIELDS})
    assert service.status(rid)["readback"]["status"] == "pending"
    await anyio.to_thread.run_sync(jobs.jobs.pop())  # off the event loop, as on the server
    assert fhir.seen == [{"query": "identifier=P-123", "authorization": f"Bearer {TOKEN}"}]
    assert service.status(rid)["outcome"] == "verified"
    assert TOKEN not in caplog.text and TOKEN not in str(service.evidence_bundle(rid))


async def test_over_http_a_read_back_without_answer_in_time_leaves_the_run_completed(
    tmp_path: Path, serve: Any
) -> None:
    fhir = FakeFhir()
    base = await serve(fhir.app()) + "/slow/fhir"
    jobs = HeldJobs()
    services = make_services(tmp_path, settings={"readback_urls": [base], "readback_timeout_s": 0.2}, clock=JumpClock())
    service = make_service(services, records=HttpRecordReader(SecretStr(TOKEN)), background=jobs)
    rid = await complete(service, services, {"url": base + "/Patient?identifier={{patient_id}}", "fields": FIELDS})
    with anyio.fail_after(10):
        await anyio.to_thread.run_sync(jobs.jobs.pop())
    fhir.release.set()
    status = service.status(rid)
    assert status["outcome"] == "completed" and status["readback"]["status"] == "timeout"
    assert TOKEN not in str(status)


# --- the adapters ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("response", "detail"),
    [
        (httpx2.Response(404), "HTTP 404"),
        (httpx2.Response(200, text="<html>login</html>"), "not JSON"),
        (httpx2.Response(302, headers={"location": "https://other.test/x"}), "HTTP 302"),  # never followed
    ],
)
def test_the_http_channel_reports_what_went_wrong_without_the_token(response: httpx2.Response, detail: str) -> None:
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(str(request.url))
        return response

    reader = HttpRecordReader(SecretStr(TOKEN), transport=httpx2.MockTransport(handler))
    with pytest.raises(RecordUnreadable) as failed:
        reader.get_json(BASE + "/Patient/1", timeout_s=1.0)
    assert detail in failed.value.detail and TOKEN not in failed.value.detail and not failed.value.timed_out
    assert seen == [BASE + "/Patient/1"]


def test_the_background_runs_a_read_back_on_another_thread() -> None:
    ran: list[str] = []
    done = threading.Event()
    background = ThreadBackground()

    def job() -> None:
        ran.append(threading.current_thread().name)
        done.set()

    background.submit(job)
    assert done.wait(10)
    background.close()
    assert ran[0].startswith("rpa-readback") and ran[0] != threading.current_thread().name


class Signalled:
    """The server's own `ThreadBackground`, telling the test when a job has finished (no sleeping)."""

    def __init__(self, inner: ThreadBackground) -> None:
        self.inner, self.done = inner, threading.Event()

    def submit(self, job: Any) -> None:
        def run() -> None:
            try:
                job()
            finally:
                self.done.set()

        self.inner.submit(run)


async def test_as_wired_by_bootstrap_the_read_back_runs_on_its_thread_and_is_chained_in_the_audit(
    tmp_path: Path, serve: Any
) -> None:
    fhir = FakeFhir()
    base = await serve(fhir.app()) + "/fhir"
    settings = Settings(
        data_dir=tmp_path / "data", jwt_secret="k" * 64, readback_urls=[base], readback_token=SecretStr(TOKEN)
    )
    validator, clock = FakeValidator(), JumpClock()
    services = build_services(settings, clock=clock, replay_validator=validator, replay_dialogs=FakeDialogs())
    service = services.replay
    background = Signalled(service.background)  # the ThreadBackground bootstrap wired
    service.background = background
    validator.script = [Verdict(), Verdict()]
    rid = await service.start(
        steps=STEPS, competence="c", version=1, machine_id="pc-1", params=PARAMS,
        readback={"url": base + "/Patient?identifier={{patient_id}}", "fields": FIELDS},
    )  # fmt: skip
    await drain(service, [FakeAgent(service, clock=clock)], clock)
    assert await anyio.to_thread.run_sync(background.done.wait, 10)
    assert fhir.seen[0]["authorization"] == f"Bearer {TOKEN}" and service.status(rid)["outcome"] == "verified"
    services.audit.flush()
    [row] = [r for r in services.audit.rows() if r["operation"] == "replay_read_back"]
    assert row["outcome"] == "verified" and services.audit.verify().ok and TOKEN not in str(services.audit.rows())
