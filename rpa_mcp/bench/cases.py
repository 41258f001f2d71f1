"""What the vision benchmarks iterate over: the frames of a screen set, with the frame before
them when the set holds one (pairs), decoded once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rpa_mcp.screens.truth import FrameTruth, PairTruth, ScreenSet


@dataclass(frozen=True)
class FrameCase:
    name: str
    image: np.ndarray
    previous: np.ndarray | None
    truth: FrameTruth


def frame_cases(screens: ScreenSet) -> list[FrameCase]:
    """Every frame once: single frames, then pair frames (an AFTER frame comes with its BEFORE)."""
    out: list[FrameCase] = []
    seen: set[str] = set()
    for frame in screens.frames:
        if frame.file not in seen:
            seen.add(frame.file)
            out.append(FrameCase(frame.file, screens.image(frame.file), None, frame))
    for pair in screens.pairs:
        for frame, previous in ((pair.before, None), (pair.after, pair.before)):
            if frame.file in seen:
                continue
            seen.add(frame.file)
            before = screens.image(previous.file) if previous is not None else None
            out.append(FrameCase(frame.file, screens.image(frame.file), before, frame))
    return out


@dataclass(frozen=True)
class PairCase:
    truth: PairTruth
    before: np.ndarray
    after: np.ndarray


def pair_cases(screens: ScreenSet) -> list[PairCase]:
    return [PairCase(p, screens.image(p.before.file), screens.image(p.after.file)) for p in screens.pairs]
