"""The replay area's schema steps: runs, actions, attempts, reports, machines, target memory."""

from __future__ import annotations

from rpa_mcp.store.db import Migrations, postgres_ddl

_V1 = """
    CREATE TABLE replay_runs (
        replay_id TEXT PRIMARY KEY,
        competence TEXT NOT NULL,
        version INTEGER,
        machine_id TEXT,
        state TEXT NOT NULL,
        pause_reason TEXT,
        pause_detail TEXT,
        params TEXT NOT NULL DEFAULT '{}',
        variables TEXT NOT NULL DEFAULT '{}',
        steps_total INTEGER NOT NULL,
        created_by TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL,
        last_window_title TEXT,
        last_screenshot BLOB,
        last_screenshot_at REAL,
        rev INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX replay_runs_machine ON replay_runs(machine_id, state);
    CREATE INDEX replay_runs_state ON replay_runs(state, created_at);
    CREATE TABLE replay_actions (
        replay_id TEXT NOT NULL REFERENCES replay_runs(replay_id) ON DELETE CASCADE,
        action_id TEXT NOT NULL,
        seq REAL NOT NULL,
        step_index INTEGER NOT NULL,
        intent TEXT,
        action_type TEXT NOT NULL,
        target TEXT,
        params TEXT NOT NULL DEFAULT '{}',
        expected TEXT NOT NULL DEFAULT '{}',
        idempotent INTEGER NOT NULL DEFAULT 0,
        success_strict INTEGER NOT NULL DEFAULT 0,
        server_side INTEGER NOT NULL DEFAULT 0,
        max_resends INTEGER NOT NULL,
        origin TEXT NOT NULL DEFAULT 'workflow',
        state TEXT NOT NULL,
        attempt_id TEXT,
        dispatches INTEGER NOT NULL DEFAULT 0,
        resends INTEGER NOT NULL DEFAULT 0,
        resend_allowed INTEGER NOT NULL DEFAULT 0,
        journal TEXT NOT NULL DEFAULT '',
        protocol_version INTEGER NOT NULL DEFAULT 1,
        machine_id TEXT,
        dispatched_at REAL,
        lease_until REAL,
        not_after REAL,
        outcome TEXT,
        warning TEXT,
        error TEXT,
        result TEXT,
        verdict TEXT,
        evidence TEXT,
        updated_at REAL NOT NULL,
        PRIMARY KEY (replay_id, action_id)
    );
    CREATE INDEX replay_actions_open ON replay_actions(replay_id, state, seq);
    CREATE INDEX replay_actions_lease ON replay_actions(state, lease_until);
    CREATE TABLE replay_attempts (
        attempt_id TEXT PRIMARY KEY,
        replay_id TEXT NOT NULL,
        action_id TEXT NOT NULL,
        n INTEGER NOT NULL,
        machine_id TEXT,
        dispatched_at REAL NOT NULL,
        status TEXT NOT NULL
    );
    CREATE INDEX replay_attempts_action ON replay_attempts(replay_id, action_id);
    CREATE TABLE replay_reports (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        replay_id TEXT NOT NULL,
        action_id TEXT NOT NULL,
        attempt_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        received_at REAL NOT NULL,
        body TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX replay_reports_action ON replay_reports(replay_id, action_id);
    CREATE UNIQUE INDEX replay_reports_once ON replay_reports(replay_id, action_id, attempt_id, kind)
        WHERE status = 'accepted' AND kind IN ('receipt', 'start', 'result');
    CREATE TABLE replay_memory (
        signature TEXT NOT NULL,
        target_key TEXT NOT NULL,
        x INTEGER NOT NULL,
        y INTEGER NOT NULL,
        successes INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL,
        PRIMARY KEY (signature, target_key)
    )
    """
# The outcome word and evidence digest of an ended run; what the server last knew of each workstation.
_V2 = """
    ALTER TABLE replay_runs ADD COLUMN outcome TEXT;
    ALTER TABLE replay_runs ADD COLUMN evidence_sha256 TEXT;
    CREATE TABLE replay_machines (
        machine_id TEXT PRIMARY KEY,
        polled_at REAL,
        reported_at REAL,
        window_title TEXT,
        screen_w INTEGER,
        screen_h INTEGER,
        screenshot BLOB
    )
    """
# A run's planned read-back and its result.
_V3 = """
    ALTER TABLE replay_runs ADD COLUMN readback TEXT;
    ALTER TABLE replay_runs ADD COLUMN readback_result TEXT
    """
# A person's `retry`: the attempt they saw, sent to the agent as its consent to run the action again.
_V4 = """
    ALTER TABLE replay_actions ADD COLUMN retry_of TEXT
    """
# The target memory per workstation: an entry is used on the machine it was learned on only. Entries
# from before carry no machine: they are dropped (used by nobody; each workstation learns its own spots).
_V5 = """
    DROP TABLE replay_memory;
    CREATE TABLE replay_memory (
        machine_id TEXT NOT NULL,
        signature TEXT NOT NULL,
        target_key TEXT NOT NULL,
        x INTEGER NOT NULL,
        y INTEGER NOT NULL,
        successes INTEGER NOT NULL DEFAULT 0,
        failures INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL,
        PRIMARY KEY (machine_id, signature, target_key)
    )
    """
# The screen before a typing step whose text was still being drawn, kept until a later look judges the step.
_V6 = """
    ALTER TABLE replay_actions ADD COLUMN screen_before BLOB
    """
_STEPS = (_V1, _V2, _V3, _V4, _V5, _V6)
MIGRATIONS = Migrations(sqlite=_STEPS, postgres=tuple(postgres_ddl(step) for step in _STEPS))
