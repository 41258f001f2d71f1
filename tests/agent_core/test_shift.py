"""How far a scroll moved the content is measured on the screen, and not guessed when the screen does not say."""

from __future__ import annotations

from rpa_agent.core.shift import vertical_shift
from rpa_agent.port import Frame

WIDTH, HEIGHT, SIDEBAR, TITLE = 320, 400, 80, 30


def page(offset: int, *, noise: int = 0) -> Frame:
    """A window: a title bar and a sidebar that stay, a page scrolled to `offset` beside them, a white margin."""
    rows = []
    for y in range(HEIGHT):
        if y < TITLE:
            rows.append(bytes([40, 40, 40, 255]) * WIDTH)
            continue
        side = ((y * 2246822519 + noise * 3266489917) % 2**32).to_bytes(4, "big") * SIDEBAR  # it stays
        line = offset + y
        text = (line * 2654435761 % 2**32).to_bytes(4, "big") * 100 if line % 3 else bytes([255] * 4) * 100
        rows.append(side + text + bytes([255] * 4) * (WIDTH - SIDEBAR - 100))
    return Frame(WIDTH, HEIGHT, b"".join(rows))


def test_content_scrolled_beside_a_sidebar_that_stays_is_measured() -> None:
    assert vertical_shift(page(0), page(53)) == -53  # scrolled down: the content moved up
    assert vertical_shift(page(120), page(40)) == 80


def test_the_same_screen_moved_nothing() -> None:
    assert vertical_shift(page(10), page(10)) == 0


def test_frames_that_do_not_say_give_no_shift() -> None:
    assert vertical_shift(page(0), Frame(WIDTH, HEIGHT - 1, page(0).pixels[: WIDTH * 4 * (HEIGHT - 1)])) is None
    blank = Frame(WIDTH, HEIGHT, bytes([255]) * WIDTH * HEIGHT * 4)
    assert vertical_shift(blank, page(0)) is None  # nothing seen once before: no row to follow
    assert vertical_shift(page(0), page(0, noise=7)) is None  # only the sidebar redrawn: nothing moved
