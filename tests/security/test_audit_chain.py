"""The keyed audit chain on both backends: rows commit with their write, tampering is found."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import threading

import pytest

from rpa_mcp.errors import InvalidInput
from rpa_mcp.store.audit import AuditLog, row_mac
from rpa_mcp.store.audit.checkpoint import read_checkpoint
from rpa_mcp.store.replay import ReplayRepository
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.testing import FakeClock

KEY = b"k" * 32


@pytest.fixture
def log(backend, tmp_path):
    return AuditLog(backend, FakeClock(), key=KEY, checkpoint=tmp_path / "audit.head")


def _fill(log: AuditLog, n: int = 5) -> None:
    for i in range(n):
        log.record(actor="alice", operation=f"op{i}", args={"i": i}, outcome="ok", wait=i % 2 == 0)
    log.flush()


def _unprotect(db) -> None:
    """What an attacker with write access to the database does first."""
    if db.dialect == "sqlite":
        db.execute("DROP TRIGGER audit_no_update")
        db.execute("DROP TRIGGER audit_no_delete")
    else:
        db.execute("ALTER TABLE audit DISABLE TRIGGER audit_no_change")


def test_an_intact_chain_verifies_and_the_table_refuses_changes(log, backend):
    _fill(log)
    assert log.verify().ok and log.verify().rows == 5
    with pytest.raises(Exception, match="append-only"):
        backend.execute("UPDATE audit SET actor = 'mallory' WHERE id = 2")
    with pytest.raises(Exception, match="append-only"):
        backend.execute("DELETE FROM audit WHERE id = 5")


def test_an_edited_row_is_detected(log, backend):
    _fill(log)
    _unprotect(backend)
    backend.execute("UPDATE audit SET actor = 'mallory' WHERE id = 3")
    check = log.verify()
    assert not check.ok and check.first_bad_id == 3


def _delete_tail_and_rewind_head(backend, *, keep: int) -> None:
    """What an attacker with the database would do: drop the rows after `keep`, point the head at it."""
    _unprotect(backend)
    prev = backend.query_one("SELECT mac FROM audit WHERE id = ?", (keep,))["mac"]
    backend.execute("DELETE FROM audit WHERE id > ?", (keep,))
    backend.execute("UPDATE audit_head SET id = ?, mac = ? WHERE one = 1", (keep, prev))


def test_a_deleted_middle_row_is_detected(log, backend):
    _fill(log)
    _unprotect(backend)
    backend.execute("DELETE FROM audit WHERE id = 2")
    assert not log.verify().ok


def test_a_deleted_tail_is_detected_by_the_checkpoint_even_with_the_head_row_rewound(log, backend):
    _fill(log)
    _delete_tail_and_rewind_head(backend, keep=3)
    check = log.verify()
    assert not check.ok and "deleted" in check.reason


def test_rows_rehashed_without_the_key_are_detected(log, backend):
    _fill(log)
    _unprotect(backend)
    rows = backend.query("SELECT * FROM audit ORDER BY id")
    prev = "0" * 64
    forged = hmac.new(b"x" * 32, b"", hashlib.sha256).hexdigest()
    for r in rows:  # an attacker recomputes every MAC with a key of their own
        row = {**dict(r), "actor": "mallory"}
        forged = row_mac(b"attacker-key-attacker-key-000000", prev, int(r["id"]), row)
        backend.execute(
            "UPDATE audit SET actor = 'mallory', prev_mac = ?, mac = ? WHERE id = ?", (prev, forged, r["id"])
        )
        prev = forged
    backend.execute("UPDATE audit_head SET mac = ? WHERE one = 1", (forged,))
    check = log.verify()
    assert not check.ok and check.first_bad_id == 1


def test_an_inserted_row_is_detected(log, backend):
    _fill(log, 3)
    _unprotect(backend)
    backend.execute(
        "INSERT INTO audit (id, request_id, ts, actor, via, operation, args_digest, args_summary, outcome, code, "
        "duration_ms, prev_mac, mac) SELECT 4, request_id, ts, 'mallory', via, operation, args_digest, args_summary, "
        "outcome, code, duration_ms, mac, mac FROM audit WHERE id = 3"
    )
    assert not log.verify().ok


def test_a_forged_checkpoint_is_detected(log, backend, tmp_path):
    _fill(log, 3)
    (tmp_path / "audit.head").write_text('{"id": 1, "mac": "00", "check": "00"}')
    assert "not written with this audit key" in log.verify().reason


def test_a_write_and_its_audit_row_commit_together_or_not_at_all(log, backend):
    traces = TraceStore(backend)
    with log.scope(actor="agent", operation="ingest_events", args={"n": 1}, via="rest", request_id="rq1") as scope:
        traces.touch_session("s1", "m1", now=1.0, locale=None)
        assert scope.logged
        traces.touch_session("s1", "m1", now=2.0, locale=None)  # one row per operation, not per write
    with (
        pytest.raises(RuntimeError),
        log.scope(actor="agent", operation="ingest_events", args={"n": 2}, via="rest", request_id="rq2"),
        traces.transaction(),
    ):
        traces.touch_session("s2", "m1", now=3.0, locale=None)
        raise RuntimeError("killed mid-write")
    assert traces.get_session("s2") is None
    rows = log.rows()
    assert [(r["operation"], r["request_id"]) for r in rows] == [("ingest_events", "rq1")]
    assert log.verify().ok


def test_rows_committed_with_a_write_are_chained_by_the_next_process(backend, tmp_path):
    first = AuditLog(backend, FakeClock(), key=KEY, checkpoint=tmp_path / "audit.head")
    repo = ReplayRepository(backend)
    with first.scope(actor="a", operation="op", args={}, via="mcp", request_id="r"):
        repo.memory_put("pc-1", "sig", "k", x=1, y=1, successes=1, failures=0, now=1.0)
    # the process dies before its writer chained the row: it is in the inbox, committed
    assert backend.query_one("SELECT COUNT(*) AS n FROM audit_inbox")["n"] in (0, 1)
    second = AuditLog(backend, FakeClock(), key=KEY, checkpoint=tmp_path / "audit.head")
    assert [r["operation"] for r in second.rows()] == ["op"] and second.verify().ok


def test_input_that_cannot_be_audited_is_refused_before_anything_is_written(log):
    raw = {"events": [{"ts": float("inf")}]}
    with (
        pytest.raises(InvalidInput) as refused,
        log.scope(actor="a", operation="ingest_events", args={}, raw=raw, via="rest", request_id="r"),
    ):
        raise AssertionError("the operation must not run")
    assert refused.value.details["field"] == "events[0].ts"


def test_rows_nobody_waits_for_are_checkpointed_by_flush_and_a_deleted_tail_is_detected(log, backend):
    for i in range(4):
        log.record(actor="alice", operation=f"read{i}", args={}, outcome="ok", wait=False)
    log.flush()
    _delete_tail_and_rewind_head(backend, keep=2)
    check = log.verify()
    assert not check.ok and "deleted" in check.reason


def test_the_checkpoint_follows_every_awaited_batch_and_at_most_every_interval_otherwise(log):
    from rpa_mcp.store.audit.chain import Pending as _Pending

    clock = log.clock
    unawaited, awaited = [_Pending({}, None)], [_Pending({}, threading.Event())]
    log._checkpoint_now((1, "0" * 64))
    assert log.checkpoint_due(awaited)
    assert not log.checkpoint_due(unawaited)
    clock.advance(log.CHECKPOINT_S)
    assert log.checkpoint_due(unawaited)


def test_a_writer_with_nothing_left_to_do_writes_the_checkpoint_it_owes(backend, tmp_path):
    log = AuditLog(backend, FakeClock(), key=KEY, checkpoint=tmp_path / "audit.head")
    log.record(actor="alice", operation="first", args={}, outcome="ok", wait=True)  # checkpointed: awaited
    log.CHECKPOINT_S = log.IDLE_EXIT_S = 0.01  # (instance values: the writer goes quiet at once)
    for i in range(3):
        log.record(actor="alice", operation=f"read{i}", args={}, outcome="ok", wait=False)
    writer = log._writer
    assert writer is not None
    writer.join(timeout=30)  # it ends only once nothing is owed: rows chained, checkpoint written
    assert not writer.is_alive()
    assert read_checkpoint(KEY, tmp_path / "audit.head") == (
        4,
        backend.query_one("SELECT mac FROM audit WHERE id = 4")["mac"],
    )


def test_a_nul_in_a_tool_name_or_subject_never_costs_the_rows_batched_with_it(log):
    log.record(actor="alice", operation="list_machines", args={}, outcome="ok", wait=False)
    log.record(actor="mal\x00lory", operation="no\x00such_tool", args={}, outcome="error", code="x", wait=False)
    log.record(actor="bob", operation="list_machines", args={}, outcome="ok", wait=False)
    log.flush()
    rows = log.rows()
    assert [(r["actor"], r["operation"]) for r in rows] == [
        ("alice", "list_machines"),
        ("mal\ufffdlory", "no\ufffdsuch_tool"),
        ("bob", "list_machines"),
    ]
    assert log.verify().ok


def _failing_chain(log: AuditLog, failures: int | None):
    """`log._chain` failing its first `failures` batches (None: every batch), as a database away."""
    real, calls = log._chain, {"n": 0}

    def chain(batch):
        calls["n"] += 1
        if failures is None or calls["n"] <= failures:
            raise RuntimeError("database unavailable")
        return real(batch)

    log._chain = chain
    log.RETRY_S = 0.0
    return real


def test_rows_nobody_waits_for_survive_a_failed_batch_in_their_order(log):
    _failing_chain(log, failures=1)
    for i in range(3):
        log.record(actor="alice", operation=f"op{i}", args={}, outcome="ok", wait=False)
    with contextlib.suppress(RuntimeError):
        log.flush()  # its marker may share the failed batch: then it says so
    log.flush()
    assert [r["operation"] for r in log.rows()] == ["op0", "op1", "op2"]
    assert log.verify().ok


def test_a_waiting_caller_gets_the_failure_and_its_row_is_not_retried(log):
    _failing_chain(log, failures=1)
    with pytest.raises(RuntimeError, match="database unavailable"):
        log.record(actor="alice", operation="create", args={}, outcome="error", code="x", wait=True)
    log.flush()
    assert log.rows() == []  # the caller was told its call failed: nothing is written behind its back


def test_a_row_whose_batches_keep_failing_is_logged_then_given_up(log, caplog):
    real = _failing_chain(log, failures=None)
    log.ATTEMPTS = 2
    log.record(actor="alice", operation="list_machines", args={}, outcome="ok", wait=False)
    for _ in range(2):
        with pytest.raises(RuntimeError):
            log.flush()
    log._chain = real
    log.flush()  # the writer is past the failed batches (it gives a row up before its next batch)
    assert "audit row given up after 2 failed batches: list_machines by alice" in caplog.text
    assert log.rows() == []
