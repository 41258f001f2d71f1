"""The shared budget of failed sign-ins: the in-memory throttle's behaviour, in one table that every
replica (here: several connection pools on one database) counts in atomically, and that stays small."""

from __future__ import annotations

import threading

import pytest

from rpa_mcp.auth.throttle import SignInThrottle
from rpa_mcp.store.db import Database
from rpa_mcp.store.sign_in_failures import SharedSignInThrottle
from rpa_mcp.testing import FakeClock
from tests.store.test_contract import _reopen


def _shared(db: Database, clock: FakeClock, **kwargs: object) -> SharedSignInThrottle:
    options: dict[str, object] = {"failures": 3, "window_s": 60.0} | kwargs
    return SharedSignInThrottle(db, clock, **options)  # type: ignore[arg-type]


def test_the_table_gives_the_same_answers_as_the_in_memory_throttle(backend):
    clock = FakeClock(start=1_800_000_000.0)
    shared, memory = _shared(backend, clock), SignInThrottle(clock, failures=3, window_s=60.0)
    script = [("10.0.0.1", 0.0)] * 5 + [("10.0.0.2", 0.0), ("10.0.0.1", 7.5), ("10.0.0.1", 12.5)]
    script += [("10.0.0.1", 0.0), ("10.0.0.1", 45.0), ("10.0.0.1", 0.0), ("10.0.0.1", 300.0)] + [("10.0.0.1", 1.0)] * 4
    for address, wait in script:
        clock.advance(wait)
        got, expected = shared.failed(address), memory.failed(address)
        assert (got is None) == (expected is None), (address, wait, got, expected)
        if expected is not None:
            assert got == pytest.approx(expected, abs=1e-3)


def test_the_budget_comes_back_with_time_and_addresses_are_counted_apart(backend):
    clock = FakeClock()
    throttle = _shared(backend, clock)
    assert [throttle.failed("10.0.0.1") for _ in range(3)] == [None, None, None]
    retry = throttle.failed("10.0.0.1")
    assert retry is not None and retry == pytest.approx(20.0)  # one failure's worth: window / failures
    assert throttle.failed("10.0.0.1") == pytest.approx(20.0)  # a refused failure costs nothing more
    assert throttle.failed("10.0.0.2") is None
    clock.advance(20.0)
    assert throttle.failed("10.0.0.1") is None
    assert throttle.failed("10.0.0.1") is not None


def test_two_replicas_share_one_budget(backend):
    clock = FakeClock()
    other = _reopen(backend)
    try:
        a, b = _shared(backend, clock), _shared(other, clock)
        answers = [(a if i % 2 else b).failed("192.0.2.7") for i in range(5)]
    finally:
        other.close()
    assert answers[:3] == [None] * 3 and all(x is not None for x in answers[3:])


def test_concurrent_failures_on_two_replicas_are_all_counted(backend):
    clock = FakeClock()
    other = _reopen(backend)
    throttles = [_shared(db, clock, failures=10, window_s=3600.0) for db in (backend, other)]
    barrier, answers = threading.Barrier(8), []
    lock = threading.Lock()

    def fail(throttle: SharedSignInThrottle) -> None:
        barrier.wait()
        for _ in range(5):
            answer = throttle.failed("198.51.100.1")
            with lock:
                answers.append(answer)

    threads = [threading.Thread(target=fail, args=(throttles[i % 2],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.close()
    assert len(answers) == 40 and sum(a is None for a in answers) == 10  # exactly the budget, whoever counted


def test_a_flood_from_many_addresses_keeps_the_table_bounded(backend):
    clock = FakeClock()
    throttle = _shared(backend, clock, max_addresses=50, prune_every=10)
    for i in range(600):
        throttle.failed(f"10.1.{i // 256}.{i % 256}")
        clock.advance(0.01)
    assert throttle.rows() <= 50 + 10
    clock.advance(3600)  # every budget is whole again: those rows mean nothing
    assert throttle.prune() > 0 and throttle.rows() == 0


def test_a_replica_whose_clock_lags_never_gives_the_budget_back_early(backend):
    ahead, behind = FakeClock(start=1_800_000_100.0), FakeClock(start=1_800_000_000.0)
    other = _reopen(backend)
    try:
        a, b = _shared(backend, ahead), _shared(other, behind)
        assert [a.failed("203.0.113.5") for _ in range(3)] == [None] * 3
        assert b.failed("203.0.113.5") is not None  # its clock is 100 s behind: still over the budget
        assert a.failed("203.0.113.5") is not None
    finally:
        other.close()


def test_long_addresses_are_cut_and_an_unreachable_database_falls_back_to_memory(backend, tmp_path):
    clock = FakeClock()
    db = _reopen(backend)
    throttle = _shared(db, clock, failures=1)
    assert throttle.failed("x" * 10_000) is None
    assert throttle.failed("x" * 10_000 + "y") is not None  # the same first 200 characters: the same address
    db.close()  # from here on every query fails
    assert throttle.failed("10.9.9.9") is None  # counted in memory meanwhile
    assert throttle.failed("10.9.9.9") is not None
