"""Whether two screens differ only by a text caret blinking.

A field with the keyboard focus blinks its caret (a bar one to three pixels wide, as tall as a line
of text) every 0.3–0.6 s, for as long as it has the focus. Waiting for the screen to be still after
an input must not wait for that: each blink would start the quiet time again. A change is a caret's
when every pixel that changed lies in one column band at most `CARET_MAX_W` wide, over consecutive
rows as many as a line of text is tall. Pure Python on the frames' bytes (no image library in the
agent's core): one comparison per row, a few bisections per changed row.
"""

from __future__ import annotations

from rpa_agent.port import Frame

CARET_MAX_W = 3  # px: the widest a caret is (a glyph's stem as thin is a change too small to matter)
CARET_MIN_H = 6  # px: shorter than the smallest text line, a bar is no caret
CARET_MAX_H = 80  # px: taller than the largest text line, it is no caret
BYTES_PER_PIXEL = 4


def changed(before: Frame, after: Frame) -> bool:
    """The screen changed between the two frames, a text caret's blink apart."""
    return before != after and not caret_only(before, after)


def caret_only(before: Frame, after: Frame) -> bool:
    """True when the two frames differ, and only by a bar the size of a text caret."""
    if (before.width, before.height) != (after.width, after.height) or before.pixels == after.pixels:
        return False
    stride = before.width * BYTES_PER_PIXEL
    a, b = before.pixels, after.pixels
    rows: list[int] = []
    for y in range(before.height):
        start = y * stride
        if a[start : start + stride] != b[start : start + stride]:
            if (rows and y != rows[-1] + 1) or len(rows) >= CARET_MAX_H:
                return False  # two places changed, or a band taller than a line
            rows.append(y)
    if len(rows) < CARET_MIN_H:
        return False
    left, right = stride, -1
    for y in rows:
        row_a, row_b = a[y * stride : (y + 1) * stride], b[y * stride : (y + 1) * stride]
        left = min(left, first_difference(row_a, row_b))
        right = max(right, stride - 1 - first_difference(row_a[::-1], row_b[::-1]))
    return right // BYTES_PER_PIXEL - left // BYTES_PER_PIXEL < CARET_MAX_W


def first_difference(x: bytes, y: bytes) -> int:
    """The index of the first byte where `x` and `y` (same length, not equal) differ, by bisection."""
    low, high = 0, len(x)  # x[:low] == y[:low]; x[:high] != y[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if x[low:middle] == y[low:middle]:
            low = middle
        else:
            high = middle
    return low
