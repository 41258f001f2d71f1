"""The classifier on screenshots of real software: Chromium's own prompts (tests/fixtures/real).

The bubbles are drawn white on a white page under the toolbar, without an outline the edge map
closes: they are found as the region that changed since the frame before. The JavaScript and
leave-site dialogs dim the page: a box with buttons much brighter than the page around it.
"""

from __future__ import annotations

import pytest

from rpa_mcp.dialogs.locate import iou
from rpa_mcp.screens.truth import ScreenSet
from tests.screens.test_real import REAL_DIR

REAL = ScreenSet(REAL_DIR)
CASES = sorted(p.id for p in REAL.pairs if "1920x1080" in p.id or p.id.startswith("r-camera-"))


@pytest.mark.parametrize("pair_id", CASES)
def test_chromium_prompts_are_identified_and_paused(real_service, pair_id: str) -> None:
    pair = REAL.pair(pair_id)
    truth = pair.after.dialog
    assert truth is not None
    decision = real_service.resolve(REAL.image(pair.after.file), previous=REAL.image(pair.before.file))
    assert decision.dialog_id == truth.id, decision
    assert decision.decision == "pause"  # a site's permission, a page's own dialog: a person answers
    box = decision.classification.bbox
    assert box is not None and iou(box, truth.bbox) >= 0.7, (box, truth.bbox)


def test_without_the_frame_before_a_permission_bubble_is_not_answered(real_service) -> None:
    pair = REAL.pair("r-camera-en-1920x1080@100")
    decision = real_service.resolve(REAL.image(pair.after.file))
    assert decision.decision == "pause"


@pytest.mark.parametrize("pair_id", ["r-camera-fr-1920x1080@100", "r-camera-en-1366x768@100"])
def test_a_camera_prompt_sent_alone_is_found_by_its_words_on_the_thorough_path(real_service, pair_id: str) -> None:
    # alone, the camera preview outlines a box that names nothing: the whole frame is read
    decision = real_service.resolve(REAL.image(REAL.pair(pair_id).after.file), thorough=True)
    found = decision.classification
    assert found.dialog_id == "browser-perm-camera" and found.path == "thorough", found.notes
    assert decision.decision == "pause"
