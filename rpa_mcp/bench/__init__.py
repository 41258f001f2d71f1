"""`rpa-mcp bench [NAME...]`: medians and ratios measured in one run.

A benchmark is a module `rpa_mcp.bench.<name>` with `run(argv: list[str]) -> str` that
returns a printable report. Never a timed assertion in a test: speed is measured here.
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rpa_mcp.screens.truth import ScreenSet

BENCHMARKS: dict[str, str] = {
    "mcp": "MCP tool-call overhead against a bare SDK server (ratio; sequential, 8 concurrent)",
    "answers": "bytes of MCP answers: tools/list per role and toolset, resolve_dialog with its crop",
    "shadow": "event ingestion throughput and get_understanding latency on a 500-event session",
    "dialogs": "dialog classifier and resolver on the committed screens: accuracy, box IoU, latency",
    "dialogs-mcp": "classify_dialog over MCP (HTTP) against in process, the server's engines: fast-path latency",
    "validator": "latency of each post-action checker on 1920x1080 frames, verdict accuracy on the pairs",
    "replay": "dispatch latency with the long poll, server overhead per step, target-memory lookups",
    "console": "replay timeline page in Chromium: page weight, first render, report-to-screen delay",
    "replicas": "replay transport on SQLite and on PostgreSQL with one and three replicas",
    "hardening": "memory under near-limit images, /healthz latency under hostile input, ingest throughput",
    "segmentation": "proposed steps against the labelled demonstrations: precision, recall",
    "external-demos": "learning on demonstrations recorded by an independent author, through the public surfaces",
    "desktop": "the replay loop on a real (virtual) X11 desktop: screenshot cost, click-to-click time",
    "apps": "learning and replay on applications nobody tuned to (GTK, Tk, web): recall, completed, wrong",
    "programs": "real programs on Xvfb through the public tools: ids, policies, verdicts per program",
    "accuracy": "dialogs, verdicts, segmentation: tuning and evaluation sets side by side, real software apart",
    "dialogs-public": "resolve_dialog over MCP per set: one frame, then with the frame before and the window",
    "sizing": "workstations replaying validated 1080p steps at once on one server: steps/s, CPU per step, memory",
}
"""Every benchmark by name, with what it measures in a few words (`rpa-mcp bench --help` lists them)."""


def timings(fn: Callable[[], Any], *, repeat: int, warmup: int = 2) -> list[float]:
    """Milliseconds per call, after warm-up calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def summary(values: Sequence[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):8.3f} ms  p95 {p95:8.3f} ms  p99 {p99:8.3f} ms  (n={len(ordered)})"


def corpus_dir() -> Path:
    """The committed screens of a source checkout (tests/fixtures/screens, with their ground truth)."""
    folder = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "screens"
    if not any(folder.glob("*.json")):
        raise FileNotFoundError(
            f"no screen corpus at {folder}: this benchmark reads the committed screens of a source checkout "
            "(git clone the project; `python -m rpa_mcp.screens build` regenerates them)"
        )
    return folder


def corpus() -> ScreenSet:
    return ScreenSet(corpus_dir())


def assets() -> ScreenSet:
    """The demo desktop's frames, shipped inside the package (always present)."""
    from rpa_mcp.agent_sim.fixtures import ASSETS_DIR

    return ScreenSet(ASSETS_DIR)


def run_benchmarks(names: Sequence[str], argv: Sequence[str]) -> int:
    chosen = list(names) or list(BENCHMARKS)
    unknown = [n for n in chosen if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark {', '.join(unknown)}; the benchmarks are {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    for name in chosen:
        module = importlib.import_module(f"rpa_mcp.bench.{name.replace('-', '_')}")
        print(f"== {name}")
        print(module.run(list(argv)), flush=True)
    return 0
