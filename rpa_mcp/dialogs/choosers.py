"""A file chooser named by its words (its title, Cancel) must show what makes it a chooser.

A catalog entry of the chooser kinds (`file-save-as`, `file-open`) is named by a title ("Save File",
"Ouvrir") and a Cancel button; a question about one file shares both: a browser's download ("Opening
compte-rendu.txt": "Open..." / "Save File" as choices, OK / Cancel) names that file in its title and its
words. What a chooser shows besides, in any toolkit: a list of files (two names at least, each file
once), the columns of one, a field for the file's name, a folder's path, or a chooser's own words (the
entry's body keywords: "File name", "Other Locations"). A box named a chooser without them, its lines
read one by one and then the box read whole, names nothing: a person decides (unknown, paused).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rpa_mcp.dialogs.catalog import DialogEntry
from rpa_mcp.dialogs.chooser_layout import each_file_once, listed_file
from rpa_mcp.dialogs.matching import compact
from rpa_mcp.dialogs.structure import (
    COLUMNS,
    MIN_COLUMNS,
    MIN_FILES,
    file_name_field,
    names_a_file,
)
from rpa_mcp.vision.images import BBox, crop
from rpa_mcp.vision.ocr import OcrEngine

CHOOSERS = frozenset({"file-save-as", "file-open"})
PATH = re.compile(r"^(~?/|[A-Za-z]:\\)\S")  # a folder's path shown whole ("/srv/compte-rendus", "D:\Comptes")


def chooser_body(lines: Sequence[str]) -> bool:
    """Lines that show a file chooser's list, its columns, its file name's field or a folder's path."""
    files = [text for text in lines if listed_file(text)]
    columns = [text for text in lines if text.split() and all(compact(w) in COLUMNS for w in text.split())]
    return (
        len(each_file_once(files)) >= MIN_FILES
        or sum(len(text.split()) for text in columns) >= MIN_COLUMNS
        or any(names_a_file(text) or file_name_field(text) for text in lines)
        or any(PATH.match(text.strip()) for text in lines)
    )


def shows_a_chooser(entry: DialogEntry, lines: Sequence[str]) -> bool:
    """The lines show a chooser's body (`chooser_body`) or the chooser entry's own words."""
    words = compact(" ".join(lines))
    return chooser_body(lines) or any(compact(k) and compact(k) in words for k in entry.match.body_keywords)


def bare_chooser(
    ocr: OcrEngine, image: np.ndarray, entry: DialogEntry, bbox: BBox | None, lines: Sequence[str]
) -> bool:
    """A box named a chooser by its words whose lines, then the box read whole, show no chooser's body."""
    if entry.id not in CHOOSERS or shows_a_chooser(entry, lines):
        return False
    whole = [line.text for line in ocr.read(crop(image, bbox))] if bbox is not None else []
    return not shows_a_chooser(entry, whole)
