"""`rpa-mcp bench validator`: per-checker latency on 1920x1080 frames, verdict accuracy on the fixture pairs.

Targets (SPEC §11): PixelDiff <= 15 ms, OcrRoi <= 80 ms, TitleBar <= 130 ms, JsonSchema <= 10 ms.
Each checker is timed on a fresh context (no memoised diff or OCR), frames decoded once.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from rpa_mcp.bench import fixtures_dir, summary, timings
from rpa_mcp.settings import shipped_dir
from rpa_mcp.validation import Expected, Observed, Target, Validator, load_validator_matrix
from rpa_mcp.validation.checkers import ALL_CHECKERS, Checker
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.matrix import MATRIX_FILE
from rpa_mcp.validation.model import CheckResult
from rpa_mcp.vision.images import decode_image
from rpa_mcp.vision.ocr import OcrEngine, RapidOcrEngine

TARGETS_MS = {"PixelDiffChecker": 15, "OcrRoiChecker": 80, "TitleBarChecker": 130, "JsonSchemaChecker": 10}
ACTION_OF_FIXTURE = {"click": "click_anchor"}
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


def _check_once(checker: Checker, make: Callable[[], CheckContext], params: dict[str, Any]) -> CheckResult:
    """One timed call on a fresh context, so no memoised diff or OCR is reused."""
    return checker.check(make(), "bench", params)


def _load(folder: Path, name: str) -> np.ndarray:
    return decode_image((folder / "png" / name).read_bytes())


def _pairs(folder: Path) -> list[dict[str, Any]]:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return [im for im in manifest["images"] if im["kind"] == "pair_before"]


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench validator")
    parser.add_argument("--repeat", type=int, default=30, help="timed calls per checker")
    parser.add_argument("--no-dialogs", action="store_true", help="do not wire the dialogs classifier")
    args = parser.parse_args(argv)
    folder = fixtures_dir()
    ocr: OcrEngine = RapidOcrEngine()
    matrix = load_validator_matrix(shipped_dir("catalog") / MATRIX_FILE)
    locator = None
    if not args.no_dialogs:
        from rpa_mcp.dialogs.service import DialogService
        from rpa_mcp.validation_adapters import DialogServiceLocator

        locator = DialogServiceLocator(DialogService.from_catalog_dir(shipped_dir("catalog"), ocr))
    validator = Validator(matrix, ocr, dialog_locator=locator)
    validator.warm_up()
    lines = [f"validator benchmark — fixtures {folder}", ""]

    # --- per checker, 1920x1080 frames ---------------------------------------------------
    tab_before, tab_after = (
        _load(folder, "p01_tab_switch_imagerie_ok_before.png"),
        _load(folder, "p01_tab_switch_imagerie_ok_after.png"),
    )
    save_before, save_after = (
        _load(folder, "p04_save_notepad_star_fr_before.png"),
        _load(folder, "p04_save_notepad_star_fr_after.png"),
    )
    dlg_before, dlg_after = (
        _load(folder, "p07_dialog_closed_fr_before.png"),
        _load(folder, "p07_dialog_closed_fr_after.png"),
    )
    tab = Target("Imagerie", (318, 8, 236, 32))
    title_box = Target(None, (293, 78, 239, 17))

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
            save_before, save_after, title_box, Expected(window_title="CR_consultation_DURAND.txt - Bloc-notes")),
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
            dlg_before, dlg_after, Target("Annuler", (1068, 533, 75, 23))), {}),
        ("SaveSuccessChecker", "notepad title '*' gone", lambda: ctx(save_before, save_after, Target()), {}),
    ]  # fmt: skip
    if locator is None:
        cases = [c for c in cases if "classifier wired" not in c[1]]
    lines.append("per checker (fresh context per call: no memoised diff/OCR)")
    for name, what, make, params in cases:
        checker = ALL_CHECKERS[name]
        values = timings(functools.partial(_check_once, checker, make, params), repeat=args.repeat)
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
    pairs = _pairs(folder)
    for with_bbox in (True, False):
        what = "target bbox given" if with_bbox else "no bbox: label + click point (located by OCR)"
        lines.append(f"  -- {what}")
        correct = 0
        totals: list[float] = []
        for image in sorted(pairs, key=lambda im: im["pair"]["pair_id"]):
            pair = image["pair"]
            action = pair["action"]
            before = decode_image((folder / image["file"]).read_bytes())
            after = decode_image((folder / pair["other_file"]).read_bytes())
            if with_bbox:
                target = Target(action["target_label"], tuple(action["target_bbox"]))
            else:
                target = Target(action["target_label"], None, tuple(action["click_point"]))
            started = time.perf_counter()
            result = validator.validate(ACTION_OF_FIXTURE.get(action["type"], action["type"]), before, after, target)
            elapsed = (time.perf_counter() - started) * 1000
            totals.append(elapsed)
            want = (pair["expected"]["verdict"], pair["expected"]["failure_category"])
            got = (result.verdict.value, result.failure_category.value if result.failure_category else None)
            correct += want == got
            mark = "ok " if want == got else "BAD"
            lines.append(
                f"  {mark} {pair['pair_id']:38} {got[0]:9} {got[1] or '':18} expected {want[0]} {want[1] or ''}"
                f"  ({elapsed:6.1f} ms, rule {result.rule})"
            )
        lines.append(f"  accuracy {correct}/{len(pairs)}; whole validation {summary(totals)}")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - manual use
    import sys

    print(run(sys.argv[1:]))
