"""`rpa-mcp bench programs`: held-out programs are one aggregate figure, never a line or a miss each."""

from __future__ import annotations

from pathlib import Path

from rpa_mcp.bench.programs import Figures, report


def _figures(miss: str) -> Figures:
    return Figures(frames=1, ids={"one frame": 0, "+ window": 1}, paused=2, misses=[miss])


def test_held_out_programs_are_reported_together_without_their_misses() -> None:
    by_split = {
        "tuning": {"mousepad": _figures("    mousepad-save-as.png: want file-save-as")},
        "held-out": {"secretpad": _figures("    secretpad-open.png: want file-open"), "otherpad": _figures("x")},
    }
    lines = report(by_split, Path("real_programs"))
    assert any("mousepad" in line for line in lines)
    assert not any("secretpad" in line or "otherpad" in line for line in lines)
    held = [line for line in lines if "held-out" in line]
    assert len(held) == 1 and "ids (one frame) 0/2" in held[0]
