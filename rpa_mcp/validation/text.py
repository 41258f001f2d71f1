"""Screen-text comparisons (accent-, case-, space- and decoration-insensitive) and line finding."""

from __future__ import annotations

import re
from collections.abc import Sequence

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import normalize_text
from rpa_mcp.vision.text_match import ANY_WORDS, parts

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
# Glyphs a recognizer reads from tab decorations (favicon, close cross) at the ends of a label.
MAX_DECORATION_CHARS = 2
SAVED_WORDS = ("enregistre", "sauvegarde", "saved")
UNSAVED_WORDS = ("nonenregistre", "notsaved", "unsaved", "modificationsnon", "pasenregistre")
RULE_MIN_PX = 48  # ink this long in one straight line is a rule (a grid's border), never a letter
TITLE_SEPARATORS = re.compile(r"\s+[-\u2014\u2013|]\s+")


# A control's own decoration read beside its label: a drop-down's empty choice ("— choisir —",
# "-- select --") after it, a checkbox's or radio button's box before it.
_CHOICE_TAIL = re.compile(
    r"[\s\-\u2014\u2013_:]*[\-\u2014\u2013_]+\s*(?:choisir|choisissez|s[ée]lectionner|select|choose|aucun|none)"
    r"\s*[\-\u2014\u2013_.\u2026]*\s*[\u25bc\u25be\u2304vV]?\s*$",
    re.IGNORECASE,
)
_BOX_HEAD = re.compile(
    r"^\s*(?:\[\s*[xX\u2713\u2714]?\s*\]|\(\s*\)|[\u2610\u2611\u2612\u25a1\u25a0\u25cb\u25cf\u2713\u2714])\s*"
)

# Glyphs a recognizer confuses on UI fonts ("Biologle", "Imager1e"): folded on both sides of a comparison.
_CONFUSABLES = str.maketrans({"l": "i", "1": "i", "|": "i", "0": "o"})
# Two letters set tight that a recognizer reads as one ("moming" for "morning"): folded the same way.
_JOINED = (("rn", "m"),)


def compact(text: str) -> str:
    """normalize_text, then drop everything that is not a letter or a digit."""
    return _NON_WORD.sub("", normalize_text(text))


CARET = "i"  # a text cursor read as a glyph (l, I, |), folded


def folded(text: str) -> str:
    """compact() with OCR-confusable glyphs folded (l/1/| -> i, 0 -> o, rn -> m). Pairs fold within a word
    only: "CHARPENTIER Noël" is not "charpentiemoel", or "CHARPENTIER {{*}}" would no longer be found in it."""
    return "".join(_folded_word(word) for word in normalize_text(text).split())


def _folded_word(word: str) -> str:
    out = _NON_WORD.sub("", word).translate(_CONFUSABLES)
    for pair, one in _JOINED:
        out = out.replace(pair, one)
    return out


def without_control_decoration(read: str) -> str:
    """The label read beside a control, without the control's own decoration (a drop-down's empty
    choice after it, a checkbox's box before it)."""
    return _BOX_HEAD.sub("", _CHOICE_TAIL.sub("", read))


def label_matches(read: str | None, label: str) -> bool:
    """Exact label after normalisation; tolerates only a couple of decoration glyphs at the ends, and a
    control's own decoration ("Conditionnement — choisir —", "☐ Urgent")."""
    if not read:
        return False
    if _label_matches(read, label):
        return True
    bare = without_control_decoration(read)
    return bare != read and _label_matches(bare, label)


def _label_matches(read: str, label: str) -> bool:
    got, want = folded(read), folded(label)
    if not want:
        return False
    if got == want:
        return True
    if len(got) - len(want) > MAX_DECORATION_CHARS or len(got) < len(want):
        return False
    return got.startswith(want) or got.endswith(want) or want in got[: MAX_DECORATION_CHARS + len(want)]


# A ligature the recognizer reads as its letters, as one of them or as a look-alike ("Œdème" read "Edème",
# "CEdème", "OEdème"): the expected text is also compared in those forms.
_LIGATURE_READS = {"œ": ("oe", "ce", "e"), "æ": ("ae", "e")}


def ligature_forms(expected: str) -> list[str]:
    """`expected`, then the same text with each ligature written as the recognizer may read it."""
    forms = [expected]
    for ligature, reads in _LIGATURE_READS.items():
        if ligature in expected.casefold():
            pattern = re.compile(re.escape(ligature), re.IGNORECASE)
            forms += [pattern.sub(read, form) for form in list(forms) for read in reads]
    return forms


def text_contains(read: str | None, expected: str) -> bool:
    """`expected` is written in `read` (compacted, OCR-confusable glyphs folded: "lonogramme" read for
    "Ionogramme"); an ANY_WORDS in it stands for whatever is there."""
    return any(_text_contains(read, form) for form in ligature_forms(expected))


