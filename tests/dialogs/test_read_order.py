"""Which candidates the classifier reads: the best ones, then any box with a footer of buttons left."""

from __future__ import annotations

from rpa_mcp.dialogs.classifier import CANDIDATES_READ, FOOTERS_READ, _to_read
from rpa_mcp.dialogs.locate import ModalRegion


def _region(i: int, *evidence: str) -> ModalRegion:
    buttons = ((10 * i + 100, 60, 80, 30),) if "buttons" in evidence else ()
    return ModalRegion((10 * i, 0, 200, 100), buttons, 5.0 - i, evidence)


def test_a_dialog_outranked_by_page_cards_is_still_read():
    ranked = [
        _region(0, "buttons"),  # a page card with a row of cells
        _region(1, "buttons"),  # a header strip whose words look like buttons
        _region(2, "panel"),  # a floating box without buttons: only the best ones are read
        _region(3, "buttons"),  # the dialog, ranked fourth
        _region(4, "buttons"),
        _region(5, "buttons"),  # beyond FOOTERS_READ
    ]
    read = _to_read(ranked)
    assert read[:CANDIDATES_READ] == ranked[:CANDIDATES_READ]
    assert read[CANDIDATES_READ:] == [ranked[3], ranked[4]][:FOOTERS_READ]
    assert ranked[2] not in read and ranked[5] not in read


def test_nothing_more_is_read_when_no_footer_is_left():
    ranked = [_region(0, "panel"), _region(1, "shadow", "panel"), _region(2, "new")]
    assert _to_read(ranked) == ranked[:CANDIDATES_READ]
