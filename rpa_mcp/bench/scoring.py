"""Score the dialog tools and the validation tool on a screen set against its ground truth.

Used by `rpa-mcp bench accuracy` (tuning, evaluation and real-software sets side by side). Every
figure comes from the public tools called as an MCP client calls them (`resolve_dialog`,
`validate_action`; bench/tool_client.py): `call(tool, arguments)` answers the tool's structured
content. Each dialog frame is sent twice: alone, then with the evidence a client may add (the frame
before, when the set has one, and the agent-reported window). Timings are CPU time of this process
(client and server both run in it; they move less than wall time on a shared machine) and wall
time, around the call, the frame already encoded. `cold` (the OCR engines' `clear_cache`) runs
before each timed call: a figure never profits from what an earlier frame of the set read.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.bench.cases import frame_cases, pair_cases
from rpa_mcp.bench.tool_client import ToolFailed, image_arg, windows_arg
from rpa_mcp.dialogs import effective_policy
from rpa_mcp.dialogs.catalog import DialogCatalog
from rpa_mcp.dialogs.locate import iou
from rpa_mcp.screens.truth import ScreenSet

Call = Callable[[str, dict[str, Any]], dict[str, Any]]
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
    ids_one_frame: int = 0  # the frame alone (no frame before, no window)
    false_positives_one_frame: list[str] = field(default_factory=list)
    wall_ms_by_path: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # every call


def _nothing() -> None:
    return None


def score_dialogs(
    screens: ScreenSet, call: Call, catalog: DialogCatalog, *, cold: Callable[[], None] = _nothing
) -> DialogScores:
    out = DialogScores()
    for case in frame_cases(screens):
        truth = case.truth.dialog
        alone: dict[str, Any] = {"image": image_arg(case.image)}
        evidence = dict(alone)
        if case.previous is not None:
            evidence["previous"] = image_arg(case.previous)
        if windows := windows_arg(case.truth.window_title or None, case.truth.process or None):
            evidence["windows"] = windows
        one = _timed_call(call, alone, cold, out)
        decided = _timed_call(call, evidence, cold, out) if evidence != alone else one
        if case.truth.size == (1920, 1080):
            out.ms_1080.append(decided["_cpu_ms"])
            out.wall_ms_1080.append(decided["_wall_ms"])
        if truth is None:
            out.without += 1
            if decided["found"]:
                out.false_positives.append(f"{case.name} -> {decided['dialog_id']}")
            if one["found"]:
                out.false_positives_one_frame.append(f"{case.name} -> {one['dialog_id']}")
            continue
        entry = catalog.get(truth.id)
        assert entry is not None, f"{case.name}: truth id {truth.id} is not in the catalog"
        out.n += 1
        right = decided["dialog_id"] == truth.id
        out.ids_ok += right
        out.ids_one_frame += one["dialog_id"] == truth.id
        cat = out.by_category[entry.category]
        cat[0] += right
        cat[1] += 1
        want = effective_policy(entry).policy
        out.policy_ok += decided["decision"] == want
        if entry.category == "A":
            out.system += 1
            out.system_paused += decided["decision"] == "pause"
        for answer in (one, decided):
            if answer["decision"] == "auto" and (answer["dialog_id"] != truth.id or want != "auto"):
                out.unsafe_auto.append(f"{case.name}: {truth.id} answered auto as {answer['dialog_id']}")
        out.ious.append(iou(tuple(decided["bbox"]), truth.visible_bbox) if decided["bbox"] else 0.0)
        if not right:
            out.misses.append(f"{case.name}: {truth.id} -> {decided['dialog_id']}")
    return out


def _timed_call(call: Call, arguments: dict[str, Any], cold: Callable[[], None], out: DialogScores) -> dict[str, Any]:
    """`resolve_dialog`, its CPU and wall time added to the answer (`_cpu_ms`, `_wall_ms`)."""
    cold()
    with _Timed() as timed:
        answer = call("resolve_dialog", arguments)
    out.wall_ms_by_path[str(answer.get("path", "fast"))].append(timed.wall)
    return {**answer, "_cpu_ms": timed.cpu, "_wall_ms": timed.wall}


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
    wall_ms_box_1080: list[float] = field(default_factory=list)
    wall_ms_nobox_1080: list[float] = field(default_factory=list)


def score_verdicts(screens: ScreenSet, call: Call, *, cold: Callable[[], None] = _nothing) -> VerdictScores:
    out = VerdictScores()
    for case in pair_cases(screens):
        pair, action = case.truth, case.truth.action
        observed = {
            k: v
            for k, v in (
                ("window_title_before", pair.observed.get("window_title_before")),
                ("window_title_after", pair.observed.get("window_title_after")),
                ("process_after", pair.observed.get("process_after")),
            )
            if v
        }
        expected = {
            k: v for k, v in (("window_title", action.expected_window_title), ("text", action.expected_text)) if v
        }
        want = (pair.verdict, pair.failure_category)
        if not target_on_frame(action.point, action.bbox, pair.after.size):
            out.unscored.append(f"{pair.id}: target {action.point or action.bbox} off the {pair.after.size} frame")
            continue
        out.n += 1
        cat = out.by_category[pair.category]
        cat[2] += 1
        frames = {"before": image_arg(case.before), "after": image_arg(case.after)}
        for with_box in (True, False):
            target: dict[str, Any] = {"label": action.label} if action.label else {}
            if with_box and action.bbox:
                target["bbox"] = list(action.bbox)
            elif action.point:
                target["point"] = list(action.point)
            arguments: dict[str, Any] = {"action_type": action.type, **frames, "target": target or None}
            if expected:
                arguments["expected"] = expected
            if observed:
                arguments["observed"] = observed
            cold()
            try:
                with _Timed() as timed:
                    verdict = call("validate_action", arguments)
            except ToolFailed as exc:  # an action type or target the tool refuses: the set's fault
                out.unscored.append(f"{pair.id}: refused ({exc})")
                out.n, cat[2] = out.n - 1, cat[2] - 1
                break
            if pair.before.size == (1920, 1080):
                (out.ms_box_1080 if with_box else out.ms_nobox_1080).append(timed.cpu)
                (out.wall_ms_box_1080 if with_box else out.wall_ms_nobox_1080).append(timed.wall)
            got = (verdict["verdict"], verdict.get("failure_category"))
            right = got == want
            if with_box:
                out.ok_box += right
                cat[0] += right
            else:
                out.ok_nobox += right
                cat[1] += right
            if verdict["verdict"] == "SUCCESS" and pair.verdict != "SUCCESS":
                out.false_success.append(f"{pair.id} ({'box' if with_box else 'no box'}): {verdict['rule']}")
            if not right:
                out.misses.append(
                    f"{pair.id} ({'box' if with_box else 'no box'}): want {want[0]}/{want[1]} got {got[0]}/{got[1]}"
                    f" [{verdict['rule']}]"
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
