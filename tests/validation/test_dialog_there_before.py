"""A box the locator reads as a dialog after an action is not one that appeared when it was there before, or
when it shows what the demonstration showed after the step.

Seen on a native desk: after typing a reason, the check box line above it and the filled field were located
as a dialog titled by the check box, the typed text its button; after the save, the confirmation bar was
located as a dialog titled by the line above it. Both paused the run (`UNEXPECTED_DIALOG`).
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation.checkers.dialog_presence import DialogPresenceChecker
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import Expected, Observed, Target
from rpa_mcp.validation.ports import DialogHit
from rpa_mcp.vision.images import BBox

REGION = (300, 200, 341, 60)  # the check box line and the reason field under it
FIELD = (302, 234, 338, 25)
ERROR = (250, 150, 420, 180)  # an error box that popped up over the form


class Locator:
    """Finds `hit` on any frame where its box holds `marker` at its top left corner (none elsewhere)."""

    def __init__(self, hit: DialogHit, *, only_after: bool = True) -> None:
        self.hit, self.only_after = hit, only_after
        self.calls = 0

    def locate(self, image: np.ndarray, *, previous: np.ndarray | None = None, windows=()) -> DialogHit | None:
        self.calls += 1
        x, y, _w, _h = self.hit.bbox
        return self.hit if image[y + 1, x + 1, 0] == 90 else None


def form() -> np.ndarray:
    frame = np.full((700, 1000, 3), 240, np.uint8)
    x, y, w, h = REGION
    frame[y : y + h, x : x + w] = 90  # the region's outline and its check box line
    frame[y + 2 : y + h - 2, x + 2 : x + w - 2] = 235
    frame[y + 8 : y + 20, x + 24 : x + 150 : 4] = 30  # "Transport sanitaire": glyph strokes
    frame[y + 8 : y + 20, x + 25 : x + 150 : 4] = 30
    fx, fy, fw, fh = FIELD
    frame[fy : fy + fh, fx : fx + fw] = 255  # the empty reason field
    return frame


def typed(frame: np.ndarray) -> np.ndarray:
    after = frame.copy()
    fx, fy, _fw, fh = FIELD
    after[fy + 7 : fy + fh - 7, fx + 6 : fx + 260] = 20  # the reason typed
    return after


def score(before: np.ndarray, after: np.ndarray, hit: DialogHit, expected: Expected | None = None) -> float:
    ctx = CheckContext(
        "type_text",
        before,
        after,
        Target("Motif :", FIELD, point=(330, 246)),
        expected or Expected(),
        Observed(),
        FakeOcr(),
        dialog_locator=Locator(hit),
    )
    return DialogPresenceChecker().run(ctx, "dialog", {}).score


def region_hit(box: BBox = REGION) -> DialogHit:
    return DialogHit(
        box,
        dialog_id="unknown",
        policy="pause",
        title="Transport sanitaire",
        confidence=0.85,
        buttons=(("Tremblement de repos", (308, 240, 200, 14)),),
    )


def test_the_form_region_holding_the_field_typed_into_was_there_before_and_is_no_dialog() -> None:
    before = form()
    before[REGION[1] + 1, REGION[0] + 1] = 91  # the locator reads no dialog there before (no button yet)
    x, y, _w, _h = REGION
    before[y + 4, x + 6 : x + 160 : 2] = before[y + 24, x + 6 : x + 160 : 2] = 60  # the check box's focus ring,
    before[y + 4 : y + 25 : 2, x + 6] = before[y + 4 : y + 25 : 2, x + 160] = 60  # gone when the field takes it
    after = typed(form())
    assert score(before, after, region_hit()) == 0.0


def test_an_error_box_that_pops_up_after_typing_is_still_an_unexpected_dialog() -> None:
    before = form()
    before[REGION[1] + 1, REGION[0] + 1] = 91
    after = typed(form())
    x, y, w, h = ERROR
    after[y : y + h, x : x + w] = 90  # its frame ...
    after[y + 3 : y + h - 3, x + 3 : x + w - 3] = 250
    after[y + 40 : y + 54, x + 20 : x + 300] = 10  # ... its message and its button
    after[y + h - 40 : y + h - 14, x + w - 100 : x + w - 20] = 200
    error = DialogHit(ERROR, dialog_id="unknown", policy="pause", title="Erreur", confidence=0.8)
    assert score(before, after, error) >= 0.8  # over the field typed into: new pixels all over its box
    elsewhere = (600, 400, 300, 150)
    after = typed(form())
    ex, ey, ew, eh = elsewhere
    after[ey : ey + eh, ex : ex + ew] = 90
    after[ey + 3 : ey + eh - 3, ex + 3 : ex + ew - 3] = 250
    far = DialogHit(elsewhere, dialog_id="unknown", policy="pause", title="Erreur", confidence=0.8)
    assert score(before, after, far) >= 0.8  # away from it


def test_a_box_that_appeared_around_the_field_is_still_a_dialog() -> None:
    before = np.full((700, 1000, 3), 240, np.uint8)  # nothing there before: the whole box is new
    fx, fy, fw, fh = FIELD
    before[fy : fy + fh, fx : fx + fw] = 255
    after = typed(form())
    assert score(before, after, region_hit()) >= 0.8


BAR = (20, 600, 960, 70)
SAVED = "Rendez-vous enregistré : PERRIN Anaïs — Endocrinologie — le 07/12/2026."


def bar_hit() -> DialogHit:
    return DialogHit(
        BAR,
        dialog_id="unknown",
        policy="pause",
        title="2 patient(s) trouvé(s) pour « PERRIN ».",
        confidence=0.8,
        buttons=((SAVED, (40, 625, 600, 20)), ("Close", (900, 625, 40, 20))),
    )


def saved() -> tuple[np.ndarray, np.ndarray]:
    before = np.full((700, 1000, 3), 240, np.uint8)
    after = before.copy()
    x, y, w, h = BAR
    after[y : y + h, x : x + w] = 90
    after[y + 2 : y + h - 2, x + 2 : x + w - 2] = 200
    after[625:645, 40:640] = 20
    return before, after


def test_the_confirmation_the_demonstration_showed_after_the_save_is_its_outcome_not_a_dialog() -> None:
    before, after = saved()
    wanted = Expected(outcome_kind="message", outcome_text="Rendez-vous enregistré : PERRIN Anaïs — {{*}}")
    assert score(before, after, bar_hit(), wanted) == 0.0


def test_a_bar_showing_another_message_or_none_expected_is_still_a_dialog() -> None:
    before, after = saved()
    assert score(before, after, bar_hit()) >= 0.8
    other = Expected(outcome_kind="message", outcome_text="Rendez-vous annulé")
    assert score(before, after, bar_hit(), other) >= 0.8
    known = DialogHit(BAR, dialog_id="app-error", policy="pause", title="Erreur", buttons=((SAVED, BAR),))
    wanted = Expected(outcome_kind="message", outcome_text=SAVED)
    assert score(before, after, known, wanted) >= 0.8  # a dialog the catalog names is judged as such
