"""`rpa-mcp bench validator`: per-checker latency on 1920x1080 frames, verdict accuracy on the fixture pairs.

Targets: PixelDiff <= 15 ms, OcrRoi <= 80 ms, TitleBar <= 130 ms, JsonSchema <= 10 ms.
Each checker is timed on a fresh context (no memoised diff or OCR), frames decoded once.
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from rpa_mcp.bench import corpus, summary, timings
from rpa_mcp.bench.cases import pair_cases
from rpa_mcp.bootstrap import build_dialog_ocr, build_ocr
from rpa_mcp.settings import Settings, shipped_dir
from rpa_mcp.validation import Expected, Observed, Target, Validator, load_validator_matrix
from rpa_mcp.validation.checkers import ALL_CHECKERS, Checker
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.matrix import MATRIX_FILE
from rpa_mcp.validation.model import CheckResult
from rpa_mcp.vision.ocr import OcrEngine, RapidOcrEngine

TARGETS_MS = {"PixelDiffChecker": 15, "OcrRoiChecker": 80, "TitleBarChecker": 130, "JsonSchemaChecker": 10}
SCHEMA = {
    "type": "object",
    "required": ["ipp", "name", "results"],
    "properties": {
        "ipp": {"type": "string", "pattern": "^[0-9]{9}$"},
        "name": {"type": "string"},
        "results": {"type": "array", "items": {"type": "object", "properties": {"value": {"type": "number"}}}},
    },
}
OUTPUT = {"ipp": "000123456", "name": "DURAND Alice", "results": [{"value": 1240}, {"value": 36.9}]}


def _check_once(
    checker: Checker, make: Callable[[], CheckContext], params: dict[str, Any], cold: Callable[[], None]
) -> CheckResult:
    """One timed call on a fresh context and cold engines, so no memoised diff or OCR is reused."""
    cold()
    return checker.check(make(), "bench", params)


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench validator")
    parser.add_argument("--repeat", type=int, default=30, help="timed calls per checker")
    parser.add_argument("--no-dialogs", action="store_true", help="do not wire the dialogs classifier")
    args = parser.parse_args(argv)
    screens = corpus()
    ocr = build_ocr(Settings())
    dialog_ocr: OcrEngine = ocr
    matrix = load_validator_matrix(shipped_dir("catalog") / MATRIX_FILE)
    locator = None
    if not args.no_dialogs:
        from rpa_mcp.dialogs.service import DialogService
        from rpa_mcp.validation_adapters import DialogServiceLocator

        dialog_ocr = build_dialog_ocr(Settings(), ocr)  # as the server wires it (int8 where the CPU runs it fast)
        locator = DialogServiceLocator(DialogService.from_catalog_dir(shipped_dir("catalog"), dialog_ocr))
    validator = Validator(matrix, ocr, dialog_locator=locator, fast_ocr=dialog_ocr)
    validator.warm_up()

    def cold() -> None:
        for engine in (ocr, dialog_ocr):
            if isinstance(engine, RapidOcrEngine):
                engine.clear_cache()

    lines = [f"validator benchmark — screens {screens.root}", ""]

    # --- per checker, 1920x1080 frames ---------------------------------------------------
    tab_pair, save_pair, dlg_pair = (
        screens.pair(p) for p in ("p-tab-switch-ok", "p-save-notepad-fr", "p-dialog-closed-fr")
    )
    tab_before, tab_after = screens.image(tab_pair.before.file), screens.image(tab_pair.after.file)
    save_before, save_after = screens.image(save_pair.before.file), screens.image(save_pair.after.file)
    dlg_before, dlg_after = screens.image(dlg_pair.before.file), screens.image(dlg_pair.after.file)
    tab = Target(tab_pair.action.label, tab_pair.action.bbox)
    title_box = Target(None, save_pair.before.element("window-title").bbox)
    saved_title = save_pair.after.element("window-title").label
    dlg_target = Target(dlg_pair.action.label, dlg_pair.action.bbox)

    def ctx(
        before: np.ndarray,
        after: np.ndarray,
        target: Target,
        expected: Expected | None = None,
        *,
        dialogs: bool = False,
    ) -> CheckContext:
        return CheckContext(
            action_type="bench",
            before=before,
            after=after,
            target=target,
            expected=expected or Expected(),
            observed=Observed(),
            ocr=ocr,
            diff_settings=matrix.defaults.diff.settings(),
            dialog_locator=locator if dialogs else None,
        )

    cases: list[tuple[str, str, Callable[[], CheckContext], dict[str, Any]]] = [
        ("PixelDiffChecker", "tab switch, full frame", lambda: ctx(tab_before, tab_after, tab), {}),
        ("PhashChecker", "content under the tab strip", lambda: ctx(tab_before, tab_after, tab),
         {"region": "content_below_target"}),
        ("OcrRoiChecker", "tab label ROI (rec-only)", lambda: ctx(tab_before, tab_after, tab),
         {"frame": "after", "what": "target_label", "box": "tab"}),
        ("TitleBarChecker", "OCR of the title box", lambda: ctx(
            save_before, save_after, title_box, Expected(window_title=saved_title)),
         {"ocr": True}),
        ("JsonSchemaChecker", "extraction output", lambda: ctx(
            tab_before, tab_after, tab, Expected(json_schema=SCHEMA, output=OUTPUT, has_output=True)), {}),
        ("TabActiveChecker", "target tab active + label", lambda: ctx(tab_before, tab_after, tab), {"frame": "after"}),
        ("DialogPresenceChecker", "overlay heuristic (no classifier)", lambda: ctx(tab_before, tab_after, tab), {}),
        ("DialogPresenceChecker", "classifier wired, tab switch (gated)", lambda: ctx(
            tab_before, tab_after, tab, dialogs=True), {}),
        ("DialogPresenceChecker", "classifier wired, classifier: always", lambda: ctx(
            tab_before, tab_after, tab, dialogs=True), {"classifier": "always"}),
        ("DialogClosedChecker", "button region (no classifier)", lambda: ctx(
            dlg_before, dlg_after, dlg_target), {}),
        ("SaveSuccessChecker", "notepad title '*' gone", lambda: ctx(save_before, save_after, Target()), {}),
    ]  # fmt: skip
    if locator is None:
        cases = [c for c in cases if "classifier wired" not in c[1]]
    lines.append("per checker (fresh context per call: no memoised diff/OCR)")
    for name, what, make, params in cases:
        checker = ALL_CHECKERS[name]
        values = timings(functools.partial(_check_once, checker, make, params, cold), repeat=args.repeat)
        target_ms = TARGETS_MS.get(name)
        verdict = ""
        if target_ms is not None:
            median = sorted(values)[len(values) // 2]
            verdict = f"  target <= {target_ms} ms: {'OK' if median <= target_ms else 'OVER'}"
        lines.append(f"  {name:22} {what:34} {summary(values)}{verdict}")
    diff_only = timings(lambda: ctx(tab_before, tab_after, tab).change(), repeat=args.repeat)
    lines.append(f"  {'(change map alone)':22} {'absdiff+threshold+blobs':34} {summary(diff_only)}")

    # --- verdict accuracy over the pairs ---------------------------------------------------
    lines += ["", f"verdicts on the fixture pairs (dialogs classifier {'off' if locator is None else 'on'})"]
    pairs = sorted(pair_cases(screens), key=lambda c: c.truth.id)
    for with_bbox in (True, False):
        what = "target bbox given" if with_bbox else "no bbox: label + click point (located by OCR)"
        lines.append(f"  -- {what}")
        correct = 0
        totals: list[float] = []
        for case in pairs:
            pair, action = case.truth, case.truth.action
            target = Target(action.label, action.bbox) if with_bbox else Target(action.label, None, action.point)
            cold()
            started = time.perf_counter()
            result = validator.validate(action.type, case.before, case.after, target)
            elapsed = (time.perf_counter() - started) * 1000
            totals.append(elapsed)
            want = (pair.verdict, pair.failure_category)
            got = (result.verdict.value, result.failure_category.value if result.failure_category else None)
            correct += want == got
            mark = "ok " if want == got else "BAD"
            lines.append(
                f"  {mark} {pair.id:38} {got[0]:9} {got[1] or '':18} expected {want[0]} {want[1] or ''}"
                f"  ({elapsed:6.1f} ms, rule {result.rule})"
            )
        lines.append(f"  accuracy {correct}/{len(pairs)}; whole validation {summary(totals)}")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - manual use
    import sys

    print(run(sys.argv[1:]))
