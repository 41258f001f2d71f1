"""The replay store's rows, as frozen types: what the engine reads and what it inserts.

The engine reads attributes (`a.attempt_id`), so the type checker finds a misspelt column.
Changes go through the store's compare-and-set updates, which refuse a column these types do
not have. JSON columns (targets, params, verdicts...) are decoded values. Mapping-style reads
(`row["state"]`, `dict(row)`) remain for tests, benchmarks and templates, never the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any


class _Row:
    """Read-only mapping access over the fields (tests, templates)."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)

    def keys(self) -> list[str]:
        return [f.name for f in fields(self)]  # type: ignore[arg-type]  # every subclass is a dataclass

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.keys()

    def replace(self, **changes: Any) -> Any:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]  # a dataclass instance


@dataclass(frozen=True, slots=True)
class ReplayRow(_Row):
    replay_id: str
    competence: str
    version: int | None
    machine_id: str | None
    state: str
    steps_total: int
    created_at: float
    updated_at: float
    pause_reason: str | None = None
    pause_detail: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    created_by: str | None = None
    finished_at: float | None = None
    last_window_title: str | None = None
    last_screenshot: bytes | None = None
    last_screenshot_at: float | None = None
    rev: int = 0
    outcome: str | None = None  # the outcome word once the run ended (recorded once, with the audit row)
    evidence_sha256: str | None = None  # digest of its evidence bundle, recorded in the audit chain
    readback: dict[str, Any] | None = None  # the planned read-back {url, fields}, when the competence declares one
    readback_result: dict[str, Any] | None = None  # its result {status, detail, ...}, recorded once


@dataclass(frozen=True, slots=True)
class MachineRow(_Row):
    """What the server last knew of a workstation: its last poll, its last reported screen."""

    machine_id: str
    polled_at: float | None = None
    reported_at: float | None = None
    window_title: str | None = None
    screen_w: int | None = None
    screen_h: int | None = None
    screenshot: bytes | None = None


@dataclass(frozen=True, slots=True)
class ReplaySummary(_Row):
    """A replay as listed (no screenshot, no parameters)."""

    replay_id: str
    machine_id: str | None
    state: str
    competence: str = ""
    version: int | None = None
    pause_reason: str | None = None
    steps_total: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None
    variables: dict[str, Any] = field(default_factory=dict)
    outcome: str | None = None


@dataclass(frozen=True, slots=True)
class ActionRow(_Row):
    replay_id: str
    action_id: str
    seq: float
    step_index: int
    action_type: str
    max_resends: int
    state: str
    updated_at: float
    intent: str | None = None
    target: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    expected: dict[str, Any] = field(default_factory=dict)
    idempotent: int = 0
    success_strict: int = 0
    server_side: int = 0
    origin: str = "workflow"
    attempt_id: str | None = None
    dispatches: int = 0
    resends: int = 0
    resend_allowed: int = 0
    journal: str = ""
    protocol_version: int = 1
    machine_id: str | None = None
    dispatched_at: float | None = None
    lease_until: float | None = None
    not_after: float | None = None
    outcome: str | None = None
    warning: str | None = None
    error: str | None = None
    result: Any = None
    verdict: Any = None
    evidence: Any = None
    retry_of: str | None = None  # the attempt a person saw before answering `retry` (their consent to run it again)
    screen_before: bytes | None = None  # a step awaiting its later look: the screen before it (PNG)


@dataclass(frozen=True, slots=True)
class AttemptRow(_Row):
    attempt_id: str
    replay_id: str
    action_id: str
    n: int
    machine_id: str | None
    dispatched_at: float
    status: str


@dataclass(frozen=True, slots=True)
class ReportRow(_Row):
    replay_id: str
    action_id: str
    attempt_id: str
    kind: str
    status: str
    received_at: float
    body: dict[str, Any] = field(default_factory=dict)
    id: int | None = None


@dataclass(frozen=True, slots=True)
class LeaseRow(_Row):
    """An action whose lease ran out (the watchdog's listing)."""

    replay_id: str
    action_id: str
    attempt_id: str | None


@dataclass(frozen=True, slots=True)
class MemoryRow(_Row):
    machine_id: str
    signature: str
    target_key: str
    x: int
    y: int
    successes: int
    failures: int
    updated_at: float


def columns(row_type: type[_Row]) -> frozenset[str]:
    return frozenset(f.name for f in fields(row_type))  # type: ignore[arg-type]  # dataclass types only
