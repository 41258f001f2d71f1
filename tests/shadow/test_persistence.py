"""The observer's steps are stored one row each: an event rewrites only the last ones, a restart loses nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rpa_mcp.bench.shadow import session_events
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.store.db import Database, Migrations
from rpa_mcp.store.traces import MIGRATIONS, TraceStore
from tests.shadow.conftest import ev


class CountingStore(TraceStore):
    """Remembers how many segments each save wrote."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.written: list[int] = []

    def save_observer(self, session_id: str, state: dict[str, Any], **kwargs: Any) -> int:
        self.written.append(len(kwargs.get("segments", ())))
        return super().save_observer(session_id, state, **kwargs)


def test_each_event_rewrites_only_the_last_steps_and_a_restart_resumes_exactly(db_path: Path, clock, ocr) -> None:
    store = CountingStore(Database(db_path))
    first = ShadowService(store, ocr, clock)
    for event in session_events(120, "long"):
        first.ingest([event])
    count = len(first.understanding("long")["steps"])
    assert count > 60
    assert max(store.written) <= 2  # the open step and a new one, however long the session

    second = ShadowService(TraceStore(Database(db_path)), ocr, clock)
    assert second.understanding("long")["steps"] == first.understanding("long")["steps"]
    second.ingest(session_events(122, "long")[-2:])  # the observation goes on after the restart
    third = ShadowService(TraceStore(Database(db_path)), ocr, clock)
    assert third.understanding("long")["steps"] == second.understanding("long")["steps"]
    assert len(third.understanding("long")["steps"]) == count + 1  # a click and typing: one more step


def test_feedback_that_drops_steps_drops_their_rows(make_service) -> None:
    first = make_service()
    first.ingest([ev("click", float(i), x=1, y=1, element={"name": f"B{i}"}) for i in range(1, 6)])
    first.feedback("s1", "undo", step_index=5)
    first.feedback("s1", "merge_next", step_index=1)
    before = [s["intent"] for s in first.understanding("s1")["steps"]]
    assert len(before) == 3
    second = make_service()
    assert [s["intent"] for s in second.understanding("s1")["steps"]] == before
    second.ingest([ev("click", 9.0, x=1, y=1, element={"name": "Z"})])
    assert [s["intent"] for s in make_service().understanding("s1")["steps"]] == [*before, "Click 'Z'"]


def test_a_resent_event_after_a_restart_is_a_duplicate_not_an_error(make_service) -> None:
    event = ev("click", 1.0, x=1, y=1, event_id="e1", element={"name": "OK"})
    make_service().ingest([event])
    again = make_service().ingest([event])
    assert (again["accepted"], again["duplicates"]) == (0, 1)
    assert again["sessions"][0]["observing"] is True


def test_a_database_that_kept_steps_inside_the_state_is_migrated(db_path: Path, clock, ocr) -> None:
    service = ShadowService(TraceStore(Database(db_path)), ocr, clock)
    service.ingest([ev("click", float(i), x=1, y=1, element={"name": f"B{i}"}) for i in range(1, 4)])
    steps = service.understanding("s1")["steps"]
    state = service.traces.load_observer("s1")
    assert state is not None and len(state["segments"]) == 3

    # rebuild the file as the first schema had it: the steps inside the state document
    old = tmp_db(db_path.with_name("old.sqlite3"))
    with old.transaction() as conn:
        for table in ("trace_machines", "trace_sessions", "trace_events", "trace_screenshots"):
            rows = service.traces.db.query(f"SELECT * FROM {table}")
            for row in rows:
                cols = ", ".join(row.keys())
                marks = ", ".join("?" for _ in row)
                conn.execute(f"INSERT INTO {table}({cols}) VALUES ({marks})", tuple(row))
        conn.execute(
            "INSERT INTO shadow_observers(session_id, state, updated_at) VALUES (?, ?, ?)",
            ("s1", json.dumps(state), 1.0),
        )

    migrated = TraceStore(old)
    kept = old.query_one("SELECT state FROM shadow_observers WHERE session_id = 's1'")
    assert "segments" not in json.loads(kept["state"])
    assert ShadowService(migrated, ocr, clock).understanding("s1")["steps"] == steps


def tmp_db(path: Path) -> Database:
    db = Database(path)
    db.migrate("traces", Migrations(sqlite=MIGRATIONS.sqlite[:1], postgres=MIGRATIONS.postgres[:1]))
    return db
