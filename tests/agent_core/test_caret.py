"""A text caret's blink, told from a change of the screen (`rpa_agent.core.caret`)."""

from __future__ import annotations

import pytest
from rpa_agent.core.caret import caret_only
from rpa_agent.port import Frame

WIDTH, HEIGHT = 200, 120


def screen(*bars: tuple[int, int, int, int]) -> Frame:
    """A grey screen with black bars (x, y, width, height) drawn on it."""
    pixels = bytearray(b"\xc0\xc0\xc0\xff" * (WIDTH * HEIGHT))
    for x, y, w, h in bars:
        for row in range(y, y + h):
            pixels[(row * WIDTH + x) * 4 : (row * WIDTH + x + w) * 4] = b"\x00\x00\x00\xff" * w
    return Frame(WIDTH, HEIGHT, bytes(pixels))


@pytest.mark.parametrize("width", [1, 2, 3])
def test_a_bar_as_thin_and_tall_as_a_caret_appearing_or_vanishing_is_a_blink(width: int) -> None:
    plain, caret = screen(), screen((120, 40, width, 16))
    assert caret_only(plain, caret)
    assert caret_only(caret, plain)


def test_a_caret_at_the_screen_s_edges_is_a_blink() -> None:
    assert caret_only(screen(), screen((0, 0, 2, 16)))
    assert caret_only(screen(), screen((WIDTH - 2, HEIGHT - 16, 2, 16)))


@pytest.mark.parametrize(
    "bar",
    [
        (120, 40, 4, 16),  # wider than a caret: a glyph, a tick
        (120, 40, 2, 4),  # shorter than a line of text
        (120, 10, 2, 100),  # taller than a line: a border, a splitter
    ],
)
def test_a_bar_of_another_size_is_a_change(bar: tuple[int, int, int, int]) -> None:
    assert not caret_only(screen(), screen(bar))


def test_two_bars_in_two_places_are_a_change() -> None:
    assert not caret_only(screen(), screen((120, 40, 2, 16), (20, 40, 2, 16)))  # a caret moved
    assert not caret_only(screen(), screen((120, 40, 2, 16), (120, 80, 2, 16)))


def test_the_caret_beside_a_change_is_a_change() -> None:
    assert not caret_only(screen((120, 40, 2, 16)), screen((60, 40, 10, 16)))


def test_the_same_screen_or_another_size_is_no_blink() -> None:
    assert not caret_only(screen(), screen())
    assert not caret_only(screen(), Frame(WIDTH + 1, HEIGHT, b"\x00" * ((WIDTH + 1) * HEIGHT * 4)))
