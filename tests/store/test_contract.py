"""The store contract: every repository behaves the same on SQLite and on PostgreSQL."""

from __future__ import annotations

import dataclasses
import threading

import anyio
import pytest

from rpa_mcp.confirmation.ports import ProposalRecord
from rpa_mcp.errors import Conflict, SchemaOutdated
from rpa_mcp.replay import model as m
from rpa_mcp.replay.ports import ANY
from rpa_mcp.replay.rows import ActionRow, AttemptRow, ReplayRow, ReportRow
from rpa_mcp.store import migrations, replay_schema
from rpa_mcp.store.confirmations import SqliteProposalRepository
from rpa_mcp.store.coordination import Coordination
from rpa_mcp.store.db import Database, IntegrityError, Migrations
from rpa_mcp.store.replay import ReplayRepository
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.store.web_sessions import WebSessionStore
from rpa_mcp.testing import FakeClock


def _reopen(db: Database) -> Database:
    """A second connection pool on the same database: another replica."""
    if db.dialect == "sqlite":
        return Database(db.path)
    from rpa_mcp.store.postgres import PostgresDatabase

    return PostgresDatabase(db.conninfo)  # type: ignore[attr-defined]


def test_a_new_database_gets_every_area_and_upgrading_again_changes_nothing(backend):
    changed = migrations.upgrade(backend)
    assert set(changed) == set(migrations.AREAS)
    assert migrations.pending(backend) == {}
    assert migrations.upgrade(backend) == {}


def test_an_older_schema_is_refused_with_the_upgrade_command(backend):
    migrations.upgrade(backend)
    backend.execute("UPDATE schema_versions SET version = version - 1 WHERE area = 'replay'")
    backend.auto_upgrade = False
    with pytest.raises(SchemaOutdated) as refused:
        migrations.require_current(backend)
    assert "rpa-mcp db upgrade" in refused.value.message and refused.value.details["areas"] == ["replay"]


def test_a_newer_schema_is_refused_too(backend):
    migrations.upgrade(backend)
    backend.execute("UPDATE schema_versions SET version = version + 1 WHERE area = 'audit'")
    backend.auto_upgrade = False
    with pytest.raises(SchemaOutdated, match="newer"):
        migrations.require_current(backend)


def _proposal(jti: str) -> ProposalRecord:
    return ProposalRecord(
        jti=jti, operation="op", risk="write", subject="alice", args={"k": "v", "password": "pw"},
        args_digest="d", binding_digest="b", summary="s", details={"n": 1}, diff=None,
        approval_mode="token", approval_status="pending", approver=None, decided_at=None,
        created_at=1.0, expires_at=100.0, consumed_at=None,
    )  # fmt: skip


def test_proposals_round_trip_and_decide_once(backend):
    repo = SqliteProposalRepository(backend)
    repo.insert(_proposal("j1"))
    assert repo.get("j1") == _proposal("j1")
    assert repo.decide("j1", status="approved", approver="bob", at=2.0)
    assert not repo.decide("j1", status="rejected", approver="eve", at=3.0)
    assert [p.jti for p in repo.pending(now=1.0)] == []


def test_a_rejected_or_expired_proposal_keeps_no_secret_value(backend):
    repo = SqliteProposalRepository(backend)
    repo.insert(_proposal("rejected"))
    repo.insert(_proposal("expired"))
    repo.insert(dataclasses.replace(_proposal("valid"), expires_at=200.0))
    assert repo.decide("rejected", status="rejected", approver="bob", at=2.0)
    assert repo.get("rejected").args == {"k": "v", "password": "[redacted]"}
    assert repo.get("expired").args["password"] == "pw"
    assert repo.scrub_expired(after=0.0, before=150.0) == 1  # the rejected one was scrubbed already
    assert repo.get("expired").args == {"k": "v", "password": "[redacted]"}
    assert repo.get("valid").args["password"] == "pw"  # not expired yet
    assert repo.scrub_expired(after=150.0, before=150.0) == 0


