"""A person's `retry` is dispatched as a new attempt carrying `retry_of`; automatic resends never carry it."""

from __future__ import annotations

import pytest

from rpa_mcp.replay import model as m
from tests.replay.kit import Verdict, drain, steps

pytestmark = pytest.mark.anyio


async def test_a_retry_answered_by_a_person_names_the_attempt_they_saw(service, services, agent, clock):
    services.validator.script = [Verdict("FAILURE", "WRONG_TARGET")]
    rid = await service.start(steps=steps(1), competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    held = service.store.actions(rid)[0]
    assert held["state"] == m.HELD
    await service.answer(rid, "retry")
    again = await service.next_action("pc-1", protocol_version=2)
    assert again is not None and again.attempt_id != held["attempt_id"]
    assert again.retry_of == held["attempt_id"]


async def test_a_resend_by_the_watchdog_carries_no_consent(service, services, agent, clock):
    rid = await service.start(steps=steps(1), competence="c", version=1, machine_id="pc-1")
    first = await service.next_action("pc-1", protocol_version=2)
    assert first is not None and first.retry_of is None
    clock.advance(service.config.orphan_timeout_s + 1)
    service.scan_once()  # never started: the watchdog resends it
    resent = await service.next_action("pc-1", protocol_version=2)
    assert resent is not None and resent.resend == 1 and resent.retry_of is None
    assert service.store.get_replay(rid)["state"] == m.RUNNING
