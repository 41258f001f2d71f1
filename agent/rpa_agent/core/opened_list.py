"""Where a drop-down's list opened: the part of the screen that changed since the click, around the drop-down.

A list opened by a drop-down is drawn after the click, attached to the drop-down (below, above or over it):
its pixels are new. An option is looked for there, and only there, however far the list reaches (the last
of a long list lies farther from the drop-down than a target may move from where it was demonstrated); the
same words elsewhere on the screen, already drawn before the click, are outside it.

Pure Python on the frames' bytes (no image library in the agent's core): the screen is cut into cells
`CELL_W` px wide and `CELL_H` rows tall; a cell changed when its bytes differ on one of its rows (only
the rows that changed are compared cell by cell, between their first and last changed bytes). The
changed cells that hang together (a gap of at most `JOIN_X` cells across, `JOIN_Y` down) from those
within `SEED_PX` of the point clicked make the list; its box is theirs. No change near the point
clicked, or one spread wider or taller than a list (`MAX_WIDTH_SHARE`, `MAX_HEIGHT_SHARE` of the
screen: a page redrawn), is no list: None.
"""

from __future__ import annotations

from rpa_agent.core.caret import first_difference
from rpa_agent.port import Frame

Box = tuple[int, int, int, int]  # x, y, width, height (screen pixels)
CELL_W = 16  # px
CELL_H = 8  # rows
JOIN_X = 2  # cells across: changed cells this close belong to one thing on the screen ...
JOIN_Y = 3  # ... cells down (the blank rows between a list's lines of text, on a list drawn like its window)
SEED_PX = 48  # px: a change this near the point clicked is the list (or the drop-down redrawn, the list beside it)
MAX_WIDTH_SHARE = 0.6
MAX_HEIGHT_SHARE = 0.95
BYTES_PER_PIXEL = 4


def opened_box(before: Frame, after: Frame, opener: tuple[int, int]) -> Box | None:
    """The box (screen pixels) of what the click on the drop-down at `opener` (screen pixels) opened; None
    when the screens cannot tell it."""
    if (before.width, before.height, before.origin) != (after.width, after.height, after.origin):
        return None
    cells = _changed_cells(before, after)
    ox, oy = opener[0] - after.origin[0], opener[1] - after.origin[1]
    seeds = [cell for cell in cells if _distance(cell, ox, oy) <= SEED_PX]
    if not seeds:
        return None
    max_cols = MAX_WIDTH_SHARE * after.width / CELL_W
    max_rows = MAX_HEIGHT_SHARE * after.height / CELL_H
    group, todo = set(seeds), list(seeds)
    c0, r0 = min(c for c, _ in seeds), min(r for _, r in seeds)
    c1, r1 = max(c for c, _ in seeds), max(r for _, r in seeds)
    while todo:
        col, row = todo.pop()
        for dc in range(-JOIN_X - 1, JOIN_X + 2):
            for dr in range(-JOIN_Y - 1, JOIN_Y + 2):
                near = (col + dc, row + dr)
                if near in cells and near not in group:
                    group.add(near)
                    todo.append(near)
                    c0, r0, c1, r1 = min(c0, near[0]), min(r0, near[1]), max(c1, near[0]), max(r1, near[1])
        if c1 - c0 + 1 > max_cols or r1 - r0 + 1 > max_rows:
            return None  # spread wider or taller than a list: a page redrawn
    x0, y0 = c0 * CELL_W, r0 * CELL_H
    x1, y1 = min(after.width, (c1 + 1) * CELL_W), min(after.height, (r1 + 1) * CELL_H)
    return x0 + after.origin[0], y0 + after.origin[1], x1 - x0, y1 - y0


def _changed_cells(before: Frame, after: Frame) -> set[tuple[int, int]]:
    stride = after.width * BYTES_PER_PIXEL
    step = CELL_W * BYTES_PER_PIXEL
    a, b = before.pixels, after.pixels
    cells: set[tuple[int, int]] = set()
    for y in range(after.height):
        start = y * stride
        row_a, row_b = a[start : start + stride], b[start : start + stride]
        if row_a == row_b:
            continue
        row = y // CELL_H
        left = first_difference(row_a, row_b) // step
        right = (stride - 1 - first_difference(row_a[::-1], row_b[::-1])) // step
        for col in range(left, right + 1):
            offset = col * step
            if (col, row) not in cells and row_a[offset : offset + step] != row_b[offset : offset + step]:
                cells.add((col, row))
    return cells


def _distance(cell: tuple[int, int], x: int, y: int) -> int:
    """Pixels from the point to the cell (0 inside it)."""
    left, top = cell[0] * CELL_W, cell[1] * CELL_H
    dx = max(left - x, x - (left + CELL_W - 1), 0)
    dy = max(top - y, y - (top + CELL_H - 1), 0)
    return max(dx, dy)
