"""Pairs of real actions any program's scene can give: a click on a label that changes nothing, a browser tab
switched to and closed."""

from __future__ import annotations

import time

import cv2
import numpy as np

from rpa_mcp.screens.real_programs import BBox, Session, center, grow, word_box

EDIT = ("edit", "édition")  # a menu bar's Edit menu
UNDO = ("undo", "annuler", "can't undo", "impossible d'annuler")


def idle_click(s: Session, words: tuple[str, ...], region: BBox, description: str) -> None:
    """A click on a label read as one of `words` in `region` that changes nothing: a NO_VISUAL_CHANGE pair
    (refused when the screen changed after all)."""
    before = s.settle()
    box, label = s.find_text(before, words, region)
    s.click(center(box))
    time.sleep(0.8)
    after = s.settle()
    if int(np.count_nonzero(cv2.absdiff(before, after).max(axis=2) > 24)):
        raise LookupError(f"{s.program}: the click on '{label}' changed the screen")
    b, a = s.save("idle-click-before", before), s.save("idle-click-after", after)
    s.pair(
        "idle-click",
        b,
        a,
        {"type": "click_anchor", "label": label, "bbox": list(grow(box, 6)), "point": list(center(box))},
        "FAILURE",
        "NO_VISUAL_CHANGE",
        description,
    )


def tab_switch_and_close(s: Session, strip: BBox, word: str) -> None:
    """A click on the browser tab read as `word` in its tab `strip`, then Ctrl+W closing it: two SUCCESS pairs."""
    before = s.settle()
    tab, label = s.find_text(before, (word,), strip)
    s.click(center(tab))
    time.sleep(0.8)
    after = s.settle()
    b, a = s.save("tab-switch-before", before), s.save("tab-switch-after", after)
    tab_box = list(grow(tab, 8))
    s.pair(
        "switch-tab",
        b,
        a,
        {"type": "switch_tab", "label": label, "bbox": tab_box, "point": list(center(tab))},
        "SUCCESS",
        None,
        f"a click on the tab '{label}'",
    )
    before = s.settle()
    s.key("ctrl+w")
    time.sleep(0.8)
    after = s.settle()
    b, a = s.save("tab-close-before", before), s.save("tab-close-after", after)
    s.pair(
        "close-tab",
        b,
        a,
        {"type": "close_tab", "label": label, "bbox": tab_box, "point": None},
        "SUCCESS",
        None,
        f"the active tab '{label}' closed (Ctrl+W)",
    )


def greyed_menu_entry(
    s: Session, shown: np.ndarray, menu: tuple[str, ...], entry: tuple[str, ...], window: BBox
) -> None:
    """The menu bar's menu read as one of `menu` opened, its greyed-out entry read as one of `entry`
    clicked: the menu stays as it was, a caret aside (a NO_VISUAL_CHANGE pair; refused otherwise)."""
    x, y, w, _ = window
    title = _menu_title(s, shown, menu, (x, max(0, y - 40), w // 2, 80))  # the menu bar, under the title
    s.click(center(title))
    time.sleep(1.0)
    before = s.settle()
    box, label = s.find_text(before, entry, (title[0] - 10, title[1] + title[3], 420, 120))
    s.click(center(box))
    after = s.first_change(before)
    if int(np.count_nonzero(cv2.absdiff(before, after).max(axis=2) > 24)) > 150:
        raise LookupError(f"{s.program}: the click on the greyed-out '{label}' changed the screen")
    b, a = s.save("greyed-click-before", before), s.save("greyed-click-after", after)
    action = {"type": "click_anchor", "label": label, "bbox": list(grow(box, 6)), "point": list(center(box))}
    s.pair("greyed-menu-entry", b, a, action, "FAILURE", "NO_VISUAL_CHANGE", f"a click on the greyed-out '{label}'")
    s.key("Escape")
    time.sleep(0.8)


def _menu_title(s: Session, shown: np.ndarray, words: tuple[str, ...], region: BBox) -> BBox:
    """The box of a menu bar's title read as one of `words`, alone or within the bar read as one line."""
    x0, y0, w, h = region
    for line in s.ocr.read(shown[y0 : y0 + h, x0 : x0 + w]):
        text = line.text.replace("_", "")
        for word in words:
            if word in text.lower().split():
                bx, by, bw, bh = word_box(line.bbox, text.lower(), word)
                return (x0 + bx, y0 + by, bw, bh)
    raise LookupError(f"{s.program}: no menu {words} read in {region}")
