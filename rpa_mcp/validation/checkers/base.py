"""The checker contract: one small unit, one typed result, its own timing."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Protocol

from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import CheckResult, CropRef, Frame

Params = Mapping[str, Any]


class Checker(Protocol):
    name: str

    def check(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        """Judge one signal; `score` None means "nothing to judge here" (never counted as a pass)."""
        ...


class BaseChecker:
    name = "Checker"

    def check(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        started = time.perf_counter()
        result = self.run(ctx, signal, params)
        result.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
        return result

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def result(
        self,
        signal: str,
        score: float | None,
        detail: str,
        *,
        crop: CropRef | None = None,
        **facts: Any,
    ) -> CheckResult:
        clipped = None if score is None else max(0.0, min(1.0, float(score)))
        return CheckResult(self.name, signal, clipped, detail, crop=crop, facts=facts)

    def not_applicable(self, signal: str, why: str) -> CheckResult:
        return self.result(signal, None, f"not applicable: {why}")


def frame_param(params: Params, default: Frame = "after") -> Frame:
    value = params.get("frame", default)
    return "before" if value == "before" else "after"
