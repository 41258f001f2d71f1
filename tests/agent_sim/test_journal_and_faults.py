from __future__ import annotations

from pathlib import Path

import pytest

from rpa_mcp.agent_sim import DedupCache, FaultPlan, Journal
from rpa_mcp.errors import InvalidInput


def test_journal_states_survive_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    journal.received("rep", "a1", "t1", 10.0)
    journal.received("rep", "a2", "t1", 10.0)
    journal.started("a2", "t1")
    journal.received("rep", "a3", "t1", 10.0)
    journal.started("a3", "t1")
    journal.done("a3", "t1", {"success": True, "action_id": "a3", "attempt_id": "t1"})
    journal.close()

    reopened = Journal(path)
    try:
        assert [(e.action_id, e.state) for e in reopened.entries()] == [
            ("a1", "RECEIVED"),
            ("a2", "STARTED"),
            ("a3", "DONE"),
        ]
        assert [e.action_id for e in reopened.unreported()] == ["a3"]
        reopened.reported("a3", "t1")
        assert reopened.unreported() == []
        assert reopened.get("a3", "t1").result == {"success": True, "action_id": "a3", "attempt_id": "t1"}
    finally:
        reopened.close()


def test_journal_never_moves_an_attempt_backwards(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    try:
        journal.received("rep", "a1", "t1", 10.0)
        journal.done("a1", "t1", {"success": True})
        journal.received("rep", "a1", "t1", 10.0)  # a second delivery
        journal.started("a1", "t1")
        assert journal.get("a1", "t1").state == "DONE"
    finally:
        journal.close()


def test_journal_is_fsynced_on_every_commit(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    try:
        assert journal._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        journal.close()


def test_dedup_cache_keeps_the_50_most_recent_attempts() -> None:
    cache = DedupCache()
    for i in range(60):
        cache.put(f"a{i}", "t1", {"n": i})
    assert len(cache) == 50
    assert cache.get("a9", "t1") is None
    assert cache.get("a10", "t1") == {"n": 10}
    assert cache.get("a10", "t2") is None  # the key is action_id + attempt_id


def test_dedup_cache_refreshes_an_entry_on_use() -> None:
    cache = DedupCache(capacity=2)
    cache.put("a", "t", {"n": 1})
    cache.put("b", "t", {"n": 2})
    cache.get("a", "t")
    cache.put("c", "t", {"n": 3})
    assert cache.get("b", "t") is None and cache.get("a", "t") == {"n": 1}


def test_fault_plan_is_parsed_from_the_cli_syntax() -> None:
    plan = FaultPlan.parse(["lose_report@2;delay_report@1:value=45", "poison:step=3,times=0"])
    assert [(f.kind, f.at, f.step, f.times, f.value) for f in plan.faults] == [
        ("lose_report", 2, None, 1, None),
        ("delay_report", 1, None, 1, 45.0),
        ("poison", None, 3, 0, None),
    ]


def test_fault_fires_only_on_its_action_and_only_as_often_as_asked() -> None:
    plan = FaultPlan.parse("lose_report@2:times=2")
    assert plan.take("lose_report", nth=1, step=0, action_id="a") is None
    assert plan.take("lose_report", nth=2, step=1, action_id="b") is not None
    assert plan.take("lose_report", nth=2, step=1, action_id="b") is not None
    assert plan.take("lose_report", nth=2, step=1, action_id="b") is None


@pytest.mark.parametrize("spec", ["explode@1", "lose_report@x", "lose_report:colour=red"])
def test_unknown_fault_or_option_is_refused(spec: str) -> None:
    with pytest.raises(InvalidInput) as err:
        FaultPlan.parse(spec)
    assert err.value.code == "invalid-input"


def test_an_acknowledged_result_keeps_no_screenshot_and_old_entries_are_forgotten(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    try:
        shot = {"screenshot_before": "iVBOR" * 1000, "screenshot_after": "iVBOR" * 1000}
        journal.received("rep", "old", "t1", 1_000.0)
        journal.done("old", "t1", {"success": True, "action_id": "old", "attempt_id": "t1", **shot})
        journal.reported("old", "t1")
        journal.received("rep", "a1", "t1", 200_000.0)
        journal.done("a1", "t1", {"success": True, "action_id": "a1", "attempt_id": "t1", **shot})
        assert journal.get("a1", "t1").result["screenshot_after"]  # not acknowledged yet: the outbox keeps it whole
        journal.reported("a1", "t1")
        kept = journal.get("a1", "t1").result
        assert kept == {"success": True, "action_id": "a1", "attempt_id": "t1"}
        assert journal.get("old", "t1") is None  # a day past its deadline: it protects nothing any more
    finally:
        journal.close()
