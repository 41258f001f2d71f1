"""What the classifier answers: the entry a dialog is taken for, and the evidence that decided."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from rpa_mcp.dialogs.apps import AppCheck, AppConfirmer
from rpa_mcp.dialogs.catalog import DialogEntry
from rpa_mcp.dialogs.naming import bound
from rpa_mcp.vision.images import BBox


@dataclass(frozen=True)
class ReadButton:
    label: str
    bbox: BBox  # frame coordinates


@dataclass(frozen=True)
class Classification:
    dialog_id: str
    entry: DialogEntry
    confidence: float
    source: str  # process | title | screenshot | none
    found: bool = True  # False: nothing dialog-like in the screenshot
    bbox: BBox | None = None
    title: str | None = None
    buttons: tuple[ReadButton, ...] = ()
    lines: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # evidence: the application confirmed by what (window | signature | none; "" when the entry belongs
    # to no application), the region found how (the locator's evidence, "window title", "words"), and
    # the path that found it (title | fast | thorough)
    app: str | None = None
    app_confirmed_by: str = ""
    region_found_by: str = ""
    path: str = "fast"

    @property
    def category(self) -> str:
        return self.entry.category

    @property
    def policy(self) -> str:
        return self.entry.policy


TITLE_LETTERS = 2  # a title line holds a word


def seen(
    entry: DialogEntry,
    confidence: float,
    bbox: BBox | None,
    buttons: Sequence[ReadButton],
    lines: Sequence[str],
    notes: Sequence[str],
) -> Classification:
    """A dialog found in the screenshot and named `entry` (its first line taken for its title)."""
    return Classification(
        entry.id, entry, confidence, "screenshot", True, bbox, first(lines), tuple(buttons), tuple(lines), tuple(notes)
    )


def with_app(found: Classification, confirm: AppConfirmer) -> Classification:
    """The classification with the evidence that its application is (or is not) the one showing it."""
    app = found.entry.app
    if app is None:
        return found
    # a pause entry's application is reported, not looked for in the frame (that costs a read)
    check: AppCheck = confirm.check(app, read_frame=bound(found.entry))
    return replace(found, app=app, app_confirmed_by=check.by)


def first(lines: Sequence[str]) -> str | None:
    """The box's title: its first line of words (a window's icon read as "00" before it is no title)."""
    titled = (line for line in lines if sum(c.isalpha() for c in line) >= TITLE_LETTERS)
    return next(titled, lines[0] if lines else None)
