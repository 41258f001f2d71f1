"""The application's own record of what happened to it (one JSON line per effect).

Written by the demo application's server: saves (and saves it refused) and deletions when they reach it, and the
events the page reports (clicks, typed text, dialog answers, camera requests). Readers
count effects since a mark (`seq`), so one log serves several replays.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

KINDS = frozenset(
    {"click", "typed", "search", "open_record", "tab", "save", "refused", "delete", "dialog", "camera", "leave"}
    | {"login"}
)
MAX_DETAIL_CHARS = 2000


@dataclass(frozen=True)
class Effect:
    seq: int
    ts: float
    kind: str
    detail: dict[str, Any] = field(default_factory=dict)


class EffectsLog:
    """Thread-safe append-only log; `path` (JSONL) keeps it for other processes to read."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._effects: list[Effect] = []
        self._changed = threading.Condition(self._lock)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()

    def add(self, kind: str, **detail: Any) -> Effect:
        if kind not in KINDS:
            raise ValueError(f"unknown effect kind {kind!r} (known: {', '.join(sorted(KINDS))})")
        clean = {k: (v[:MAX_DETAIL_CHARS] if isinstance(v, str) else v) for k, v in detail.items()}
        with self._lock:
            effect = Effect(len(self._effects) + 1, time.time(), kind, clean)
            self._effects.append(effect)
            if self.path is not None:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(asdict(effect), ensure_ascii=False) + "\n")
            self._changed.notify_all()
        return effect

    def since(self, seq: int = 0, kind: str | None = None) -> list[Effect]:
        with self._lock:
            return [e for e in self._effects[seq:] if kind is None or e.kind == kind]

    @property
    def mark(self) -> int:
        """The current end of the log: effects after it have `seq > mark`."""
        with self._lock:
            return len(self._effects)

    def wait_for(self, predicate: Any, *, since: int = 0, timeout: float = 30.0) -> list[Effect]:
        """Block until `predicate(effects_since)` is true; returns those effects (TimeoutError after `timeout`)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                effects = self._effects[since:]
                if predicate(effects):
                    return list(effects)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    kinds = [f"{e.kind}:{e.detail}" for e in effects][-8:]
                    raise TimeoutError(f"the application log did not reach the expected state; last effects: {kinds}")
                self._changed.wait(remaining)
