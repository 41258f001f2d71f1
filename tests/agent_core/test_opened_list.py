"""Where a drop-down's list opened, told by what changed on the screen since the click (no desktop needed)."""

from __future__ import annotations

from rpa_agent.core.opened_list import opened_box
from rpa_agent.port import Frame

W, H = 640, 480
GREY, WHITE, INK = b"\xec\xec\xec\xff", b"\xff\xff\xff\xff", b"\x20\x20\x20\xff"
DROP_DOWN = (300, 60)  # the point clicked


def screen() -> bytearray:
    return bytearray(GREY * (W * H))


def paint(pixels: bytearray, box: tuple[int, int, int, int], colour: bytes) -> None:
    x, y, w, h = box
    for row in range(y, y + h):
        pixels[(row * W + x) * 4 : (row * W + x + w) * 4] = colour * w


def frame(pixels: bytearray) -> Frame:
    return Frame(W, H, bytes(pixels))


def test_the_list_drawn_below_the_drop_down_is_its_box_however_far_it_reaches() -> None:
    before = screen()
    paint(before, (500, 400, 30, 10), INK)  # the same word elsewhere, on the screen before the click
    after = bytearray(before)
    paint(after, (240, 75, 160, 300), WHITE)  # the list, just below the drop-down
    for line in range(8):
        paint(after, (246, 84 + 36 * line, 40, 10), INK)
    paint(after, (600, 10, 2, 12), INK)  # a caret far away: no part of the list
    box = opened_box(frame(before), frame(after), DROP_DOWN)
    assert box is not None
    x, y, w, h = box
    assert x <= 240 and y <= 75 and x + w >= 400 and y + h >= 375  # the whole list
    assert x + w < 500 and y + h < 400  # neither the word elsewhere nor the caret


def test_a_list_drawn_like_its_window_is_joined_line_to_line() -> None:
    before = screen()
    after = bytearray(before)
    for line in range(8):  # no background of its own: only its lines of text changed
        paint(after, (246, 75 + 30 * line, 40, 10), INK)
    box = opened_box(frame(before), frame(after), DROP_DOWN)
    assert box is not None and box[1] + box[3] >= 75 + 30 * 7 + 10


def test_no_change_near_the_drop_down_or_a_page_redrawn_tells_no_list() -> None:
    before = screen()
    far = bytearray(before)
    paint(far, (500, 400, 60, 40), WHITE)
    assert opened_box(frame(before), frame(far), DROP_DOWN) is None
    page = bytearray(before)
    paint(page, (0, 40, W, H - 40), WHITE)
    assert opened_box(frame(before), frame(page), DROP_DOWN) is None