def _text_contains(read: str | None, expected: str) -> bool:
    if not read:
        return False
    got, start = folded(read), 0
    for part in parts(expected):
        at = got.find(folded(part), start)
        if at < 0:
            return False
        start = at + len(folded(part))
    return True


def words_written(read: str | None, expected: str) -> bool:
    """`text_contains`, beginning and ending on word boundaries of `read` (spaces inside may be lost).

    "Enregistré" is not written in "Observations enregistrées": a message is its own words, never the
    start of another word.
    """
    if not read:
        return False
    fixed = [c for c in (compact(p) for p in parts(expected)) if c]
    if not fixed:
        return False
    inner = r".*?".join(r"[\W_]*".join(re.escape(ch) for ch in part) for part in fixed)
    return re.search(rf"(?<![^\W_]){inner}(?![^\W_])", normalize_text(read)) is not None


def text_equals(read: str | None, expected: str, *, caret: bool = False) -> bool:
    """`read` is exactly `expected` (compacted, OCR-confusable glyphs folded): what a field holds, in full.

    "PETITBERNARD" does not equal "BERNARD": text left in a field before the typing is a mismatch.
    An ANY_WORDS in `expected` stands for whatever is there; the fixed parts fill the rest. With
    `caret`, the text cursor just after the text (read as one more l, I or |) is not part of it. A
    ligature may be read as its letters or one of them (`ligature_forms`).
    """
    return any(_text_equals(read, form, caret=caret) for form in ligature_forms(expected))


def _text_equals(read: str | None, expected: str, *, caret: bool = False) -> bool:
    if not read:
        return False
    got = folded(read)
    fixed = [folded(part) for part in parts(expected)]
    if ANY_WORDS not in expected:
        return bool(fixed[0]) and (got == fixed[0] or (caret and got == fixed[0] + CARET))
    pattern = ".*".join(re.escape(part) for part in fixed)
    prefix = "" if expected.lstrip().startswith(ANY_WORDS) else "^"
    suffix = "" if expected.rstrip().endswith(ANY_WORDS) else "$"
    return re.search(f"{prefix}{pattern}{suffix}", got) is not None


def text_begins(read: str | None, expected: str) -> bool:
    """`read` is a strict beginning of `expected` (at least its first character, not all of it): a field
    still drawing the text just typed, its last letters not shown yet. The text cursor just after it (read
    as one more l, I or |) is not part of it; a wrong or an extra character is no beginning."""
    if not read or ANY_WORDS in expected:
        return False
    got = folded(read)
    reads = {got, got[: -len(CARET)]} if got.endswith(CARET) else {got}
    for form in ligature_forms(expected):
        whole = folded(form)
        beginnings = {folded(form[:k]) for k in range(1, len(form))} - {whole, ""}
        if reads & beginnings:
            return True
    return False


def own_window(title: str | None, own_windows: Sequence[str]) -> str | None:
    """The workflow's own window `title` names (its whole title, read or reported), else None."""
    if not title:
        return None
    return next((own for own in own_windows if own and text_equals(title, own)), None)


def has_modified_marker(read: str | None) -> bool:
    if not read:
        return False
    stripped = read.strip()
    if stripped.startswith("*") or stripped.endswith("*") or " * " in stripped:
        return True
    flat = compact(read)
    return any(word in flat for word in UNSAVED_WORDS)


def says_saved(read: str | None) -> bool:
    if not read:
        return False
    flat = compact(read)
    if any(word in flat for word in UNSAVED_WORDS):
        return False
    return any(word in flat for word in SAVED_WORDS)


def app_identity(title: str) -> tuple[str, str]:
    """(first segment, last segment) of a window title, compacted: 'Doc - App - Microsoft Edge'."""
    parts = [p for p in TITLE_SEPARATORS.split(title.strip()) if p.strip()]
    if not parts:
        return "", ""
    return compact(parts[0]), compact(parts[-1])


def same_application(reference: str, title: str) -> bool:
    """Do two window titles name the same application? ('Doc - Microsoft Edge' vs 'Other - Microsoft Edge')."""
    first_r, last_r = app_identity(reference)
    first_t, _ = app_identity(title)
    return bool(last_r and last_r in compact(title)) or (bool(first_r) and first_r == first_t)


def text_line_boxes(image: np.ndarray, *, max_lines: int = 4, across: bool = False) -> list[BBox]:
    """Boxes of text lines in a small region (ink against the region's dominant colour).

    Lets a recognition-only OCR read a multi-line toast line by line instead of running
    the detector. Tall thin bars (borders) and blobs taller than a text line are dropped.
    `across`: the region is a band cut across a line, taller than it: what spans it from top to
    bottom (a frame around a grid, the desktop beyond a window's edge) is no text.
    """
    if image.size == 0:
        return []
    height, width = image.shape[:2]
    ink = ink_mask(image)
    if across:
        ink = _without_rules(ink)
    lines = _lines_of(ink, across=across)
    if not across and any(_framed(ink, box) for box in lines):
        lines = _lines_of(_without_frames(ink), across=False)
    if not lines and height <= 48:
        return [(0, 0, width, height)]
    return lines[:max_lines]