def test_fifty_concurrent_consumes_of_one_token_on_two_replicas_have_one_winner(backend):
    SqliteProposalRepository(backend).insert(_proposal("j1"))
    other = _reopen(backend)
    repos = [SqliteProposalRepository(backend), SqliteProposalRepository(other)]
    wins: list[bool] = []
    start = threading.Barrier(50)

    def consume(i: int) -> None:
        start.wait()
        wins.append(repos[i % 2].consume("j1", at=5.0))

    threads = [threading.Thread(target=consume, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.close()
    assert sorted(wins) == [False] * 49 + [True]
    assert "pw" not in str(repos[0].get("j1").args)  # scrubbed at consumption


def test_web_sessions_live_expire_and_end(backend):
    clock = FakeClock()
    store = WebSessionStore(backend, clock, ttl_s=100, idle_s=10)
    sid = store.create("alice", frozenset({"approver"}), "jwt")
    session = store.get(sid)
    assert session is not None and session.subject == "alice" and session.roles == {"approver"}
    clock.advance(11)
    assert store.get(sid) is None
    sid = store.create("bob", frozenset(), "jwt")
    store.delete(sid)
    assert store.get(sid) is None


def test_a_pipelined_transaction_reads_what_it_asked_commits_and_rolls_back_on_a_conflict(backend):
    backend.execute("CREATE TABLE pipe_t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)")
    backend.execute("INSERT INTO pipe_t(k, v) VALUES (?, ?)", ("a", 1))
    with backend.transaction(pipeline=True) as conn:  # two reads sent together, then the writes
        one = conn.execute("SELECT v FROM pipe_t WHERE k = ?", ("a",))
        count = conn.execute("SELECT COUNT(*) AS n FROM pipe_t")
        assert one.fetchone()["v"] == 1 and count.fetchone()["n"] == 1
        conn.execute("UPDATE pipe_t SET v = ? WHERE k = ?", (2, "a"))
        conn.execute("INSERT INTO pipe_t(k, v) VALUES (?, ?)", ("b", 5))
    assert [dict(r) for r in backend.query("SELECT k, v FROM pipe_t ORDER BY k")] == [
        {"k": "a", "v": 2},
        {"k": "b", "v": 5},
    ]
    with pytest.raises(IntegrityError), backend.transaction(pipeline=True) as conn:
        conn.execute("UPDATE pipe_t SET v = ? WHERE k = ?", (3, "a"))
        conn.execute("INSERT INTO pipe_t(k, v) VALUES (?, ?)", ("b", 9))  # b exists: the whole unit fails
    assert backend.query_one("SELECT v FROM pipe_t WHERE k = ?", ("a",))["v"] == 2
    with backend.transaction(pipeline=True) as conn:  # and the next one runs normally
        conn.execute("UPDATE pipe_t SET v = ? WHERE k = ?", (4, "a"))
    assert backend.query_one("SELECT v FROM pipe_t WHERE k = ?", ("a",))["v"] == 4


def test_trace_events_are_ordered_deduplicated_and_screenshots_keep_their_bytes(backend):
    traces = TraceStore(backend)
    assert traces.touch_session("s1", "m1", now=1.0, locale=None)
    assert not traces.touch_session("s1", "m1", now=2.0, locale="fr")
    with traces.transaction():
        assert traces.append_event("s1", {"a": 1}, ts=1.0, type="click", event_id="e1", facts={}, now=1.0) == 0
        assert traces.append_event("s1", {"a": 2}, ts=2.0, type="key", event_id="e1", facts={}, now=1.0) is None
        assert traces.append_event("s1", {"a": 3}, ts=3.0, type="key", event_id=None, facts={"f": 1}, now=1.0) == 1
    assert [e["event"] for e in traces.events("s1")] == [{"a": 1}, {"a": 3}]
    shot = traces.put_screenshot(b"\x89PNG\x00\xff", session_id="s1", kind="event", mime="image/png",
                                 width=1, height=1, now=1.0)  # fmt: skip
    assert traces.get_screenshot(shot) == b"\x89PNG\x00\xff"
    traces.save_observer("s1", {"x": 1}, now=1.0, segments=[{"i": 0}, {"i": 1}], segments_from=0)
    traces.save_observer("s1", {"x": 2}, now=2.0, segments=[{"i": 9}], segments_from=1)
    assert traces.load_observer("s1") == {"x": 2, "segments": [{"i": 0}, {"i": 9}], "rev": 2}
    with pytest.raises(Conflict):  # saved by someone else since rev 1
        traces.save_observer("s1", {"x": 3}, now=3.0, segments_from=None, expect_rev=1)
    assert traces.observer_rev("s1") == 2
    assert traces.list_machines()[0]["active_session_id"] == "s1"
    assert anyio.run(traces.list_machines_async) == traces.list_machines()  # the small read for the loop


def _replay_rows() -> tuple[ReplayRow, list[ActionRow]]:
    run = ReplayRow(replay_id="r1", competence="c", version=1, machine_id=None, state="running",
                    params={"secret": "x"}, steps_total=2, created_at=1.0, updated_at=1.0)  # fmt: skip
    actions = [
        ActionRow(
            replay_id="r1",
            action_id=f"a{i}",
            seq=float(i),
            step_index=i,
            action_type="click",
            target={"label": "OK"},
            max_resends=2,
            state="PENDING",
            updated_at=1.0,
        )
        for i in range(2)
    ]
    return run, actions


def test_replay_transitions_are_compare_and_set_on_state_and_attempt(backend):
    repo = ReplayRepository(backend)
    run, actions = _replay_rows()
    repo.insert_replay(run, actions)
    assert repo.get_replay("r1") == run  # what goes in comes back, typed
    assert repo.actions("r1") == actions and repo.first_open_action("r1").action_id == "a0"
    with pytest.raises(ValueError, match="attempt"):  # a misspelt column is refused, not written
        repo.update_action("r1", "a0", expect_states=("PENDING",), expect_attempt=None, now=2.0, attempt="x")
    with repo.atomic():
        assert repo.update_action("r1", "a0", expect_states=("PENDING",), expect_attempt=None, now=2.0,
                                  state="DISPATCHED", attempt_id="at1", machine_id="m1", lease_until=5.0)  # fmt: skip
        assert not repo.update_action("r1", "a0", expect_states=("PENDING",), expect_attempt=None, now=2.0,
                                      state="DISPATCHED", attempt_id="at2")  # fmt: skip
    assert not repo.update_action(
        "r1", "a0", expect_states=("DISPATCHED",), expect_attempt="old", now=3.0, state="ACKED"
    )
    assert repo.update_action("r1", "a0", expect_states=("DISPATCHED",), expect_attempt=ANY, now=3.0, lease_until=4.0)
    assert [r["action_id"] for r in repo.expired_leases(4.5)] == ["a0"]
    assert repo.inflight_for_machine("m1")[0]["attempt_id"] == "at1"
    assert repo.update_replay("r1", expect_states=("running",), now=3.0, state="paused", pause_detail={"why": 1})
    assert not repo.update_replay("r1", expect_states=("running",), now=3.0, state="cancelled")
    assert repo.get_replay("r1")["pause_detail"] == {"why": 1} and repo.next_seq_after("r1", 0.0) == 1.0


def test_a_workstation_s_last_poll_and_last_screen_are_kept_apart_and_a_run_s_outcome_once(backend):
    repo = ReplayRepository(backend)
    assert repo.get_machine("m1") is None
    repo.machine_polled("m1", now=1.0)
    repo.machine_screen("m1", now=2.0, window_title="MédiDossier", size=(1280, 720), png=b"\x89PNG")
    repo.machine_polled("m1", now=3.0)  # a poll leaves the screen as it was
    machine = repo.get_machine("m1")
    assert machine is not None and (machine.polled_at, machine.reported_at, machine.screen_w) == (3.0, 2.0, 1280)
    assert machine.screenshot == b"\x89PNG" and machine.window_title == "MédiDossier"
    run, actions = _replay_rows()
    repo.insert_replay(run, actions)
    assert repo.set_outcome_once("r1", outcome="completed", evidence_sha256="a" * 64, now=3.0)
    assert not repo.set_outcome_once("r1", outcome="halted_before_effect", evidence_sha256="b" * 64, now=4.0)
    assert repo.get_replay("r1").evidence_sha256 == "a" * 64 and repo.list_replays()[0].outcome == "completed"


def test_a_read_back_is_recorded_once_and_only_on_a_completed_run(backend):
    repo = ReplayRepository(backend)
    run, actions = _replay_rows()
    repo.insert_replay(
        run.replace(readback={"url": "https://fhir.test/fhir/Patient/1", "fields": {"id": "1"}}), actions
    )
    verified = {"status": "verified", "detail": "1 field(s) read back equal"}
    assert not repo.set_readback_once("r1", result=verified, outcome="verified", evidence_sha256="c" * 64, now=2.0)
    assert repo.set_outcome_once("r1", outcome="completed", evidence_sha256="a" * 64, now=3.0)
    assert repo.set_readback_once("r1", result=verified, outcome="verified", evidence_sha256="c" * 64, now=4.0)
    failed = {"status": "failed", "detail": "HTTP 500"}
    assert not repo.set_readback_once("r1", result=failed, outcome="completed", evidence_sha256="d" * 64, now=5.0)
    row = repo.get_replay("r1")
    assert (row.outcome, row.evidence_sha256, row.readback_result) == ("verified", "c" * 64, verified)
    assert row.readback == {"url": "https://fhir.test/fhir/Patient/1", "fields": {"id": "1"}}


def test_an_accepted_report_is_recorded_once_even_inside_a_larger_transaction(backend):
    repo = ReplayRepository(backend)
    run, actions = _replay_rows()
    repo.insert_replay(run, actions)
    row = ReportRow(replay_id="r1", action_id="a0", attempt_id="at1", kind="result", status="accepted",
                    received_at=1.0, body={"ok": True})  # fmt: skip
    with repo.atomic():
        assert repo.add_report(row)
        assert not repo.add_report(row)  # the transaction goes on (no aborted transaction on PostgreSQL)
        assert repo.add_report(row.replace(status="late"))
        assert repo.add_report(row.replace(status="late"))
    assert [r["status"] for r in repo.reports("r1")] == ["accepted", "late", "late"]


def test_the_target_memory_is_kept_per_workstation(backend):
    repo = ReplayRepository(backend)
    repo.memory_put("pc-a", "sig", "k", x=10, y=20, successes=2, failures=0, now=1.0)
    assert repo.memory_get("pc-b", "sig", "k") is None  # another workstation's spot is not read
    repo.memory_put("pc-b", "sig", "k", x=99, y=98, successes=1, failures=0, now=2.0)
    a, b = repo.memory_get("pc-a", "sig", "k"), repo.memory_get("pc-b", "sig", "k")
    assert a is not None and b is not None and (a.x, a.machine_id, b.x, b.machine_id) == (10, "pc-a", 99, "pc-b")


def test_memory_entries_of_an_unknown_workstation_are_dropped_by_the_upgrade(backend):
    # Before the upgrade an entry carried no workstation: it could be another's, so nobody uses it.
    steps = replay_schema.MIGRATIONS
    backend.migrate("replay", Migrations(sqlite=steps.sqlite[:4], postgres=steps.postgres[:4]))
    backend.execute(
        "INSERT INTO replay_memory(signature, target_key, x, y, successes, failures, updated_at) "
        "VALUES (?, ?, 10, 20, 5, 0, 1.0)",
        (m.screen_signature("Easily"), m.target_key({"label": "OK"})),
    )
    repo = ReplayRepository(backend)  # upgrades the replay area
    assert backend.query("SELECT * FROM replay_memory") == []
    repo.memory_put("pc-a", "sig", "k", x=1, y=2, successes=1, failures=0, now=3.0)
    assert repo.memory_get("pc-a", "sig", "k") is not None


def test_target_memory_and_attempts_round_trip(backend):
    repo = ReplayRepository(backend)
    run, actions = _replay_rows()
    repo.insert_replay(run, actions)
    repo.memory_put("pc-1", "sig", "ok", x=10, y=20, successes=1, failures=0, now=1.0)
    repo.memory_put("pc-1", "sig", "ok", x=11, y=21, successes=2, failures=0, now=2.0)
    memory = repo.memory_get("pc-1", "sig", "ok")
    assert memory is not None and (memory.x, memory.successes) == (11, 2)
    repo.add_attempt(AttemptRow(attempt_id="at1", replay_id="r1", action_id="a0", n=1, machine_id="m",
                                dispatched_at=1.0, status="dispatched"))  # fmt: skip
    repo.set_attempt_status("at1", "fenced")
    assert (
        repo.get_attempt("at1") == AttemptRow("at1", "r1", "a0", 1, "m", 1.0, "fenced")
        and repo.count_attempts("r1") == 1
    )
    assert repo.purge_attempts("r1") == 1
    assert repo.scrub_secrets("r1") == 0 and repo.get_replay("r1")["params"] == {"secret": "[redacted]"}


def test_replicas_share_one_generated_key_and_one_rate_counter(backend):
    clock = FakeClock()
    other = _reopen(backend)
    first, second = Coordination(backend, clock), Coordination(other, clock)
    assert first.shared_key("signing") == second.shared_key("signing")
    assert [first.count("alice/apply"), second.count("alice/apply"), first.count("alice/apply")] == [1, 2, 3]
    clock.advance(60)
    assert second.count("alice/apply") == 1
    other.close()


def test_a_failed_transaction_leaves_nothing(backend):
    repo = ReplayRepository(backend)
    run, actions = _replay_rows()
    with pytest.raises(RuntimeError), repo.atomic():
        repo.insert_replay(run, actions)
        raise RuntimeError("boom")
    assert repo.get_replay("r1") is None
