"""Shadow: ingestion throughput and get_understanding latency on a 500-event session.

The service runs over a SQLite file (WAL, synchronous=FULL) in a temporary folder, with a
fake OCR engine (OCR cost is measured by the vision benchmarks; here it would only add a
constant per click without a UIA name). Options: `--events N` (default 500). A session 4N
events long shows that the per-event cost does not grow with the session.
"""

from __future__ import annotations

import base64
import tempfile
import time
from pathlib import Path
from typing import Any

from rpa_mcp.bench import assets, summary, timings
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.store.db import Database
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.testing import FakeClock, FakeOcr
from rpa_mcp.vision.ocr import OcrLine


def _screenshot_b64() -> str:
    data = assets().png("dossier.png")
    return base64.b64encode(data).decode("ascii")


def session_events(n: int, session: str, *, shot_every: int = 0, shot: str = "") -> list[dict[str, Any]]:
    """A plausible stream: focus, click a field (UIA), type, Enter, click a tab (no UIA), ctrl+s, scroll."""
    pattern: list[dict[str, Any]] = [
        {"type": "focus", "window_title": "MédiDossier - Recherche - Microsoft Edge", "app": "msedge.exe"},
        {"type": "click", "x": 700, "y": 300, "element": {"name": "Rechercher un patient", "role": "Edit"}},
        {"type": "type", "text": "DURAND Alice"},
        {"type": "key", "keys": "enter"},
        {"type": "click", "x": 436, "y": 24},
        {"type": "key", "keys": "ctrl+s"},
        {"type": "scroll", "x": 900, "y": 500, "delta": -120},
    ]
    out = []
    for i in range(n):
        ev = {
            "session_id": session,
            "machine_id": "BENCH-PC",
            "ts": 1_800_000_000.0 + i * 1.5,
            "window_title": "MédiDossier - DURAND Alice - Microsoft Edge",
            "app": "msedge.exe",
            "event_id": f"{session}-{i}",
        } | pattern[i % len(pattern)]
        if shot_every and i % shot_every == 0:
            ev["screenshot"] = shot
        out.append(ev)
    return out


def _service(folder: Path, name: str) -> ShadowService:
    traces = TraceStore(Database(folder / f"{name}.sqlite3"))
    return ShadowService(traces, FakeOcr(lines=[OcrLine("Imagerie", (120, 12, 64, 20), 0.9)]), FakeClock())


def _throughput(service: ShadowService, events: list[dict[str, Any]], batch: int) -> tuple[float, list[float]]:
    per_call = []
    start = time.perf_counter()
    for i in range(0, len(events), batch):
        t0 = time.perf_counter()
        service.ingest(events[i : i + batch])
        per_call.append((time.perf_counter() - t0) * 1000)
    return len(events) / (time.perf_counter() - start), per_call


def run(argv: list[str]) -> str:
    n = int(argv[argv.index("--events") + 1]) if "--events" in argv else 500
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plain = _service(folder, "plain")
        rate, calls = _throughput(plain, session_events(n, "plain"), 1)
        lines.append(f"ingest, 1 event per call, no screenshot      {rate:8.0f} events/s   {summary(calls)}")

        # The observer's steps are stored one row each: the cost per event must not grow with the session.
        long_run = _service(folder, "long")
        _, calls = _throughput(long_run, session_events(4 * n, "long"), 1)
        lines.append(
            f"ingest, 1 event per call, events {3 * n}..{4 * n} of a {4 * n}-event session        "
            f"{summary(calls[3 * n :])}"
        )

        batched = _service(folder, "batched")
        rate, calls = _throughput(batched, session_events(n, "batched"), 50)
        lines.append(f"ingest, 50 events per call, no screenshot    {rate:8.0f} events/s   {summary(calls)}")

        shot = _screenshot_b64()
        shots = _service(folder, "shots")
        m = max(50, n // 5)
        rate, calls = _throughput(shots, session_events(m, "shots", shot_every=1, shot=shot), 1)
        lines.append(
            f"ingest, 1 event per call, each with a 1080p PNG screenshot {rate:6.1f} events/s   {summary(calls)}"
        )

        mixed = _service(folder, "mixed")
        rate, calls = _throughput(mixed, session_events(n, "mixed", shot_every=7, shot=shot), 1)
        lines.append(f"ingest, 1 event per call, a screenshot every 7 events {rate:6.1f} events/s   {summary(calls)}")

        # get_understanding on an n-event session
        restarted = _service(folder, "plain")  # a new service over the same file: nothing cached
        t0 = time.perf_counter()
        steps = len(restarted.understanding("plain")["steps"])
        cold = (time.perf_counter() - t0) * 1000
        lines.append(f"get_understanding, {n} events -> {steps} steps, after a restart (cold): {cold:.1f} ms")
        lines.append(
            f"get_understanding, {n} events, unchanged (warm):   "
            f"{summary(timings(lambda: restarted.understanding('plain'), repeat=50))}"
        )
        counter = iter(range(10_000))

        def one_more() -> None:
            i = next(counter)
            restarted.ingest(
                [
                    {
                        "session_id": "plain",
                        "machine_id": "BENCH-PC",
                        "ts": 1_900_000_000.0 + i,
                        "type": "click",
                        "x": 10,
                        "y": 10,
                        "element": {"name": f"B{i}"},
                    }
                ]
            )
            restarted.understanding("plain")

        lines.append(f"ingest 1 event + get_understanding (live polling): {summary(timings(one_more, repeat=50))}")
        server_time = restarted.understanding("plain")["server_time"]
        lines.append(
            f"get_understanding since_ts (nothing new):         "
            f"{summary(timings(lambda: restarted.understanding('plain', since_ts=server_time), repeat=50))}"
        )
    return "\n".join(lines)
