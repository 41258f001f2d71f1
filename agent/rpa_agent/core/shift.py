"""How far a scroll moved the content on the screen, measured on two frames.

The screen is cut into vertical strips; in each strip a row of pixels found exactly once before and exactly
once after, at another height, votes for the distance between the two. Rows that did not move (a title bar,
a sidebar, a toolbar) and rows seen more than once (a plain background) do not vote. The distance most voted
for is the content's shift when enough rows agree on it; otherwise it is not known (None), never guessed.
"""

from __future__ import annotations

from collections import Counter

from rpa_agent.port import Frame

STRIPS = 16
MIN_VOTES = 12  # rows agreeing on one distance
MIN_SHARE = 0.5  # of the rows that moved


def vertical_shift(before: Frame, after: Frame) -> int | None:
    """Pixels the content moved down from `before` to `after` (negative: up; 0: nothing moved); None when
    the frames do not say (another size, too few rows moved alike)."""
    if (before.width, before.height) != (after.width, after.height) or before.width < STRIPS:
        return None
    if before.pixels == after.pixels:
        return 0
    votes: Counter[int] = Counter()
    width = before.width // STRIPS
    for strip in range(STRIPS):
        was, now = _rows(before, strip * width, width), _rows(after, strip * width, width)
        for row, y_after in now.items():
            y_before = was.get(row)
            if y_before is not None and y_before != y_after:
                votes[y_after - y_before] += 1
    if not votes:
        return None
    shift, count = votes.most_common(1)[0]
    return shift if count >= MIN_VOTES and count >= MIN_SHARE * sum(votes.values()) else None


def _rows(frame: Frame, x: int, width: int) -> dict[bytes, int]:
    """The strip's rows seen once in it, each with its height."""
    stride, start, end = frame.width * 4, x * 4, (x + width) * 4
    seen: dict[bytes, int] = {}
    twice: set[bytes] = set()
    pixels = frame.pixels
    for y in range(frame.height):
        row = pixels[y * stride + start : y * stride + end]
        if row in seen:
            twice.add(row)
        else:
            seen[row] = y
    for row in twice:
        del seen[row]
    return seen
