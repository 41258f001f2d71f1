"""Console page views in the audit: one chained row per person, page and hour, on both backends."""

from __future__ import annotations

import json

import pytest

from rpa_mcp.store import migrations
from rpa_mcp.store.audit import AuditLog
from rpa_mcp.store.audit.views import HOUR_S, views_of
from rpa_mcp.store.db import Database
from rpa_mcp.testing import FakeClock

KEY = b"k" * 32
START = 1_800_000_000.0  # 2027-01-15 08:00:00 UTC, the start of an hour


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def log(backend, clock, tmp_path):
    return AuditLog(backend, clock, key=KEY, checkpoint=tmp_path / "audit.head")


def _view(log: AuditLog, actor: str, operation: str, args: dict[str, object] | None = None) -> None:
    with log.scope(actor=actor, operation=operation, args=args or {}, via="web", request_id="r") as scope:
        pass
    log.close_scope(scope, outcome="ok", code=None, duration_ms=2.0, wait=False, view=True)


def test_a_days_page_views_are_one_row_per_person_page_and_hour(log, clock):
    for _ in range(3):  # hour 1: alice's replays page three times, bob's once, a replay twice
        _view(log, "alice", "list_replays")
        clock.advance(60)
    _view(log, "bob", "list_replays")
    _view(log, "alice", "get_replay_status", {"replay_id": "rp-1"})
    _view(log, "alice", "get_replay_status", {"replay_id": "rp-1"})
    log.flush()
    assert log.rows() == []  # the hour is not over: counted, not chained
    clock.advance(HOUR_S)
    _view(log, "alice", "list_replays")  # hour 2: the first batch of the hour seals hour 1
    log.flush()
    rows = log.rows()
    seen = {(r["actor"], r["operation"]): views_of(r) for r in rows}
    assert len(rows) == 3 and {k: v["views"] for k, v in seen.items()} == {  # type: ignore[index]
        ("alice", "list_replays"): 3,
        ("bob", "list_replays"): 1,
        ("alice", "get_replay_status"): 2,
    }
    status = next(r for r in rows if r["operation"] == "get_replay_status")
    assert json.loads(status["args_summary"])["arguments"] == {"replay_id": "rp-1"}  # which record was read
    assert status["via"] == "web" and status["outcome"] == "ok" and status["duration_ms"] == 4.0
    alice = seen[("alice", "list_replays")]
    assert alice == {"views": 3, "first": "2027-01-15T08:00:00+00:00", "last": "2027-01-15T08:02:00+00:00"}
    assert log.verify().ok


def test_asking_for_page_views_chains_the_open_hours_counts_and_counting_goes_on(log, clock):
    _view(log, "alice", "list_replays")
    _view(log, "alice", "list_replays")
    found = log.search(operation="list_replays")  # page views asked for: nothing is left out
    assert [views_of(r)["views"] for r in found] == [2]  # type: ignore[index]
    _view(log, "alice", "list_replays")
    assert log.search(operation="list_replays", hide_reads=("web", {"list_replays"})) == []
    assert [views_of(r)["views"] for r in log.search(operation="list_replays")] == [1, 2]  # type: ignore[index]
    assert log.verify().ok


def test_errors_and_writes_through_the_console_stay_one_row_each(log):
    with log.scope(actor="alice", operation="list_replays", args={}, via="web", request_id="r") as scope:
        pass
    log.close_scope(scope, outcome="error", code="forbidden", duration_ms=1.0, wait=True, view=True)
    log.record(actor="alice", operation="approve", args={"jti": "j"}, outcome="ok", via="web")
    assert [(r["operation"], r["code"], views_of(r)) for r in log.rows()] == [
        ("list_replays", "forbidden", None),
        ("approve", None, None),
    ]


def test_counts_left_by_a_stopped_server_are_chained_at_the_next_start(backend, clock, tmp_path):
    first = AuditLog(backend, clock, key=KEY, checkpoint=tmp_path / "audit.head")
    _view(first, "alice", "list_replays")
    first.flush()  # counted in the database; the process dies without close()
    clock.advance(2 * HOUR_S)
    again = AuditLog(backend, clock, key=KEY, checkpoint=tmp_path / "audit.head")
    again.record(actor="bob", operation="approve", args={}, outcome="ok", via="web")
    assert [(r["actor"], views_of(r)) for r in again.rows()] == [
        ("bob", None),
        ("alice", {"views": 1, "first": "2027-01-15T08:00:00+00:00", "last": "2027-01-15T08:00:00+00:00"}),
    ]


def test_a_clean_shutdown_leaves_no_count_unchained(log, backend):
    _view(log, "alice", "list_machines")
    log.close()
    assert backend.query_one("SELECT count(*) AS n FROM audit_views")["n"] == 0
    assert [views_of(r)["views"] for r in log.rows()] == [1]  # type: ignore[index]


def test_the_page_views_table_comes_with_db_upgrade(backend):
    migrations.upgrade(backend)
    backend.execute("UPDATE schema_versions SET version = 2 WHERE area = 'audit'")
    backend.execute("DROP TABLE audit_views")
    assert migrations.pending(backend) == {"audit": (2, 3)}
    assert migrations.upgrade(backend) == {"audit": (2, 3)}
    assert backend.query_one("SELECT count(*) AS n FROM audit_views")["n"] == 0


def test_two_replicas_count_into_one_row_per_person_page_and_hour(backend, clock, tmp_path):
    if backend.dialect == "sqlite":
        other_db = Database(backend.path)  # another process on the same file
    else:
        from rpa_mcp.store.postgres import PostgresDatabase

        other_db = PostgresDatabase(backend.conninfo)  # another replica
    try:
        one = AuditLog(backend, clock, key=KEY, checkpoint=tmp_path / "one.head")
        two = AuditLog(other_db, clock, key=KEY, checkpoint=tmp_path / "two.head")
        for log in (one, two, one):
            _view(log, "alice", "list_replays")
        one.flush()
        two.flush()
        clock.advance(HOUR_S)
        two.record(actor="bob", operation="approve", args={}, outcome="ok", via="web")  # seals the hour over
        rows = one.rows()
        assert [(r["actor"], (views_of(r) or {}).get("views")) for r in rows] == [("bob", None), ("alice", 3)]
        assert one.verify().ok and two.verify().ok
    finally:
        other_db.close()
