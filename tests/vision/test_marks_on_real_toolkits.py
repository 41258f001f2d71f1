"""Radio buttons and check buttons as Tk and GTK draw them on a real X display, read from the screen's pixels.

Tk exposes no accessibility tree: the mark beside a button's text is all there is (GTK's is read here as an
application with its accessibility bridge off would be). Each look Tk draws (its classic widgets, and the
themed ones in the default, clam and alt themes) and GTK 3's is shown with a selected and a non-selected
radio button, a ticked and a blank check button; every button's text is boxed as OCR boxes a line (its ink,
padded), and the mark beside it is read: a radio's round mark, a check button's square, each with its
state, never one taken for the other.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.desktop_rig.admission import SYSTEM_PYTHON, gtk_missing
from rpa_mcp.desktop_rig.dispensation import missing
from rpa_mcp.desktop_rig.harness import VirtualDisplay, wait_until
from rpa_mcp.vision.marks import Mark, mark_beside
from tests.agent_x11.conftest import require_desktop

pytestmark = pytest.mark.desktop

APP, GTK_APP = Path(__file__).parent / "tk_marks_app.py", Path(__file__).parent / "gtk_marks_app.py"
LOOKS = ("classic", "default", "clam", "alt", "gtk")


@pytest.fixture(scope="module")
def screen(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, dict[str, list[dict[str, Any]]]]:
    """The screen showing every look's window, and each window's buttons."""
    require_desktop()
    absent = missing() + gtk_missing()
    if absent:
        reason = f"the Tk and GTK windows need Debian packages {', '.join(absent)}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must provide them")
        pytest.skip(reason)
    workdir = tmp_path_factory.mktemp("tk-marks")
    with VirtualDisplay(workdir, window_manager=False) as desk:
        layouts = {look: workdir / f"{look}.json" for look in LOOKS}
        for i, (look, layout) in enumerate(layouts.items()):
            app = [SYSTEM_PYTHON, str(GTK_APP)] if look == "gtk" else [sys.executable, str(APP), look]
            desk.spawn([*app, str(240 * i), str(layout)], log=f"marks-{look}")
        wait_until(lambda: all(p.exists() for p in layouts.values()), timeout=60, what="the Tk windows drawn")
        desk.wait_still()
        image = cv2.imread(str(desk.screenshot(workdir / "screen.png")))
    return image, {look: json.loads(path.read_text("utf-8")) for look, path in layouts.items()}


def text_line(image: np.ndarray, box: list[int], *, with_mark: bool = False) -> tuple[int, int, int, int]:
    """A button's text as OCR boxes a line: its ink right of the mark, padded by 2 px (`with_mark`: the mark
    boxed with it, as OCR may box a glyph-like mark at a line's start)."""
    x, y, w, h = box
    gray = cv2.cvtColor(image[y : y + h, x : x + w], cv2.COLOR_BGR2GRAY).astype(np.int16)
    ink = np.abs(gray - np.argmax(np.bincount(gray.ravel()))) > 30  # anything unlike the window's colour
    columns = np.flatnonzero(ink.any(axis=0))
    groups = np.split(columns, np.flatnonzero(np.diff(columns) > 2) + 1)  # the mark, then the text's letters
    mark_end = groups[0][-1]
    text = columns[columns > mark_end + 2]
    rows = np.flatnonzero(ink[:, text[0] : text[-1] + 1].any(axis=1))
    left = x + (int(groups[0][0]) if with_mark else int(text[0])) - 2
    return left, y + int(rows[0]) - 2, x + int(text[-1]) + 3 - left, int(rows[-1] - rows[0]) + 5


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("with_mark", [False, True])
def test_each_buttons_mark_and_state_are_read_on_the_toolkits_pixels(screen: Any, look: str, with_mark: bool) -> None:
    image, layouts = screen
    read = {b["text"]: mark_beside(image, text_line(image, b["box"], with_mark=with_mark)) for b in layouts[look]}
    assert read == {b["text"]: Mark(b["kind"], b["state"]) for b in layouts[look]}, look
