"""Shadow sessions across replicas: an agent's events land on any replica, every replica sees
the same understanding, and concurrent batches for one session never lose an update."""

from __future__ import annotations

import threading

import pytest

from rpa_mcp.bench.shadow import session_events
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.store.postgres import PostgresDatabase
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.testing import FakeClock, FakeOcr
from rpa_mcp.vision.ocr import OcrLine


@pytest.fixture
def replicas(pg_url):
    clock, ocr = FakeClock(), FakeOcr(lines=[OcrLine("Imagerie", (120, 12, 64, 20), 0.96)])
    dbs = [PostgresDatabase(pg_url) for _ in range(3)]
    yield [ShadowService(TraceStore(db), ocr, clock) for db in dbs]
    for db in dbs:
        db.close()


def test_events_sent_to_any_replica_build_one_understanding_seen_by_all(replicas):
    events = session_events(60, "s")
    reference = ShadowService(TraceStore(replicas[0].traces.db), FakeOcr(), FakeClock())
    for i, event in enumerate(events):
        replicas[i % 3].ingest([event])  # each batch on another replica, each with its cache
    seen = [r.understanding("s")["steps"] for r in replicas]
    assert seen[0] == seen[1] == seen[2]
    assert len(seen[0]) == len(reference.understanding("s")["steps"]) > 20


def test_concurrent_batches_for_one_session_on_three_replicas_lose_nothing(replicas):
    events = session_events(90, "s")
    replicas[0].ingest(events[:1])
    lock = threading.Lock()
    queue = list(events[1:])

    def send(replica: ShadowService) -> None:
        while True:
            with lock:  # the agent sends in order; which replica takes a batch is up to the balancer
                if not queue:
                    return
                batch = [queue.pop(0) for _ in range(min(3, len(queue)))]
            replica.ingest(batch)

    threads = [threading.Thread(target=send, args=(r,)) for r in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = replicas[0].traces.events("s")
    assert len(stored) == len(events)
    state = replicas[1].understanding("s")
    covered = sorted(i for step in replicas[2]._state("s").segments for i in step.events)
    assert covered == sorted(set(covered)) and len(state["steps"]) > 20
