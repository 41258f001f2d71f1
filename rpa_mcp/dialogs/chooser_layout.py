"""A file chooser found by its layout on a whole frame, in any toolkit.

A Save, Open or OK button beside Cancel on one row, under a list of files (names with an extension, each
file once: a title or a sentence naming a file again is that file), or the Name / Size / Type / Modified
columns; Save gives `file-save-as`, Open `file-open`, OK `file-save-as` when a new name's field is labelled
above ("New File Name:", not the "File name:" of open boxes too) or a "Save As" / "Save To" title is (the
band above the chooser read on its own when the whole frame missed a faint title bar), else `file-open`; an
accept button greyed out (not read): Cancel right under the file name's field, the same way; a header bar
(GNOME's dialogs): Cancel at the left end of the title row, Save or Open at its right end, the list of files
under them. Words are those of `rpa_mcp.dialogs.structure`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rpa_mcp.dialogs.matching import compact
from rpa_mcp.dialogs.structure import (
    CANCEL,
    COLUMNS,
    FILE_NAME,
    FILE_NAME_FIELD,
    MIN_COLUMNS,
    MIN_FILES,
    OK_ONLY,
    accept_kind,
    around,
    file_name_field,
    is_label,
    ok_kind,
    on_row,
    under,
)
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrLine

CHOOSER_BUTTON_GAP = 520  # px at 1080 rows: Save and Cancel of one chooser lie this close
CHOOSER_LIST_W = 1400  # px at 1080 rows: the file list lies within this of the buttons, to their left


@dataclass(frozen=True)
class Chooser:
    kind: str  # file-save-as | file-open
    bbox: BBox
    buttons: tuple[OcrLine, ...]
    why: str
    guessed: bool = False  # no accept button names the action (OK, greyed out): the words above tell it


TITLE_BAND_H = 160  # px at 1080 rows above a chooser's list where its own title bar lies


def title_band(chooser: BBox, frame_height: int) -> BBox:
    """The band above a chooser's list and buttons, as wide: its path field, its title bar."""
    x, y, w, _ = chooser
    band = round(TITLE_BAND_H * max(1.0, frame_height / 1080))
    top = max(0, y - band)
    return (x, top, w, y - top)


def listed_file(text: str) -> bool:
    """A line naming a file as a chooser lists it: a web address ("http://host/bio.html", read "http:/host"
    as often: a browser's address bar or a page dialog's title) names a page, never a listed file."""
    return FILE_NAME.search(text.strip()) is not None and ":/" not in text


def listed_files(lines: Sequence[OcrLine]) -> list[OcrLine]:
    """The lines naming files as a chooser lists them, each file once: a list names several files, while a
    question about one file names it again in its title or its sentence ("Opening compte-rendu.txt" over
    "compte-rendu.txt": one file, a download's question, no list)."""
    files = [line for line in lines if listed_file(line.text)]
    kept = each_file_once([line.text for line in files])
    return [line for i, line in enumerate(files) if i in kept]


def each_file_once(texts: Sequence[str]) -> set[int]:
    """The indexes of `texts` (each naming a file) that name each file once: a name read again, or said
    within a sentence or a title ending with it, is the same file."""
    names = [" ".join(text.lower().split()) for text in texts]
    return {
        i
        for i, name in enumerate(names)
        if name not in names[:i] and not any(name.endswith(f" {other}") for other in names)
    }


