"""One evidence bundle per run, sealed by a digest recorded in the audit chain when the run ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rpa_mcp.bootstrap import build_services
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock
from tests.replay.kit import FakeAgent, JumpClock, Verdict, drain

pytestmark = pytest.mark.anyio

STEPS = [
    {"index": 1, "intent": "Nom", "action_type": "type_text", "target": {"label": "Nom"}, "params": {"text": "DURAND"}},
    {"index": 2, "intent": "Enregistrer", "action_type": "click_anchor", "target": {"label": "Enregistrer"}},
]


async def finished(service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock) -> str:
    read = {"checker": "OcrRoiChecker", "signal": "typed", "score": 1.0, "detail": "reads", "read": "DURAND"}
    services.validator.script = [Verdict(evidence=[read]), Verdict()]
    rid = await service.start(steps=STEPS, competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    return rid


async def test_a_finished_run_records_its_outcome_and_evidence_digest_once(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    rid = await finished(service, services, agent, clock)
    replay = service.store.get_replay(rid)
    assert replay is not None and replay.outcome == "completed"
    assert services.ledger.ended == [
        {"replay_id": rid, "outcome": "completed", "evidence_sha256": replay.evidence_sha256, "competence": "c",
         "machine_id": "pc-1"}
    ]  # fmt: skip
    sealed = service.evidence_bundle(rid)
    assert sealed["intact"] is True and sealed["sha256"] == replay.evidence_sha256
    typed, save, look = sealed["bundle"]["steps"]
    # the closing look at the screen after the last step is in the sealed record too, not as a step done
    assert (look["origin"], look["action_type"], look["state"]) == ("closing", "screenshot_evidence", "ACKED")
    assert look["index"] == save["index"] and sealed["bundle"]["steps_done"] == 2
    assert typed["typed"] == {"expected": "DURAND", "read_back": "DURAND"}
    assert save["step_class"] == "irreversible" and save["phases_ms"]["validate"] >= 0
    assert all(len(c["sha256"]) == 64 and c["href"].startswith(f"/console/replays/{rid}/crops/") for c in save["crops"])
    service._ended(rid)  # asked again: nothing more is recorded
    assert len(services.ledger.ended) == 1


async def test_a_row_changed_after_the_end_no_longer_matches_the_recorded_digest(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    rid = await finished(service, services, agent, clock)
    services.db.execute("UPDATE replay_actions SET outcome = 'failed' WHERE replay_id = ? AND step_index = 2", (rid,))
    sealed = service.evidence_bundle(rid)
    assert sealed["intact"] is False and sealed["sha256"] != sealed["recorded_sha256"]


async def test_a_cancelled_run_ends_when_its_action_in_flight_reports(
    service: ReplayService, services: Any, agent: FakeAgent
) -> None:
    rid = await service.start(steps=STEPS, competence="c", version=1, machine_id="pc-1")
    agent.faults.add("heartbeat")
    await agent.step()
    await service.cancel(rid)
    assert services.ledger.ended == []  # not ended: the typing is in flight
    await agent.finish_long()
    assert [e["outcome"] for e in services.ledger.ended] == ["halted_before_effect"]


async def test_the_end_of_a_run_is_a_row_of_the_audit_chain_and_the_bundle_a_resource(tmp_path: Path) -> None:
    services = build_services(Settings(data_dir=tmp_path / "data", jwt_secret="k" * 64), clock=FakeClock())
    rid = await services.replay.start(steps=STEPS, competence="c", version=1, machine_id="pc-1")
    await services.replay.cancel(rid)
    services.audit.flush()
    [row] = [r for r in services.audit.rows() if r["operation"] == "replay_ended"]
    sha = services.replay.store.get_replay(rid).evidence_sha256
    assert row["outcome"] == "halted_before_effect" and sha in row["args_summary"]
    assert services.audit.verify().ok
    caller = Caller("nurse", frozenset({"viewer"}))
    read = await dispatch(
        build_registry(), services, "read_resource", {"uri": f"rpa://replays/{rid}/evidence"}, caller, surface="mcp"
    )
    assert '"intact": true' in read["text"] and sha in read["text"]
