"""Score the dialog classifier and the validator on a screen set against its ground truth.

Shared by `rpa-mcp bench accuracy` (tuning, evaluation and real-software sets side by side) and
the per-area benchmarks. Timings are CPU time of this process (they move less than wall time
on a shared machine), classification measured after the frames are decoded. `cold` (the OCR
engine's `clear_cache`) runs before each timed call: a figure never profits from what an
earlier frame of the set read (one validation still shares its reads between its checkers).
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rpa_mcp.bench.cases import frame_cases, pair_cases
from rpa_mcp.dialogs import DialogService, effective_policy
from rpa_mcp.dialogs.catalog import DialogCatalog
from rpa_mcp.dialogs.locate import iou
from rpa_mcp.screens.truth import ScreenSet
from rpa_mcp.validation import Expected, Observed, Target, Validator
from rpa_mcp.validation.model import VerdictKind

CATEGORY_NAMES = {"A": "system", "B": "browser", "C": "Easily", "D": "applications", "E": "unknown"}


def _cpu_ms() -> float:
    return time.process_time() * 1000.0


class _Timed:
    """CPU time of the process (every thread) and wall time of one call, in milliseconds."""

    def __enter__(self) -> _Timed:
        self._cpu, self._wall = _cpu_ms(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cpu, self.wall = _cpu_ms() - self._cpu, (time.perf_counter() - self._wall) * 1000.0


@dataclass
class DialogScores:
    n: int = 0  # frames with a dialog
    ids_ok: int = 0
    policy_ok: int = 0
    system: int = 0
    system_paused: int = 0
    unsafe_auto: list[str] = field(default_factory=list)
    ious: list[float] = field(default_factory=list)
    without: int = 0  # frames without a dialog
    false_positives: list[str] = field(default_factory=list)
    by_category: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    misses: list[str] = field(default_factory=list)
    ms_1080: list[float] = field(default_factory=list)
    wall_ms_1080: list[float] = field(default_factory=list)


def _nothing() -> None:
    return None


def score_dialogs(
    screens: ScreenSet, service: DialogService, catalog: DialogCatalog, *, cold: Callable[[], None] = _nothing
) -> DialogScores:
    out = DialogScores()
    for case in frame_cases(screens):
        truth = case.truth.dialog
        cold()
        with _Timed() as timed:
            decision = service.resolve(case.image, previous=case.previous)
        if case.truth.size == (1920, 1080):
            out.ms_1080.append(timed.cpu)
            out.wall_ms_1080.append(timed.wall)
        got = decision.classification
        if truth is None:
            out.without += 1
            if got.found:
                out.false_positives.append(f"{case.name} -> {got.dialog_id}")
            continue
        entry = catalog.get(truth.id)
        assert entry is not None, f"{case.name}: truth id {truth.id} is not in the catalog"
        out.n += 1
        right = got.dialog_id == truth.id
        out.ids_ok += right
        cat = out.by_category[entry.category]
        cat[0] += right
        cat[1] += 1
        want = effective_policy(entry).policy
        out.policy_ok += decision.decision == want
        if entry.category == "A":
            out.system += 1
            out.system_paused += decision.decision == "pause"
        if decision.decision == "auto" and (not right or want != "auto"):
            out.unsafe_auto.append(f"{case.name}: {truth.id} answered auto as {got.dialog_id}")
        out.ious.append(iou(got.bbox, truth.visible_bbox) if got.bbox else 0.0)
        if not right:
            out.misses.append(f"{case.name}: {truth.id} -> {got.dialog_id}")
    return out


@dataclass
class VerdictScores:
    n: int = 0
    ok_box: int = 0
    ok_nobox: int = 0
    by_category: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))
    false_success: list[str] = field(default_factory=list)  # SUCCESS where the truth is not
    misses: list[str] = field(default_factory=list)
    unscored: list[str] = field(default_factory=list)  # pairs whose target lies off the frame (a set's fault)
    ms_box_1080: list[float] = field(default_factory=list)
    ms_nobox_1080: list[float] = field(default_factory=list)
    ms_step_1080: list[float] = field(default_factory=list)  # with a box, as a replay step asks (crops unless SUCCESS)
    wall_ms_box_1080: list[float] = field(default_factory=list)
    wall_ms_nobox_1080: list[float] = field(default_factory=list)


def score_verdicts(screens: ScreenSet, validator: Validator, *, cold: Callable[[], None] = _nothing) -> VerdictScores:
    out = VerdictScores()
    for case in pair_cases(screens):
        pair, action = case.truth, case.truth.action
        if action.type not in validator.matrix.actions:
            continue
        observed = Observed(
            window_title_before=pair.observed.get("window_title_before"),
            window_title_after=pair.observed.get("window_title_after"),
            process_after=pair.observed.get("process_after"),
        )
        expected = Expected(window_title=action.expected_window_title, text=action.expected_text)
        want = (pair.verdict, pair.failure_category)
        if not target_on_frame(action.point, action.bbox, pair.after.size):
            out.unscored.append(f"{pair.id}: target {action.point or action.bbox} off the {pair.after.size} frame")
            continue
        out.n += 1
        cat = out.by_category[pair.category]
        cat[2] += 1
        for with_box in (True, False):
            target = Target(action.label, action.bbox) if with_box else Target(action.label, None, action.point)
            cold()
            with _Timed() as timed:
                verdict = validator.validate(action.type, case.before, case.after, target, expected, observed)
            if pair.before.size == (1920, 1080):
                (out.ms_box_1080 if with_box else out.ms_nobox_1080).append(timed.cpu)
                (out.wall_ms_box_1080 if with_box else out.wall_ms_nobox_1080).append(timed.wall)
            got = (verdict.verdict.value, verdict.failure_category.value if verdict.failure_category else None)
            right = got == want
            if with_box:
                out.ok_box += right
                cat[0] += right
            else:
                out.ok_nobox += right
                cat[1] += right
            if verdict.verdict is VerdictKind.SUCCESS and pair.verdict != "SUCCESS":
                out.false_success.append(f"{pair.id} ({'box' if with_box else 'no box'}): {verdict.rule}")
            if with_box and pair.before.size == (1920, 1080):
                cold()
                started = _cpu_ms()
                as_step = validator.validate(
                    action.type, case.before, case.after, target, expected, observed, crops="unless_success"
                )
                out.ms_step_1080.append(_cpu_ms() - started)
                assert as_step.verdict is verdict.verdict, f"{pair.id}: the crop policy changed the verdict"
            if not right:
                out.misses.append(
                    f"{pair.id} ({'box' if with_box else 'no box'}): want {want[0]}/{want[1]} got {got[0]}/{got[1]}"
                    f" [{verdict.rule}]"
                )
    return out


def target_on_frame(point: Sequence[int] | None, bbox: Sequence[int] | None, size: tuple[int, int]) -> bool:
    """The validator refuses a click point off the frame (a caller's error): such a pair is no case."""
    width, height = size
    x, y = point if point else (bbox[0] + bbox[2] // 2, bbox[1] + bbox[3] // 2) if bbox else (0, 0)
    return 0 <= x < width and 0 <= y < height


def pct(ok: int, n: int) -> str:
    return f"{ok / n:.1%} ({ok}/{n})" if n else "—"


def median(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.0f} ms" if values else "—"
