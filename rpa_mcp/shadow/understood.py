"""The steps of a session as shown to a person, derived from its segments and cached per state version.

A step whose segment did not change is reused (only the last two, whose window after may depend
on new events, are always derived again); what feedback changes is in the reuse key, so a step
corrected in the same clock tick is derived again. The review (what to ask first) is computed once
per version, when first asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rpa_mcp.shadow.calibration import Calibration
from rpa_mcp.shadow.dismissals import SameScreen, suggest_dismissals
from rpa_mcp.shadow.language import decided
from rpa_mcp.shadow.observer import ObserverState
from rpa_mcp.shadow.ports import TraceRepository
from rpa_mcp.shadow.postconditions import LOOK_AHEAD
from rpa_mcp.shadow.record_names import doubt_partly_named
from rpa_mcp.shadow.screens import StoredScreens
from rpa_mcp.shadow.steps import LOOK_BEHIND, derive_steps
from rpa_mcp.shadow.suggestions import review, settle_names
from rpa_mcp.vision.ocr import OcrEngine

MAX_REMEMBERED = 512  # screenshot pairs compared, kept across sessions (the oldest forgotten first)


@dataclass
class _Derived:
    version: int
    locale: str
    steps: list[dict[str, Any]]
    by_key: dict[tuple[Any, ...], dict[str, Any]]
    review: dict[str, Any] | None = None  # computed once per version, when first asked


class UnderstoodSteps:
    def __init__(
        self, traces: TraceRepository, ocr: OcrEngine, calibration: Calibration, *, max_pixels: int, locale: str
    ) -> None:
        self.traces, self.ocr, self.calibration = traces, ocr, calibration
        self.max_pixels, self.default_locale = max_pixels, locale
        self._derived: dict[str, _Derived] = {}
        self._still: dict[tuple[str, str], bool | None] = {}  # nothing changed between two screenshots?

    def forget(self, sid: str) -> None:
        self._derived.pop(sid, None)

    def locale(self, sid: str, state: ObserverState) -> str:
        """The person's choice, else the agent's locale, else the screen's words, else the default."""
        return (
            state.language
            or state.locale
            or (self.traces.get_session(sid) or {}).get("locale")
            or decided(state.ui_votes)
            or self.default_locale
        )

    def review(self, sid: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
        cached = self._derived.get(sid)
        if cached is None or cached.steps is not steps:
            return review(steps)
        if cached.review is None:
            cached.review = review(steps)
        return cached.review

    def _remembered(self, same: SameScreen) -> SameScreen:
        """`same`, each pair of screenshots compared once (screenshots never change once stored)."""

        def compare(a: str, b: str) -> bool | None:
            if (a, b) not in self._still:
                if len(self._still) >= MAX_REMEMBERED:
                    self._still.pop(next(iter(self._still)))
                self._still[(a, b)] = same(a, b)
            return self._still[(a, b)]

        return compare

    def steps(self, sid: str, state: ObserverState) -> list[dict[str, Any]]:
        """The steps of this state (its pending OCR already read)."""
        locale = self.locale(sid, state)
        cached = self._derived.get(sid)
        if cached and cached.version == state.version and cached.locale == locale:
            return cached.steps
        reuse = cached.by_key if cached and cached.locale == locale else {}
        keys = [
            (
                tuple(seg.events),
                seg.status,
                seg.intent,
                seg.updated_at,
                *map(repr, (seg.parameter, seg.outcome, seg.retarget, seg.value)),
            )
            for seg in state.segments
        ]
        last = len(keys) - 2
        todo = [p for p, key in enumerate(keys) if key not in reuse or p >= last]
        fresh: dict[int, dict[str, Any]] = {}
        indexes = [i for p in todo for i in state.segments[p].events]
        screens = StoredScreens(self.traces, self.ocr, sid, max_pixels=self.max_pixels)
        if indexes:
            rows = self.traces.events(sid, max(min(indexes) - LOOK_BEHIND, 0), max(indexes) + LOOK_AHEAD + 1)
            fresh = derive_steps(
                rows,
                state.segments,
                locale,
                positions=todo,
                calibration=self.calibration,
                screens=screens,
                window_now=state.ctx.window,
            )
        steps: list[dict[str, Any]] = []
        derived: dict[tuple[Any, ...], dict[str, Any]] = {}  # each step as derived alone, before the judgements
        for p, key in enumerate(keys):  # made across steps (another step's parameter may change them)
            found = fresh.get(p) or reuse.get(key)
            if found is None:  # pragma: no cover - a segment always has stored events
                continue
            derived[key] = found
            step = dict(found)
            step["index"] = len(steps) + 1
            steps.append(step)
        suggest_dismissals(steps, self._remembered(screens.unchanged), locale)
        doubt_partly_named(steps, locale)
        settle_names(steps)
        self._derived[sid] = _Derived(state.version, locale, steps, derived)
        return steps
