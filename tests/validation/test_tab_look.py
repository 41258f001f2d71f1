"""Which tab looks active: a browser's (white over a grey strip) and an application's (filled among plain)."""

from __future__ import annotations

import numpy as np

from rpa_mcp.validation.checkers.tabs import active_look

TABS = [(40, 159), (203, 187), (394, 138), (536, 104), (644, 112), (760, 130)]  # x, width
TOP, HEIGHT = 225, 45


def strip(active: int, *, page: tuple[int, int, int], plain: tuple[int, int, int], filled: tuple[int, int, int],
          under: tuple[int, int, int]) -> np.ndarray:  # fmt: skip
    image = np.zeros((600, 1200, 3), np.uint8)
    image[:] = page
    image[TOP + HEIGHT + 2 :] = under  # what lies under the strip (a panel, a toolbar)
    for i, (x, w) in enumerate(TABS):
        image[TOP : TOP + HEIGHT, x : x + w] = filled if i == active else plain
    return image


def box(i: int) -> tuple[int, int, int, int]:
    x, w = TABS[i]
    return (x, TOP, w, HEIGHT)


def test_an_application_tab_filled_with_its_accent_is_the_active_one():
    # The demo application: plain white tabs over a white panel, the active one filled blue.
    before = strip(0, page=(249, 246, 244), plain=(255, 255, 255), filled=(173, 92, 11), under=(255, 255, 255))
    after = strip(1, page=(249, 246, 244), plain=(255, 255, 255), filled=(173, 92, 11), under=(255, 255, 255))
    assert active_look(before, box(1)) == 0.0  # plain like the rest of its strip: not active
    assert (active_look(after, box(1)) or 0.0) >= 0.5
    assert active_look(after, box(2)) == 0.0


def test_a_browser_tab_that_shares_the_toolbar_colour_is_the_active_one():
    after = strip(1, page=(230, 225, 222), plain=(230, 225, 222), filled=(255, 255, 255), under=(255, 255, 255))
    assert (active_look(after, box(1)) or 0.0) >= 0.5
    assert (active_look(after, box(3)) or 0.0) < 0.5


def underlined(active: int) -> np.ndarray:
    """GTK 3's document tabs: every tab the strip's grey, the active one underlined in the accent
    colour, the white text view under the strip."""
    grey = (219, 222, 225)
    image = strip(active, page=grey, plain=grey, filled=grey, under=(255, 255, 255))
    x, w = TABS[active]
    image[TOP + HEIGHT - 4 : TOP + HEIGHT, x : x + w] = (228, 132, 53)
    return image


def test_a_tab_underlined_among_plain_ones_is_the_active_one():
    before, after = underlined(0), underlined(1)
    assert active_look(before, box(1)) == 0.0  # the underline runs under the first tab
    assert active_look(after, box(1)) == 1.0
    assert active_look(after, box(0)) == 0.0
    # a label box, tighter than its tab, still has the underline under its middle
    x, y, w, h = box(1)
    assert active_look(after, (x + 20, y + 6, w - 40, h - 6), loose=True) == 1.0


def test_the_edge_of_the_page_under_every_tab_is_no_underline():
    grey = (219, 222, 225)
    image = strip(1, page=grey, plain=grey, filled=grey, under=(255, 255, 255))
    assert (active_look(image, box(1)) or 0.0) < 0.5


def test_a_sheet_tab_marked_by_an_accent_bar_along_its_top_is_the_active_one():
    # a spreadsheet's sheet tabs: every tab the strip's grey, the active one with a bar of the accent
    # colour along its top edge, the grey outline of every tab along its top too
    grey = (219, 222, 225)

    def sheets(active: int) -> np.ndarray:
        image = strip(active, page=grey, plain=grey, filled=grey, under=(255, 255, 255))
        for x, w in TABS:
            image[TOP, x : x + w] = (150, 150, 150)  # each tab's outline
        x, w = TABS[active]
        image[TOP + 2 : TOP + 6, x : x + w] = (228, 132, 53)
        return image

    before, after = sheets(0), sheets(1)
    assert active_look(before, box(1)) == 0.0
    assert active_look(after, box(1)) == 1.0
    assert active_look(after, box(2)) == 0.0


def test_a_grey_outline_along_a_tabs_top_is_no_accent_bar():
    grey = (219, 222, 225)
    image = strip(1, page=grey, plain=grey, filled=grey, under=(255, 255, 255))
    x, w = TABS[2]
    image[TOP + 2, x : x + w] = (120, 120, 120)  # one tab's darker outline only
    assert (active_look(image, box(2)) or 0.0) < 0.5


def test_a_wide_tab_is_judged_against_the_strip_beyond_its_own_edges():
    # A browser's three tabs sharing the whole strip: the active one a shade lighter, its label's box
    # a small part of it (its own colour on hundreds of pixels each side is no strip beside it).
    image = np.full((300, 1920, 3), 255, np.uint8)
    image[47:91] = (210, 214, 218)
    image[47:91, 640:1280] = (227, 230, 232)
    label = (916, 47, 88, 44)
    assert (active_look(image, label, loose=True) or 0.0) >= 0.5
    assert (active_look(image, (276, 47, 88, 44), loose=True) or 0.0) < 0.5
