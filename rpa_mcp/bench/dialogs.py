"""`rpa-mcp bench dialogs`: the dialog classifier and resolver on the committed screen corpus.

Per image: dialog id, decision, box IoU, latency, recognition calls. Totals: id accuracy, policy
correctness, IoU, latency median/p95 of the screenshot path (OpenCV locate + recognition of a few
lines; wall time, and process CPU time, which moves less with other processes' load), recognition
calls per frame, the title fast path, and every frame without a dialog that is reported as one.
Then classify_dialog over MCP against the same classification in process (rpa_mcp/bench/dialogs_mcp.py).
Options: --repeat N (screenshot timings per image, default 3), --no-mcp.
"""

from __future__ import annotations

import functools
import os
import resource
import statistics
from typing import Any

from rpa_mcp.bench import corpus, summary, timings
from rpa_mcp.bench.cases import frame_cases
from rpa_mcp.bootstrap import build_dialog_ocr, build_ocr
from rpa_mcp.dialogs import DialogService, effective_policy, load_dialog_catalog
from rpa_mcp.dialogs.locate import iou
from rpa_mcp.settings import Settings, shipped_dir
from rpa_mcp.vision.ocr import OcrLine, RapidOcrEngine


class _CountingOcr:
    """The real engine, counting recognition calls (the screenshot path's main cost; a batch is one)."""

    def __init__(self, engine: RapidOcrEngine) -> None:
        self.engine = engine
        self.calls = 0

    def read(self, image: Any) -> list[OcrLine]:
        self.calls += 1
        return self.engine.read(image)

    def read_line(self, image: Any) -> OcrLine | None:
        self.calls += 1
        return self.engine.read_line(image)

    def read_lines(self, images: Any) -> list[OcrLine | None]:
        self.calls += 1
        return self.engine.read_lines(images)


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _option(argv: list[str], name: str, default: int) -> int:
    if name in argv:
        return int(argv[argv.index(name) + 1])
    return default


def run(argv: list[str]) -> str:
    repeat = _option(argv, "--repeat", 3)
    screens = corpus()
    cases = frame_cases(screens)
    catalog = load_dialog_catalog(shipped_dir("catalog") / "dialogs.yaml")
    # as the server wires it (int8 where the CPU runs it fast, crops shared out between the CPUs)
    engine = build_dialog_ocr(Settings(), build_ocr(Settings()))
    assert isinstance(engine, RapidOcrEngine)
    ocr = _CountingOcr(engine)
    service = DialogService(catalog, ocr)

    def cold(image: Any, previous: Any) -> None:
        """One classification that reads every crop afresh (the engine remembers what crops read)."""
        engine.clear_cache()
        service.classify(image, previous=previous)

    service.classify(cases[0].image)  # warm-up: engine construction and first inference
    rows, lat_all, lat_1080, cpu_1080, calls_1080 = [], [], [], [], []
    ok_id = ok_policy = 0
    ious = []
    with_dialog = [c for c in cases if c.truth.dialog is not None]
    for case in with_dialog:
        truth = case.truth.dialog
        assert truth is not None
        decision = service.resolve(case.image, previous=case.previous)
        ocr.calls = 0
        times = timings(functools.partial(cold, case.image, case.previous), repeat=repeat, warmup=0)
        calls = ocr.calls // repeat
        lat_all += times
        if case.truth.size == (1920, 1080):
            lat_1080 += times
            calls_1080.append(calls)
            for _ in range(repeat):
                engine.clear_cache()
                start = _cpu_s()
                service.classify(case.image, previous=case.previous)
                cpu_1080.append((_cpu_s() - start) * 1000.0)
        expected_entry = catalog.get(truth.id)
        expected = effective_policy(expected_entry).policy if expected_entry else "pause"
        c = decision.classification
        box_iou = iou(c.bbox, truth.visible_bbox) if c.bbox else 0.0
        ious.append(box_iou)
        ok_id += c.dialog_id == truth.id
        ok_policy += decision.decision == expected
        rows.append(
            f"{'ok ' if c.dialog_id == truth.id else 'BAD'} {case.name[:42]:<42} "
            f"{truth.id:<26} -> {c.dialog_id:<26} {decision.decision:<5} (want {expected:<5}) "
            f"conf {c.confidence:4.2f} IoU {box_iou:4.2f} {statistics.median(times):6.1f} ms {calls:2d} rec "
            f"buttons {[b.label for b in c.buttons]}"
        )

    false_pos = []
    without = [c for c in cases if c.truth.dialog is None]
    for case in without:
        found = service.classify(case.image, previous=case.previous)
        if found.found:
            false_pos.append(f"{case.name} -> {found.dialog_id} conf {found.confidence:.2f} bbox {found.bbox}")

    titles = [c.truth.dialog.title for c in with_dialog if c.truth.dialog and c.truth.dialog.title]
    titles += ["*Untitled - Notepad", "Registry Editor", "Nothing like a dialog at all"]
    procs = [None, "consent.exe", "msedge.exe", "notepad.exe"]
    title_cases = [(t, p) for t in titles for p in procs]
    state = {"i": 0}

    def one_title() -> None:
        t, p = title_cases[state["i"] % len(title_cases)]
        state["i"] += 1
        service.classify(window_title=t, process=p)

    title_times = timings(one_title, repeat=5000, warmup=50)
    n = len(with_dialog)
    lines = [
        f"dialog frames: {n}  (repeat {repeat} per frame for timings)",
        *rows,
        "",
        f"dialog_id accuracy   {ok_id}/{n} = {ok_id / n:.1%}",
        f"policy correctness   {ok_policy}/{n} = {ok_policy / n:.1%}  (decision vs the catalog policy of the truth)",
        f"bbox IoU             min {min(ious):.3f}  median {statistics.median(ious):.3f}  "
        f"(>= 0.7: {sum(i >= 0.7 for i in ious)}/{n})",
        f"screenshot path      {summary(lat_all)}",
        f"  1920x1080 only     {summary(lat_1080)}",
        f"  1920x1080 CPU time {summary(cpu_1080)}  (process CPU, all threads)",
        f"  recognition calls  {statistics.median(calls_1080):.0f} per frame (median), {sum(calls_1080)} in all",
        f"title path           {summary(title_times)}",
        f"frames without a dialog seen as one: {len(false_pos)}/{len(without)}",
        *[f"  {f}" for f in false_pos],
    ]
    if "--no-mcp" not in argv:
        from rpa_mcp.bench import dialogs_mcp

        lines += ["", *dialogs_mcp.run(["--repeat", str(repeat)]).split("\n")]
    lines.append(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus (timings scale with it)")
    return "\n".join(lines)
