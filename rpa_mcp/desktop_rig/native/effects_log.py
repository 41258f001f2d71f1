"""The effects log the native test applications write: one JSON line per effect (a search, a record opened,
a save, a refused save). Imported by its sibling scripts, which run under the system Python, not the server's."""

from __future__ import annotations

import json
import time
from pathlib import Path


class Effects:
    """Append-only JSON lines: one per effect the application undergoes."""

    def __init__(self, path: Path | None) -> None:
        self.path, self.seq = path, 0
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.seq = len(path.read_text("utf-8").splitlines()) if path.exists() else 0

    def add(self, kind: str, **detail: object) -> None:
        self.seq += 1
        line = {"seq": self.seq, "at": time.time(), "kind": kind, "detail": detail}
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
