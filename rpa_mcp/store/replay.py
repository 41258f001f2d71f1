"""Replay repository on SQLite: replays, actions, attempts (retry bookkeeping), reports, target memory.

Every state change is a conditional write (`UPDATE ... WHERE state = ? AND attempt_id IS ?`)
whose row count says whether this writer won; callers group writes in `atomic()`
(`BEGIN IMMEDIATE`), so a transition and its side effects commit together or not at all.
Rows come back as the frozen types of `rpa_mcp.replay.rows` (JSON columns decoded) and go in
as those types; an update naming a column the row type does not have is refused.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from rpa_mcp.ops.redaction import REDACTED, redact
from rpa_mcp.replay.ports import ANY
from rpa_mcp.replay.rows import (
    ActionRow,
    AttemptRow,
    LeaseRow,
    MachineRow,
    MemoryRow,
    ReplayRow,
    ReplaySummary,
    ReportRow,
    _Row,
    columns,
)
from rpa_mcp.store.db import Connection, Database, Row
from rpa_mcp.store.replay_schema import MIGRATIONS

_JSON_COLUMNS = frozenset(
    {
        "pause_detail",
        "params",
        "variables",
        "target",
        "expected",
        "result",
        "verdict",
        "evidence",
        "body",
        "readback",
        "readback_result",
    }
)


_R = TypeVar("_R", bound=_Row)


def _decode(row_type: type[_R], row: Row | None) -> _R | None:
    if row is None:
        return None
    out = dict(row)
    for key in _JSON_COLUMNS & out.keys():
        if out[key] is not None:
            out[key] = json.loads(out[key])
    for key in ("last_screenshot", "screen_before"):
        if key in out and out[key] is not None:
            out[key] = bytes(out[key])
    return row_type(**out)


def _decoded(row_type: type[_R], rows: Sequence[Row]) -> list[_R]:
    return [r for r in (_decode(row_type, row) for row in rows) if r is not None]


def _encode(value: Any, key: str) -> Any:
    if key in _JSON_COLUMNS and value is not None:
        return json.dumps(value, default=str, ensure_ascii=False)
    return value


def _checked(row_type: type[_Row], changes: dict[str, Any]) -> None:
    unknown = sorted(set(changes) - columns(row_type))
    if unknown:
        raise ValueError(f"{row_type.__name__} has no column(s) {unknown}")


class ReplayRepository:
    """SQLite adapter of the replay domain's `ReplayStore` port."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("replay", MIGRATIONS)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        with self.db.transaction():
            yield

    def lock_machine(self, machine_id: str) -> None:
        """Inside `atomic()`: claims for this machine on other replicas wait until it ends."""
        with self.db.transaction() as conn:
            self.db.lock(conn, f"machine:{machine_id}")

    # --- replays ----------------------------------------------------------------------------
    def insert_replay(self, row: ReplayRow, actions: Sequence[ActionRow]) -> None:
        with self.db.transaction() as conn:
            self._insert(conn, "replay_runs", row)
            for action in actions:
                self._insert(conn, "replay_actions", action)

    def insert_action(self, row: ActionRow, *, or_nothing: bool = False) -> bool:
        """Insert one action; with `or_nothing`, an action of the same id already there is kept (False)."""
        with self.db.transaction() as conn:
            return self._insert(conn, "replay_actions", row, or_nothing=or_nothing) > 0

    @staticmethod
    def _insert(conn: Connection, table: str, row: _Row, *, or_nothing: bool = False) -> int:
        keys = [k for k in row if not (k == "id" and row[k] is None)]
        return conn.execute(
            f"INSERT INTO {table} ({', '.join(keys)}) VALUES ({', '.join('?' for _ in keys)})"
            + (" ON CONFLICT DO NOTHING" if or_nothing else ""),
            [_encode(row[k], k) for k in keys],
        ).rowcount

    def get_replay(self, replay_id: str) -> ReplayRow | None:
        return _decode(ReplayRow, self.db.query_one("SELECT * FROM replay_runs WHERE replay_id = ?", (replay_id,)))

    def list_replays(
        self, *, states: Sequence[str] | None = None, limit: int = 100, machines: Collection[str] | None = None
    ) -> list[ReplaySummary]:
        """The newest replays (in `states`; on `machines` only, when given)."""
        sql = (
            "SELECT replay_id, competence, version, machine_id, state, pause_reason, steps_total, created_at, "
            "updated_at, finished_at, outcome FROM replay_runs WHERE 1 = 1"
        )
        params: list[Any] = []
        if states:
            sql += f" AND state IN ({', '.join('?' for _ in states)})"
            params.extend(states)
        if machines is not None:
            sql += f" AND machine_id IN ({', '.join('?' for _ in machines) or 'NULL'})"
            params.extend(sorted(machines))
        sql += " ORDER BY created_at DESC LIMIT ?"
        params.append(limit)
        return _decoded(ReplaySummary, self.db.query(sql, params))

    def open_action_counts(self) -> dict[str, int]:
        """Actions not yet finished, by state, over every replay (the queue depth a monitor reads)."""
        rows = self.db.query(
            "SELECT state, COUNT(*) AS n FROM replay_actions WHERE state IN (?, ?, ?, ?) GROUP BY state",
            ("PENDING", "DISPATCHED", "ORPHAN", "HELD"),
        )
        counts = dict.fromkeys(("PENDING", "DISPATCHED", "ORPHAN", "HELD"), 0)
        counts.update({str(row["state"]): int(row["n"]) for row in rows})
        return counts

    def runnable_replays(self, machine_id: str) -> list[ReplaySummary]:
        # PostgreSQL: a replay another replica is changing right now is skipped, not waited for
        # (its commit wakes the pollers again).
        skip = " FOR UPDATE SKIP LOCKED" if self.db.dialect == "postgres" else ""
        rows = self.db.query(
            "SELECT replay_id, machine_id, state, variables FROM replay_runs WHERE state = 'running' "
            "AND (machine_id = ? OR machine_id IS NULL) ORDER BY created_at, replay_id" + skip,
            (machine_id,),
        )
        return _decoded(ReplaySummary, rows)

    def update_replay(self, replay_id: str, *, expect_states: Sequence[str], now: float, **changes: Any) -> bool:
        """CAS on the replay state; bumps `rev`. Returns whether this writer won."""
        _checked(ReplayRow, changes)
        sets = ", ".join(f"{k} = ?" for k in changes)
        sql = (
            f"UPDATE replay_runs SET {sets}{', ' if sets else ''}updated_at = ?, rev = rev + 1 "
            f"WHERE replay_id = ? AND state IN ({', '.join('?' for _ in expect_states)})"
        )
        params = [_encode(v, k) for k, v in changes.items()] + [now, replay_id, *expect_states]
        return self.db.execute(sql, params) == 1

    def set_outcome_once(self, replay_id: str, *, outcome: str, evidence_sha256: str, now: float) -> bool:
        """A finished run's outcome and evidence digest, written by one writer only (the first)."""
        return (
            self.db.execute(
                "UPDATE replay_runs SET outcome = ?, evidence_sha256 = ?, updated_at = ?, rev = rev + 1 "
                "WHERE replay_id = ? AND outcome IS NULL",
                (outcome, evidence_sha256, now, replay_id),
            )
            == 1
        )

    def set_readback_once(
        self, replay_id: str, *, result: dict[str, Any], outcome: str, evidence_sha256: str, now: float
    ) -> bool:
        """A completed run's read-back result (and its outcome: verified or still completed), written once."""
        return (
            self.db.execute(
                "UPDATE replay_runs SET readback_result = ?, outcome = ?, evidence_sha256 = ?, updated_at = ?, "
                "rev = rev + 1 WHERE replay_id = ? AND outcome = 'completed' AND readback_result IS NULL",
                (_encode(result, "readback_result"), outcome, evidence_sha256, now, replay_id),
            )
            == 1
        )

    # --- workstations ------------------------------------------------------------------------
    def machine_polled(self, machine_id: str, *, now: float) -> None:
        self.db.execute(
            "INSERT INTO replay_machines (machine_id, polled_at) VALUES (?, ?) "
            "ON CONFLICT (machine_id) DO UPDATE SET polled_at = excluded.polled_at",
            (machine_id, now),
        )

    def machine_screen(
        self, machine_id: str, *, now: float, window_title: str | None, size: tuple[int, int] | None, png: bytes
    ) -> None:
        w, h = size or (None, None)
        self.db.execute(
            "INSERT INTO replay_machines (machine_id, reported_at, window_title, screen_w, screen_h, screenshot) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (machine_id) DO UPDATE SET reported_at = excluded.reported_at, "
            "window_title = excluded.window_title, screen_w = excluded.screen_w, screen_h = excluded.screen_h, "
            "screenshot = excluded.screenshot",
            (machine_id, now, window_title, w, h, png),
        )

    def get_machine(self, machine_id: str) -> MachineRow | None:
        row = self.db.query_one("SELECT * FROM replay_machines WHERE machine_id = ?", (machine_id,))
        if row is None:
            return None
        out = dict(row)
        if out.get("screenshot") is not None:
            out["screenshot"] = bytes(out["screenshot"])
        return MachineRow(**out)

    # --- actions ----------------------------------------------------------------------------
    def get_action(self, replay_id: str, action_id: str) -> ActionRow | None:
        return _decode(
            ActionRow,
            self.db.query_one(
                "SELECT * FROM replay_actions WHERE replay_id = ? AND action_id = ?", (replay_id, action_id)
            ),
        )

    def actions(self, replay_id: str) -> list[ActionRow]:
        rows = self.db.query("SELECT * FROM replay_actions WHERE replay_id = ? ORDER BY seq", (replay_id,))
        return _decoded(ActionRow, rows)

    def first_open_action(self, replay_id: str) -> ActionRow | None:
        return _decode(
            ActionRow,
            self.db.query_one(
                "SELECT * FROM replay_actions WHERE replay_id = ? "
                "AND state IN ('PENDING','DISPATCHED','ORPHAN','HELD') ORDER BY seq LIMIT 1",
                (replay_id,),
            ),
        )

    def next_seq_after(self, replay_id: str, seq: float) -> float | None:
        row = self.db.query_one(
            "SELECT MIN(seq) AS s FROM replay_actions WHERE replay_id = ? AND seq > ?", (replay_id, seq)
        )
        return None if row is None or row["s"] is None else float(row["s"])

    def inflight_for_machine(self, machine_id: str) -> list[ActionRow]:
        rows = self.db.query(
            "SELECT a.* FROM replay_actions a JOIN replay_runs r ON r.replay_id = a.replay_id "
            "WHERE a.state = 'DISPATCHED' AND a.machine_id = ? AND r.state = 'running' ORDER BY a.dispatched_at",
            (machine_id,),
        )
        return _decoded(ActionRow, rows)

    def expired_leases(self, now: float, limit: int = 500) -> list[LeaseRow]:
        rows = self.db.query(
            "SELECT replay_id, action_id, attempt_id FROM replay_actions "
            "WHERE state = 'DISPATCHED' AND lease_until < ? ORDER BY lease_until LIMIT ?",
            (now, limit),
        )
        return _decoded(LeaseRow, rows)

    def update_action(
        self,
        replay_id: str,
        action_id: str,
        *,
        expect_states: Sequence[str],
        expect_attempt: str | object | None,
        now: float,
        **changes: Any,
    ) -> bool:
        """CAS on (state, attempt_id). `expect_attempt=ANY` skips the attempt check."""
        _checked(ActionRow, changes)
        sets = ", ".join(f"{k} = ?" for k in changes)
        sql = (
            f"UPDATE replay_actions SET {sets}{', ' if sets else ''}updated_at = ? "
            f"WHERE replay_id = ? AND action_id = ? AND state IN ({', '.join('?' for _ in expect_states)})"
        )
        params: list[Any] = [_encode(v, k) for k, v in changes.items()] + [now, replay_id, action_id, *expect_states]
        if expect_attempt is not ANY:
            sql += " AND attempt_id IS ?"
            params.append(expect_attempt)
        return self.db.execute(sql, params) == 1

    def abandon_open(self, replay_id: str, *, now: float, outcome: str, keep_inflight: bool) -> int:
        states = ("PENDING", "ORPHAN", "HELD") if keep_inflight else ("PENDING", "DISPATCHED", "ORPHAN", "HELD")
        return self.db.execute(
            f"UPDATE replay_actions SET state = 'ABANDONED', outcome = COALESCE(outcome, ?), resend_allowed = 0, "
            "screen_before = NULL, "
            f"updated_at = ? WHERE replay_id = ? AND state IN ({', '.join('?' for _ in states)})",
            (outcome, now, replay_id, *states),
        )

    # --- attempts (retry bookkeeping, purged at completion) ------------------------------------
    def add_attempt(self, row: AttemptRow) -> None:
        with self.db.transaction() as conn:
            self._insert(conn, "replay_attempts", row)

    def get_attempt(self, attempt_id: str) -> AttemptRow | None:
        return _decode(
            AttemptRow, self.db.query_one("SELECT * FROM replay_attempts WHERE attempt_id = ?", (attempt_id,))
        )

    def set_attempt_status(self, attempt_id: str, status: str) -> None:
        self.db.execute("UPDATE replay_attempts SET status = ? WHERE attempt_id = ?", (status, attempt_id))

    def purge_attempts(self, replay_id: str) -> int:
        return self.db.execute("DELETE FROM replay_attempts WHERE replay_id = ?", (replay_id,))

    def scrub_secrets(self, replay_id: str) -> int:
        """Once a replay has ended: drop secret values ({{secret:…}} params, masked text) from its rows."""
        changed, scrubbed_run = 0, False
        with self.db.transaction() as conn:
            run = conn.execute("SELECT params, variables FROM replay_runs WHERE replay_id = ?", (replay_id,)).fetchone()
            if run is not None:
                params, variables = (json.dumps(redact(json.loads(run[k] or "{}"))) for k in ("params", "variables"))
                if (params, variables) != (run["params"], run["variables"]):
                    scrubbed_run = True
                conn.execute(
                    "UPDATE replay_runs SET params = ?, variables = ? WHERE replay_id = ?",
                    (params, variables, replay_id),
                )
            for row in conn.execute(
                "SELECT action_id, params FROM replay_actions WHERE replay_id = ?", (replay_id,)
            ).fetchall():
                action_params = json.loads(row["params"] or "{}")
                if action_params.get("secret") and action_params.get("text") != REDACTED:
                    action_params["text"] = REDACTED
                    conn.execute(
                        "UPDATE replay_actions SET params = ? WHERE replay_id = ? AND action_id = ?",
                        (json.dumps(action_params), replay_id, row["action_id"]),
                    )
                    changed += 1
        if changed or scrubbed_run:
            self.db.forget_scrubbed()  # no copy of the values left in the write-ahead log
        return changed

    def count_attempts(self, replay_id: str) -> int:
        row = self.db.query_one("SELECT COUNT(*) AS n FROM replay_attempts WHERE replay_id = ?", (replay_id,))
        return int(row["n"]) if row else 0

    # --- reports ----------------------------------------------------------------------------
    def add_report(self, row: ReportRow) -> bool:
        """Insert a report row; False when an accepted one of that kind exists for the attempt."""
        with self.db.transaction() as conn:
            return self._insert(conn, "replay_reports", row, or_nothing=True) == 1

    def has_accepted(self, replay_id: str, action_id: str, attempt_id: str, kind: str) -> bool:
        return (
            self.db.query_one(
                "SELECT 1 FROM replay_reports WHERE replay_id = ? AND action_id = ? AND attempt_id = ? AND kind = ? "
                "AND status = 'accepted'",
                (replay_id, action_id, attempt_id, kind),
            )
            is not None
        )

    def reports(self, replay_id: str, action_id: str | None = None) -> list[ReportRow]:
        if action_id is None:
            rows = self.db.query("SELECT * FROM replay_reports WHERE replay_id = ? ORDER BY id", (replay_id,))
        else:
            rows = self.db.query(
                "SELECT * FROM replay_reports WHERE replay_id = ? AND action_id = ? ORDER BY id", (replay_id, action_id)
            )
        return _decoded(ReportRow, rows)

    def known_action(self, replay_id: str, action_id: str) -> bool:
        return (
            self.db.query_one(
                "SELECT 1 FROM replay_actions WHERE replay_id = ? AND action_id = ?", (replay_id, action_id)
            )
            is not None
        )

    # --- target memory ------------------------------------------------------------------------
    def memory_get(self, machine_id: str, signature: str, key: str) -> MemoryRow | None:
        row = self.db.query_one(
            "SELECT * FROM replay_memory WHERE machine_id = ? AND signature = ? AND target_key = ?",
            (machine_id, signature, key),
        )
        return _decode(MemoryRow, row)

    def memory_put(
        self, machine_id: str, signature: str, key: str, *, x: int, y: int, successes: int, failures: int, now: float
    ) -> None:
        self.db.execute(
            "INSERT INTO replay_memory(machine_id, signature, target_key, x, y, successes, failures, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(machine_id, signature, target_key) DO UPDATE SET "
            "x = excluded.x, y = excluded.y, successes = excluded.successes, failures = excluded.failures, "
            "updated_at = excluded.updated_at",
            (machine_id, signature, key, x, y, successes, failures, now),
        )
