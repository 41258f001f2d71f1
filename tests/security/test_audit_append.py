"""PostgreSQL: a batch on the head its writer left is one statement; another writer's head or inbox
rows send it back under the lock, and the shared chain has no fork and no gap."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from rpa_mcp.store.audit import ROW_FIELDS, AuditLog
from rpa_mcp.store.postgres import PostgresDatabase
from rpa_mcp.testing import FakeClock

KEY = b"k" * 32


@pytest.fixture
def db(pg_url):
    db = PostgresDatabase(pg_url)
    yield db
    db.close()


def _counted(db: PostgresDatabase) -> Counter[str]:
    """Count the writer's single statements and its transactions."""
    calls: Counter[str] = Counter()
    statement, transaction = db.statement, db.transaction

    def counted_statement(*args: Any, **kwargs: Any) -> int:
        calls["statement"] += 1
        return statement(*args, **kwargs)

    def counted_transaction(*args: Any, **kwargs: Any) -> Any:
        calls["transaction"] += 1
        return transaction(*args, **kwargs)

    db.statement = counted_statement  # type: ignore[method-assign]
    db.transaction = counted_transaction  # type: ignore[method-assign]
    return calls


def _awaited(log: AuditLog, operation: str) -> None:
    log.record(actor="alice", operation=operation, args={}, outcome="error", code="x", wait=True)


def test_a_batch_on_the_head_the_writer_left_is_one_statement_and_the_chain_verifies(db, tmp_path):
    log = AuditLog(db, FakeClock(), key=KEY, checkpoint=tmp_path / "audit.head")
    _awaited(log, "first")  # the head is not known yet: under the lock, with the inbox
    calls = _counted(db)
    for i in range(3):
        _awaited(log, f"next{i}")  # each awaited row is a batch of its own
    assert calls == Counter(statement=3)
    assert [r["operation"] for r in log.rows()] == ["first", "next0", "next1", "next2"]
    assert log.verify().ok


def test_a_head_another_replica_moved_is_never_appended_to_and_the_shared_chain_has_no_fork(pg_url, tmp_path):
    dbs = [PostgresDatabase(pg_url), PostgresDatabase(pg_url)]
    try:
        one, two = (AuditLog(d, FakeClock(), key=KEY, checkpoint=tmp_path / f"{i}.head") for i, d in enumerate(dbs))
        _awaited(one, "one-a")
        _awaited(two, "two-a")  # moves the head `one` left
        calls = _counted(dbs[0])
        _awaited(one, "one-b")
        assert calls == Counter(statement=1, transaction=1)  # the statement changed nothing; then the lock
        _awaited(one, "one-c")
        assert calls == Counter(statement=1, transaction=2)  # no second try without the lock for a while
        ids = [int(r["id"]) for r in dbs[0].query("SELECT id FROM audit ORDER BY id")]
        assert ids == [1, 2, 3, 4]
        assert [r["operation"] for r in one.rows()] == ["one-a", "two-a", "one-b", "one-c"]
        assert one.verify().ok and two.verify().ok
    finally:
        for d in dbs:
            d.close()


def test_inbox_rows_of_a_stopped_process_are_chained_within_the_sweep_interval(db, tmp_path):
    clock = FakeClock()
    log = AuditLog(db, clock, key=KEY, checkpoint=tmp_path / "audit.head")
    _awaited(log, "first")
    row = {k: None for k in ROW_FIELDS} | {
        "request_id": "r", "ts": 1.0, "actor": "bob", "via": "mcp", "operation": "left-behind",
        "args_digest": "d", "args_summary": "{}", "outcome": "ok", "duration_ms": 1.0,
    }  # fmt: skip
    db.execute(  # committed with its write by a process that died before its writer chained it
        f"INSERT INTO audit_inbox ({', '.join(ROW_FIELDS)}) VALUES ({', '.join('?' for _ in ROW_FIELDS)})",
        [row[k] for k in ROW_FIELDS],
    )
    _awaited(log, "soon-after")  # on the head it left: the inbox waits
    assert db.query_one("SELECT COUNT(*) AS n FROM audit_inbox")["n"] == 1
    clock.advance(log.SWEEP_S)
    _awaited(log, "a-second-later")  # the inbox is read again, its row chained
    assert db.query_one("SELECT COUNT(*) AS n FROM audit_inbox")["n"] == 0
    operations = [r["operation"] for r in db.query("SELECT operation FROM audit ORDER BY id")]
    assert operations == ["first", "soon-after", "a-second-later", "left-behind"]
    assert log.verify().ok
