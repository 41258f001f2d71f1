"""An option is looked for in the list its drop-down opened at replay, and accepted there however far it
reaches; never outside it.

The last of eight options lay 0.22 of the screen below the drop-down that opened it: beyond the drift
guard's reach of the point clicked, the right option was refused. The agent now sends the box of the list
it saw open (`opened_list`): the option is read in that list only and accepted inside it; the same word
elsewhere on the screen, even right beside the drop-down, is refused.
"""

from __future__ import annotations

from tests.replay.test_first_look import SCREEN, ScreenOcr, resolver

W, H = SCREEN.shape[1], SCREEN.shape[0]
DROP_DOWN = (1285, 287)  # where the drop-down was clicked at replay
LIST = (1180, 305, 240, 250)  # the list it opened, below it: eight lines, 30 px apart
OPTION = {
    "label": "ORL",
    "by_text": "ORL",
    "rel_x": DROP_DOWN[0] / W,
    "rel_y": DROP_DOWN[1] / H,
    "resolve_order": ["ocr"],
}
IN_LIST = {**OPTION, "opened_list": [LIST[0] / W, LIST[1] / H, LIST[2] / W, LIST[3] / H]}
LAST_LINE = ("ORL", (1190, 522, 30, 14), 0.98)  # 0.22 of the screen below the drop-down


def test_the_last_option_of_a_long_list_is_accepted_inside_the_list_its_drop_down_opened() -> None:
    assert not resolver(ScreenOcr([LAST_LINE])).resolve(SCREEN, OPTION).resolved  # the guard from the point: refused
    res = resolver(ScreenOcr([LAST_LINE])).resolve(SCREEN, IN_LIST)
    assert res.resolved and (res.x, res.y) == (1205, 529)


def test_the_same_word_outside_the_opened_list_is_refused_even_beside_the_drop_down() -> None:
    beside = ("ORL", (1450, 280, 30, 14), 0.98)  # a word already on the screen, next to the drop-down
    assert resolver(ScreenOcr([beside])).resolve(SCREEN, OPTION).resolved  # the point's guard let it through
    res = resolver(ScreenOcr([beside])).resolve(SCREEN, IN_LIST)
    assert not res.resolved and res.method.startswith(("rejected_drift", "not_found"))


def test_only_the_opened_list_is_read() -> None:
    ocr = ScreenOcr([LAST_LINE])
    resolver(ocr).resolve(SCREEN, IN_LIST)
    assert ocr.shapes == [(LIST[3] + 12, LIST[2] + 12)]  # the list and its border, not the regions around the point
