"""The workflow's own top-level windows are known by their titles, never taken for a dialog.

Seen on a native application: its main window, once moved, was "unknown dialog (not in the catalog)".
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.dialogs.classification import first
from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation.checkers.dialog_presence import DialogPresenceChecker
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import Expected, Observed, Target
from rpa_mcp.validation.ports import DialogHit
from rpa_mcp.validation.text import own_window

MAIN = "Admission — MOREL {{*}}"  # the recorded title, the run's patient filled in


class Locator:
    """Finds one box titled `title` on the frame after the action (none before)."""

    def __init__(self, title: str) -> None:
        self.title = title

    def locate(self, image: np.ndarray, *, previous: np.ndarray | None = None, windows=()) -> DialogHit | None:
        if not image.any():
            return None
        return DialogHit((100, 80, 600, 400), dialog_id="unknown", policy="pause", title=self.title, confidence=0.6)


def dialog_score(title: str, own_windows: tuple[str, ...]) -> float:
    before = np.zeros((600, 900, 3), np.uint8)
    after = before.copy()
    after[80:480, 100:700] = 230  # the box moved in
    ctx = CheckContext(
        "click_anchor",
        before,
        after,
        Target("Rechercher", (10, 10, 80, 24)),
        Expected(own_windows=own_windows),
        Observed(),
        FakeOcr(),
        dialog_locator=Locator(title),
    )
    return DialogPresenceChecker().run(ctx, "dialog", {}).score


def test_the_application_main_window_moved_is_not_a_dialog() -> None:
    assert dialog_score("Admission — MOREL Jean", (MAIN,)) == 0.0


def test_a_box_with_another_title_is_still_a_dialog() -> None:
    assert dialog_score("Confirmer la suppression", (MAIN,)) >= 0.5
    assert dialog_score("Admission — MOREL Jean", ()) >= 0.5  # no window of the workflow known: a dialog


def test_only_the_whole_title_names_an_own_window() -> None:
    assert own_window("Admission — MOREL Jean", [MAIN]) == MAIN
    assert own_window("Admission", [MAIN]) is None  # the application's own dialog box, titled by its name
    assert own_window("Admission — DUPONT Jean", [MAIN]) is None  # another patient's window


def test_a_window_icon_read_before_the_title_is_not_the_title() -> None:
    # a small window's icon in its title bar read as "00": the title is the line of words after it
    assert first(["00", "Admission — MOREL Jean", "Nom du patient"]) == "Admission — MOREL Jean"
    assert first(["Enregistrer les modifications ?", "Oui"]) == "Enregistrer les modifications ?"
    assert first(["12"]) == "12"  # no line of words: the first line, as read