def _lines_of(ink: np.ndarray, *, across: bool) -> list[BBox]:
    """The line boxes of an ink mask, top to bottom: its letters joined into words, its words into lines."""
    height = ink.shape[0]
    joined = cv2.dilate(ink, np.ones((1, 9), np.uint8))
    _count, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    boxes: list[BBox] = []
    for x, y, w, h, _area in stats[1:]:
        if h < 6 or h > 48 or w < 12 or w < h or (across and y == 0 and h == height):
            continue
        boxes.append((int(x), int(y), int(w), int(h)))
    lines = _join_words(boxes)
    lines.sort(key=lambda b: (b[1], b[0]))
    return lines


def _framed(ink: np.ndarray, box: BBox) -> bool:
    """A "line" whose top or bottom rows hold a rule: a framed box (a banner's border) the text inside joined,
    read whole it would be recognised at a fraction of its height (its letters lost)."""
    x, y, w, h = box
    if w < RULE_MIN_PX:
        return False
    edges = (ink[y : y + 3, x : x + w], ink[max(y, y + h - 3) : y + h, x : x + w])
    rule = np.ones((1, RULE_MIN_PX), np.uint8)
    return any(edge.size and cv2.morphologyEx(edge, cv2.MORPH_OPEN, rule).any() for edge in edges)


def _without_frames(ink: np.ndarray) -> np.ndarray:
    """The ink without frames: runs of RULE_MIN_PX across or half of it upright (a box's sides) are no letters."""
    level = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, RULE_MIN_PX), np.uint8))
    upright = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((RULE_MIN_PX // 2, 1), np.uint8))
    return np.where(cv2.bitwise_or(upright, level) > 0, 0, ink).astype(np.uint8)


def _without_rules(ink: np.ndarray) -> np.ndarray:
    """The ink without a grid's rules: a line across the whole band's height (a cell's border) or far longer
    than any letter. A cell's text a few pixels from its border would otherwise join the border, and the
    whole grid would be one blob as tall as the band, dropped, its text with it."""
    height = ink.shape[0]
    upright = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((max(height - 2, RULE_MIN_PX // 2), 1), np.uint8))
    level = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, RULE_MIN_PX), np.uint8))
    return np.where(cv2.bitwise_or(upright, level) > 0, 0, ink).astype(np.uint8)


def ink_mask(image: np.ndarray, *, contrast: int = 60) -> np.ndarray:
    """1 where a BGR region's pixel stands more than `contrast` grey levels from the region's median colour
    in any channel, else 0 (uint8). Computed in uint8 (absolute difference, channel maximum): a few times
    faster than in int16 on a line-sized region, the same pixels."""
    fill = np.empty_like(image)
    fill[:] = _median_colour(image)
    blue, green, red = cv2.split(cv2.absdiff(image, fill))
    _, ink = cv2.threshold(cv2.max(cv2.max(blue, green), red), contrast, 1, cv2.THRESH_BINARY)
    return ink


def _median_colour(image: np.ndarray) -> np.ndarray:
    """The per-channel median of a BGR region as `np.median` gives it (the two middle values' mean for an
    even count), truncated to whole grey levels: from each channel's histogram, without sorting pixels."""
    count = image.shape[0] * image.shape[1]
    low, high = (count - 1) // 2, count // 2  # the middle order statistics
    colour = np.empty(3, np.uint8)
    for channel in range(3):
        seen = np.cumsum(cv2.calcHist([image], [channel], None, [256], [0, 256]).ravel())
        below, above = np.searchsorted(seen, [low + 1, high + 1])  # first levels holding each rank
        colour[channel] = (int(below) + int(above)) // 2
    return colour


def _join_words(boxes: list[BBox]) -> list[BBox]:
    """Words side by side on one baseline are one line (a caret beside the last word included)."""
    lines: list[BBox] = []
    for box in sorted(boxes):
        x, y, w, h = box
        for i, (lx, ly, lw, lh) in enumerate(lines):
            overlap = min(y + h, ly + lh) - max(y, ly)
            if overlap >= 0.5 * min(h, lh) and x - (lx + lw) <= max(min(h, lh), 8):
                x0, y0 = min(x, lx), min(y, ly)
                lines[i] = (x0, y0, max(x + w, lx + lw) - x0, max(y + h, ly + lh) - y0)
                break
        else:
            lines.append(box)
    return lines
