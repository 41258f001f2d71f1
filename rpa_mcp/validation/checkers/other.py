"""Checkers that do not look at pixels first: an extraction's schema, and the optional judge model."""

from __future__ import annotations

from itertools import islice

import cv2

from rpa_mcp.errors import Unavailable
from rpa_mcp.validation.caller_schema import compile_caller_schema
from rpa_mcp.validation.checkers.base import BaseChecker, Params
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import CheckResult
from rpa_mcp.vision.images import encode_png

JUDGE_MAX_SIDE = 1280
MAX_SCHEMA_ERRORS = 1000  # counted up to this many; a huge output cannot make the checker collect millions


class JsonSchemaChecker(BaseChecker):
    """Does the extraction's output validate against the expected JSON Schema?"""

    name = "JsonSchemaChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        schema = ctx.expected.json_schema
        if schema is None:
            return self.not_applicable(signal, "no expected.json_schema")
        if not ctx.expected.has_output:
            return self.not_applicable(signal, "no expected.output to check")
        validator = compile_caller_schema(schema, ctx.schema_limits)  # fetches nothing, patterns on RE2
        found = list(islice(validator.iter_errors(ctx.expected.output), MAX_SCHEMA_ERRORS))
        if not found:
            return self.result(signal, 1.0, "output validates against the schema")
        errors = sorted(found, key=lambda e: [str(p) for p in e.path])
        first = errors[0]
        where = "/".join(str(p) for p in first.path)[:200] or "(root)"
        count = f"{len(errors)}+" if len(errors) == MAX_SCHEMA_ERRORS else str(len(errors))
        return self.result(
            signal, 0.0, f"{count} schema error(s); first at {where}: {first.message[:300]}", errors=len(errors)
        )


class LlmJudgeChecker(BaseChecker):
    """Optional (off unless a judge is wired): ask a model whether the action happened."""

    name = "LlmJudgeChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        if ctx.judge is None:
            return self.not_applicable(signal, "no judge model configured")
        question = str(params.get("question", "Did the action have its intended visible effect?"))
        if ctx.target.label:
            question += f" Target: {ctx.target.label!r}."
        try:
            answer = ctx.judge.judge(
                action_type=ctx.action_type,
                question=question,
                before_png=encode_png(_shrink(ctx.before)),
                after_png=encode_png(_shrink(ctx.after)),
            )
        except Unavailable as exc:
            return self.not_applicable(signal, f"judge unavailable ({exc.message})")
        score = answer.confidence if answer.success else 1.0 - answer.confidence
        return self.result(signal, score, f"judge: {answer.explanation[:300]}", success=answer.success)


def _shrink(image: cv2.typing.MatLike) -> cv2.typing.MatLike:
    height, width = image.shape[:2]
    scale = min(1.0, JUDGE_MAX_SIDE / max(height, width))
    if scale >= 1.0:
        return image
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
