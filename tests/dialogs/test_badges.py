"""A notification whose severity badge is as tall as its title and sentence is read line by line:
the badge joined them into one box that read as nothing, and the header alone ("Windows Security")
named another system dialog."""

from __future__ import annotations

import cv2

from tests.vision.test_lines import TOAST


def test_a_defender_notification_with_its_badge_is_identified(real_service):
    frame = cv2.imread(str(TOAST))

    got = real_service.classify(frame)

    assert got.dialog_id == "defender-threat-found", (got.dialog_id, got.lines, got.notes)
    assert "Virus & threat protection" in got.lines
    assert got.entry.policy == "pause"
