"""Target memory: where a target was clicked successfully, per workstation and screen signature.

An entry belongs to the machine it was learned on and is read for that machine only (`machine_id`):
another workstation's screens are neither used nor revealed, and a new workstation learns its own
spots. Without a machine (None) nothing is read or recorded.
Signature = first 16 hex of sha256(normalized window title). A position is used once it
has 2 validated successes and a good reliability; each failure lowers the reliability.
Before that, the last validated spot only tells the OCR where to read first (`last_success`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.replay.ports import ReplayStore
from rpa_mcp.replay.rows import MemoryRow


@dataclass(frozen=True)
class MemoryHit:
    x: int
    y: int
    successes: int
    failures: int
    reliability: float
    signature: str
    key: str


class TargetMemory:
    def __init__(
        self,
        store: ReplayStore,
        time: m.ServerTime,
        *,
        trusted_after: int = 2,
        min_reliability: float = 0.6,
        same_spot_px: int = 25,
    ) -> None:
        self.store = store
        self.time = time
        self.trusted_after = trusted_after
        self.min_reliability = min_reliability
        self.same_spot_px = same_spot_px

    @staticmethod
    def reliability(successes: int, failures: int) -> float:
        total = successes + 2 * failures
        return successes / total if total else 0.0

    def _row(
        self, machine_id: str | None, window_title: str | None, target: Mapping[str, Any]
    ) -> tuple[MemoryRow | None, str, str]:
        sig, key = m.screen_signature(window_title), m.target_key(target)
        return (self.store.memory_get(machine_id, sig, key) if machine_id else None), sig, key

    def lookup(self, machine_id: str | None, window_title: str | None, target: Mapping[str, Any]) -> MemoryHit | None:
        """A trusted position remembered on this machine, or None (a miss costs one indexed read)."""
        row, sig, key = self._row(machine_id, window_title, target)
        if row is None:
            return None
        rel = self.reliability(row["successes"], row["failures"])
        if row["successes"] < self.trusted_after or rel < self.min_reliability:
            return None
        return MemoryHit(row["x"], row["y"], row["successes"], row["failures"], rel, sig, key)

    def last_success(
        self, machine_id: str | None, window_title: str | None, target: Mapping[str, Any]
    ) -> MemoryHit | None:
        """Where the target was last clicked on this machine with a validated success, trusted or not
        yet (None when it never was, or when failures brought its reliability under the minimum)."""
        row, sig, key = self._row(machine_id, window_title, target)
        if row is None or row["successes"] < 1:
            return None
        rel = self.reliability(row["successes"], row["failures"])
        if rel < self.min_reliability:
            return None
        return MemoryHit(row["x"], row["y"], row["successes"], row["failures"], rel, sig, key)

    def record_success(
        self, machine_id: str | None, window_title: str | None, target: Mapping[str, Any], position: Sequence[int]
    ) -> None:
        if not machine_id:
            return
        row, sig, key = self._row(machine_id, window_title, target)
        x, y = int(position[0]), int(position[1])
        if row is None or abs(row["x"] - x) > self.same_spot_px or abs(row["y"] - y) > self.same_spot_px:
            successes, failures = 1, 0  # a new spot starts over
        else:
            successes, failures = row["successes"] + 1, row["failures"]
        self.store.memory_put(
            machine_id, sig, key, x=x, y=y, successes=successes, failures=failures, now=self.time.now()
        )

    def record_failure(self, machine_id: str | None, window_title: str | None, target: Mapping[str, Any]) -> None:
        row, sig, key = self._row(machine_id, window_title, target)
        if row is None or not machine_id:
            return
        self.store.memory_put(
            machine_id,
            sig,
            key,
            x=row["x"],
            y=row["y"],
            successes=row["successes"],
            failures=row["failures"] + 1,
            now=self.time.now(),
        )