def file_chooser(read: Sequence[OcrLine], frame_height: int) -> Chooser | None:
    """A file chooser among the lines of a whole frame: an accept button (Save / Open) beside Cancel on
    one row, under a list of files or the columns of one."""
    scale = max(1.0, frame_height / 1080)
    short = [line for line in read if len(line.text) <= 24]
    for accept in short:
        kind = accept_kind(accept.text)
        if kind is None and not is_label(accept.text, OK_ONLY):
            continue
        ax, ay, aw, _ = accept.bbox
        cancel = next(
            (
                c
                for c in short
                if is_label(c.text, CANCEL) and on_row(c, accept) and abs(c.bbox[0] - ax) <= CHOOSER_BUTTON_GAP * scale
            ),
            None,
        )
        # a Win32 chooser stacks its buttons: Cancel right under the accept button, whose row starts
        # with the file name's field ("File name:", "Nom du fichier :")
        stacked = (
            None
            if cancel is not None
            else next((c for c in short if is_label(c.text, CANCEL) and under(c, accept)), None)
        )
        name_field = [
            line for line in read if is_label(line.text, FILE_NAME_FIELD) and line.bbox[0] < ax and on_row(line, accept)
        ]
        cancel = cancel or (stacked if name_field else None)
        if cancel is None:
            continue
        left = min(ax, cancel.bbox[0]) - CHOOSER_LIST_W * scale
        right = max(ax + aw, cancel.bbox[0] + cancel.bbox[2]) + 40 * scale
        above = [line for line in read if line.bbox[1] + line.bbox[3] <= ay and left <= line.bbox[0] <= right]
        files = listed_files(above)
        columns = _columns(above)
        if len(files) < MIN_FILES and len(columns) < MIN_COLUMNS and not (cancel is stacked and name_field):
            continue
        above += name_field
        guessed = kind is None
        kind = kind or ok_kind(above)
        evidence = [*files, *columns, *name_field, accept, cancel]
        listed = (
            f"under {len(files)} file names"
            if len(files) >= MIN_FILES
            else "under the columns of a file list"
            if len(columns) >= MIN_COLUMNS
            else f"beside the field '{name_field[0].text.strip()}'"
        )
        where = "above" if cancel is stacked else "beside"
        why = f"'{accept.text.strip()}' {where} '{cancel.text.strip()}' {listed}"
        return Chooser(kind, around(evidence), (accept, cancel), why, guessed)
    return _greyed_chooser(read, short, scale) or _header_bar_chooser(read, short, scale)


def _greyed_chooser(read: Sequence[OcrLine], short: Sequence[OcrLine], scale: float) -> Chooser | None:
    """A chooser whose accept button is greyed out until a file is picked (not read): Cancel right
    under the file name's field, under a list of files."""
    for cancel in (c for c in short if is_label(c.text, CANCEL)):
        cx, cy, cw, ch = cancel.bbox
        field = next(
            (
                line
                for line in read
                if file_name_field(line.text)
                and line.bbox[0] < cx
                and 0 < cy - line.bbox[1] <= 3 * max(ch, line.bbox[3])
            ),
            None,
        )
        if field is None:
            continue
        left, right = cx - CHOOSER_LIST_W * scale, cx + cw + 40 * scale
        above = [
            line for line in read if line.bbox[1] + line.bbox[3] <= field.bbox[1] and left <= line.bbox[0] <= right
        ]
        files = listed_files(above)
        if len(files) < MIN_FILES and len(_columns(above)) < MIN_COLUMNS:
            continue
        evidence = [*files, field, cancel]
        why = f"'{cancel.text.strip()}' under the field '{field.text.strip()}', its accept button greyed out"
        return Chooser(ok_kind([*above, field]), around(evidence), (cancel,), why, guessed=True)
    return None


def _header_bar_chooser(read: Sequence[OcrLine], short: Sequence[OcrLine], scale: float) -> Chooser | None:
    """A chooser with a header bar (GNOME's dialogs): Cancel at the left end of its title row, Save or
    Open at the right end, however wide the dialog, and the list of files under them."""
    for accept in short:
        kind = accept_kind(accept.text)
        if kind is None:
            continue
        ax, ay, aw, ah = accept.bbox
        cancel = next(
            (
                c
                for c in short
                if is_label(c.text, CANCEL) and on_row(c, accept) and 0 < ax - c.bbox[0] <= CHOOSER_LIST_W * scale
            ),
            None,
        )
        if cancel is None:
            continue
        left, right = cancel.bbox[0] - 40 * scale, ax + aw + 40 * scale
        below = [
            line
            for line in read
            if ay + ah <= line.bbox[1] <= ay + CHOOSER_LIST_W * scale and left <= line.bbox[0] <= right
        ]
        files = listed_files(below)
        columns = _columns(below)
        if len(files) < MIN_FILES and len(columns) < MIN_COLUMNS:
            continue
        evidence = [*files, *columns, accept, cancel]
        listed = f"{len(files)} file names" if len(files) >= MIN_FILES else "the columns of a file list"
        why = f"'{cancel.text.strip()}' and '{accept.text.strip()}' at the ends of a header bar over {listed}"
        return Chooser(kind, around(evidence), (accept, cancel), why)
    return None


def _columns(lines: Sequence[OcrLine]) -> list[OcrLine]:
    """The header of a file list: two or more column names on one row (OCR may read them as one line)."""

    def names(line: OcrLine) -> int:
        return sum(compact(word) in COLUMNS for word in line.text.split())

    heads = [line for line in lines if names(line) and names(line) == len(line.text.split())]
    for head in heads:
        row = [h for h in heads if abs(h.bbox[1] - head.bbox[1]) <= max(6, head.bbox[3] // 2)]
        if sum(names(h) for h in row) >= MIN_COLUMNS:
            return row
    return []
