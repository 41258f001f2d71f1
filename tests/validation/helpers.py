"""Fixture pairs of the shared corpus, decoded once per test session."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rpa_mcp.validation import Target
from rpa_mcp.vision.images import decode_image


def _fixtures() -> Path | None:
    env = os.environ.get("RPA_FIXTURES_DIR")
    here = Path(__file__).resolve()
    for candidate in ([Path(env)] if env else []) + [
        Path("/work/shared/fixtures"),
        here.parents[3] / "shared" / "fixtures",
    ]:
        if (candidate / "manifest.json").is_file():
            return candidate
    return None


FIXTURES = _fixtures()


@cache
def _manifest() -> dict[str, Any]:
    assert FIXTURES is not None
    return json.loads((FIXTURES / "manifest.json").read_text(encoding="utf-8"))


@cache
def _decoded(name: str) -> np.ndarray:
    assert FIXTURES is not None
    return decode_image((FIXTURES / name).read_bytes())


class Pair:
    def __init__(self, image: dict[str, Any]) -> None:
        self.pair = image["pair"]
        self.id: str = self.pair["pair_id"]
        self.before = _decoded(image["file"])
        self.after = _decoded(self.pair["other_file"])
        action = self.pair["action"]
        self.action_type = {"click": "click_anchor"}.get(action["type"], action["type"])
        self.target = Target(action["target_label"], tuple(action["target_bbox"]))
        # As the shadow area records it: the label and the click point, no box.
        self.target_without_bbox = Target(action["target_label"], None, tuple(action["click_point"]))
        self.expected_verdict: str = self.pair["expected"]["verdict"]
        self.expected_category: str | None = self.pair["expected"]["failure_category"]
        self.png_before = (FIXTURES / image["file"]).read_bytes()  # type: ignore[operator]  # FIXTURES checked
        self.png_after = (FIXTURES / self.pair["other_file"]).read_bytes()  # type: ignore[operator]


def pair_ids() -> list[str]:
    if FIXTURES is None:
        return []
    return sorted(im["pair"]["pair_id"] for im in _manifest()["images"] if im["kind"] == "pair_before")


@cache
def load_pair(pair_id: str) -> Pair:
    for image in _manifest()["images"]:
        if image["kind"] == "pair_before" and image["pair"]["pair_id"] == pair_id:
            return Pair(image)
    raise KeyError(pair_id)


needs_fixtures = pytest.mark.skipif(FIXTURES is None, reason="shared fixtures not found (set RPA_FIXTURES_DIR)")
