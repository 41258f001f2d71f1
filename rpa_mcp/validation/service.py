"""The validator: after an action, did it really happen? -> SUCCESS / FAILURE(category) / UNCERTAIN.

Rules of the matrix are tried in order; a rule's conditions are checked cheapest checker
first and a rule stops at its first false condition, so checkers run only while the
verdict is undecided (each at most once: results are memoised per validation).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from rpa_mcp.errors import InvalidInput
from rpa_mcp.validation.caller_schema import SchemaLimits
from rpa_mcp.validation.checkers import ALL_CHECKERS, Checker
from rpa_mcp.validation.checkers.pixels import phash
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.locate import resolve_target, widen_label_box
from rpa_mcp.validation.matrix import MATRIX_FILE, ActionSpec, ValidatorMatrix, load_validator_matrix
from rpa_mcp.validation.model import (
    CheckResult,
    CropPolicy,
    CropRef,
    EvidenceCrop,
    Expected,
    FailureCategory,
    Observed,
    Target,
    Verdict,
    VerdictKind,
)
from rpa_mcp.validation.ports import DialogLocator, JudgePort
from rpa_mcp.vision.images import clamp_bbox, encode_png_base64, legible_box
from rpa_mcp.vision.ocr import OcrEngine

UNDECIDED_CONFIDENCE = 0.3
GUESSED_BOX_FACTOR = 0.75  # a verdict judged through a box guessed around the click is less sure
TITLE_GUARD_CONFIDENCE = 0.4
CROP_MAX_SIDE = 960  # evidence crops larger than this are scaled down (overview of a page change)


class Validator:
    def __init__(
        self,
        matrix: ValidatorMatrix,
        ocr: OcrEngine,
        *,
        dialog_locator: DialogLocator | None = None,
        fast_ocr: OcrEngine | None = None,
        judge: JudgePort | None = None,
        checkers: Mapping[str, Checker] | None = None,
        enabled: bool = True,
        schema_limits: SchemaLimits | None = None,
    ) -> None:
        self.enabled = enabled  # RPA_VALIDATOR_V2_ENABLED=false: every verdict is UNCERTAIN (pause, never guess)
        self.matrix = matrix
        self.ocr = ocr
        self.dialog_locator = dialog_locator
        # reads labels looked for first (CheckContext.read_label); the same engine as `ocr`: nothing to do twice
        self.fast_ocr = fast_ocr if fast_ocr is not ocr else None
        self.judge = judge
        self.checkers: Mapping[str, Checker] = checkers or ALL_CHECKERS
        self.schema_limits = schema_limits or SchemaLimits()  # caller-supplied expected.json_schema

    @classmethod
    def from_catalog(cls, catalog_dir: Path, ocr: OcrEngine, **ports: object) -> Validator:
        return cls(load_validator_matrix(Path(catalog_dir) / MATRIX_FILE), ocr, **ports)  # type: ignore[arg-type]  # ports are the keyword-only ones above

    def warm_up(self) -> None:
        """Pay one-off costs (scipy import behind imagehash) before the first real validation."""
        phash(np.zeros((32, 32, 3), np.uint8))

    def validate(
        self,
        action_type: str,
        before: np.ndarray,
        after: np.ndarray,
        target: Target | None = None,
        expected: Expected | None = None,
        observed: Observed | None = None,
        *,
        crops: CropPolicy = "always",
    ) -> Verdict:
        started = time.perf_counter()
        spec = self.matrix.action(action_type)
        target, expected, observed = target or Target(), expected or Expected(), observed or Observed()
        _check_frames(before, after)
        missing = _missing_requirements(spec, target, expected)
        if missing:
            # Nothing to judge the screen with, yet the titles may already say the click went to
            # another application (a recorded step whose agent reported no position and no box).
            by_title = self._title_only(spec, action_type, before, after, target, expected, observed, started)
            if by_title is not None:
                return by_title
            raise InvalidInput(f"{missing[0]} is required to validate this action", field=missing[0])
        if target.bbox is not None:
            _check_bbox(target.bbox, after.shape)
        if target.point is not None:
            _check_point(target.point, after.shape)
        if not self.enabled:
            return Verdict(
                action_type=action_type,
                verdict=VerdictKind.UNCERTAIN,
                confidence=0.0,
                rule="validator-disabled",
                reason="the validator is switched off (RPA_VALIDATOR_V2_ENABLED=false): a person must check",
                total_ms=round((time.perf_counter() - started) * 1000.0, 3),
            )
        ctx = CheckContext(
            action_type=action_type,
            before=before,
            after=after,
            target=target,
            expected=expected,
            observed=observed,
            ocr=self.ocr,
            fast_ocr=self.fast_ocr,
            diff_settings=self.matrix.defaults.diff.settings(),
            dialog_locator=self.dialog_locator,
            judge=self.judge,
            schema_limits=self.schema_limits,
        )
        located = resolve_target(ctx) if ctx.target.needs_locating else None
        widen_label_box(ctx)
        verdict = self._decide(spec, ctx)
        if located is not None:
            verdict.evidence.insert(0, located)
            if ctx.target.bbox_source == "guessed":
                verdict.confidence = round(verdict.confidence * GUESSED_BOX_FACTOR, 3)
                verdict.reason += "; judged through a box guessed around the click (label not found near it)"
        verdict.action_type = action_type
        if crops == "always" or (crops == "unless_success" and verdict.verdict is not VerdictKind.SUCCESS):
            verdict.crops = self._crops(ctx, verdict)  # PNG encodings: a few ms each
        verdict.total_ms = round((time.perf_counter() - started) * 1000.0, 3)
        return verdict

    def _title_only(
        self,
        spec: ActionSpec,
        action_type: str,
        before: np.ndarray,
        after: np.ndarray,
        target: Target,
        expected: Expected,
        observed: Observed,
        started: float,
    ) -> Verdict | None:
        """FAILURE/WRONG_APPLICATION from the window titles alone, when they show another application
        in front after the action; None when they do not (the missing inputs are then an error)."""
        if not self.enabled:
            return None
        signal = next((n for n, s in spec.signals.items() if s.checker == "TitleBarChecker" and not s.params), None)
        if signal is None:
            return None
        ctx = CheckContext(action_type, before, after, target, expected, observed, self.ocr)
        result = self.checkers["TitleBarChecker"].check(ctx, signal, {})
        if result.score is None or result.score > 0.0:
            return None
        return Verdict(
            action_type=action_type,
            verdict=VerdictKind.FAILURE,
            confidence=0.9,
            failure_category=FailureCategory.WRONG_APPLICATION,
            rule="other-application-by-title",
            reason="no target box or click point to look at, but another application is in front after the "
            f"action ({result.detail})",
            evidence=[result],
            total_ms=round((time.perf_counter() - started) * 1000.0, 3),
        )

    def _decide(self, spec: ActionSpec, ctx: CheckContext) -> Verdict:
        results: dict[str, CheckResult] = {}

        def signal(name: str) -> CheckResult:
            if name not in results:
                sig = spec.signals[name]
                results[name] = self.checkers[sig.checker].check(ctx, name, sig.params)
            return results[name]

        for rule in spec.rules:
            ordered = sorted(rule.when.items(), key=lambda item: self.matrix.signal_cost(spec.signals[item[0]]))
            if all(condition.holds(signal(name).score) for name, condition in ordered):
                used = [results[name] for name, _ in ordered]
                reason = rule.reason or rule.id
                because = "; ".join(f"{r.signal}={_fmt(r.score)}" for r in used)
                if rule.category is FailureCategory.WRONG_APPLICATION:
                    title = self._title_matches(spec, ctx, results)
                    if title is not None:
                        return Verdict(
                            action_type="",
                            verdict=VerdictKind.UNCERTAIN,
                            confidence=TITLE_GUARD_CONFIDENCE,
                            rule="title-contradicts-wrong-application",
                            reason=f"rule {rule.id!r} ({because}) says another application is in front, but the "
                            f"front window title matches the expected one ({title.detail}): a person should look",
                            evidence=list(results.values()),
                        )
                return Verdict(
                    action_type="",
                    verdict=rule.verdict,
                    confidence=rule.confidence,
                    failure_category=rule.category,
                    rule=rule.id,
                    reason=f"{reason} ({because})",
                    evidence=list(results.values()),
                )
        undecided = ", ".join(f"{r.signal}={_fmt(r.score)}" for r in results.values()) or "no signal"
        return Verdict(
            action_type="",
            verdict=VerdictKind.UNCERTAIN,
            confidence=UNDECIDED_CONFIDENCE,
            rule="undecided",
            reason=f"no rule of the matrix decided ({undecided}): a person should look",
            evidence=list(results.values()),
        )

    def _title_matches(
        self, spec: ActionSpec, ctx: CheckContext, results: dict[str, CheckResult]
    ) -> CheckResult | None:
        """The title evidence when the front window after the action is the EXPECTED one, else None.

        A positive match of expected.window_title (agent-reported or OCR) is strong evidence against
        WRONG_APPLICATION: pixels that say "covered" then mean the target box is wrong, not the app.
        """
        if not ctx.expected.window_title:
            return None
        for name, sig in spec.signals.items():
            if sig.checker == "TitleBarChecker" and sig.params.get("expect", "present") == "present":
                if name not in results:
                    results[name] = self.checkers[sig.checker].check(ctx, name, sig.params)
                found = results[name]
                return found if found.score is not None and found.score >= 1.0 else None
        guard = self.checkers["TitleBarChecker"].check(ctx, "title_guard", {})
        if guard.score is None:
            return None
        results["title_guard"] = guard
        return guard if guard.score >= 1.0 else None

    def _crops(self, ctx: CheckContext, verdict: Verdict) -> list[EvidenceCrop]:
        defaults = self.matrix.defaults
        refs: list[CropRef] = []
        seen: set[tuple[str, tuple[int, int, int, int]]] = set()
        # Failing or passing checkers that carry a region, most recent (most specific) first.
        for result in reversed(verdict.evidence):
            if result.crop is None:
                continue
            key = (result.crop.frame, result.crop.bbox)
            if key in seen:
                continue
            seen.add(key)
            refs.append(result.crop)
        out: list[EvidenceCrop] = []
        for ref in refs[: defaults.max_crops]:
            image = ctx.frame(ref.frame)
            box = clamp_bbox(ref.bbox, image.shape)
            if box[2] == 0 or box[3] == 0:
                continue
            m = defaults.crop_margin
            # a plain region (a dark desktop, an empty page) is shown with its surroundings
            (x, y, w, h), widened = legible_box(image, (box[0] - m, box[1] - m, box[2] + 2 * m, box[3] + 2 * m))
            region = image[y : y + h, x : x + w]
            # a page-sized region is shown as an overview: encoding it at full size costs ~40 ms
            data = encode_png_base64(region, max_side=CROP_MAX_SIDE)
            out.append(EvidenceCrop(ref.label, data, box, ref.frame, widened=widened))
        return out


def _fmt(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.2f}"


def _check_frames(before: np.ndarray, after: np.ndarray) -> None:
    for name, frame in (("before", before), ("after", after)):
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise InvalidInput(f"{name}: expected a decoded BGR image", field=name)
    if before.shape != after.shape:
        raise InvalidInput(
            f"after: frame is {after.shape[1]}x{after.shape[0]} but before is {before.shape[1]}x{before.shape[0]};"
            " both frames must come from the same screen at the same size",
            field="after",
            before_size=[before.shape[1], before.shape[0]],
            after_size=[after.shape[1], after.shape[0]],
        )


def _missing_requirements(spec: ActionSpec, target: Target, expected: Expected) -> list[str]:
    present = {
        "target.label": bool(target.label),
        # a click point with the label stands for the box: the label is located around the point
        "target.bbox": target.bbox is not None or (target.point is not None and bool(target.label)),
        "expected.window_title": bool(expected.window_title),
        "expected.text": expected.text is not None,
        "expected.json_schema": expected.json_schema is not None,
        "expected.output": expected.has_output,
    }
    return [requirement for requirement in spec.requires if not present[requirement]]


def _check_bbox(bbox: tuple[int, int, int, int], shape: tuple[int, ...]) -> None:
    _x, _y, w, h = bbox
    if w <= 0 or h <= 0:
        raise InvalidInput("target.bbox: width and height must be positive", field="target.bbox")
    if clamp_bbox(bbox, shape)[2] == 0 or clamp_bbox(bbox, shape)[3] == 0:
        raise InvalidInput(
            f"target.bbox {list(bbox)} lies outside the {shape[1]}x{shape[0]} frame", field="target.bbox"
        )


def _check_point(point: tuple[int, int], shape: tuple[int, ...]) -> None:
    x, y = point
    if not (0 <= x < shape[1] and 0 <= y < shape[0]):
        raise InvalidInput(f"target.point {[x, y]} lies outside the {shape[1]}x{shape[0]} frame", field="target.point")
