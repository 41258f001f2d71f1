"""Rows that nearly read the record: a letter misread must not hide a homonym.

The record's row is chosen only when it is the one row that reads the record (`resolve`). A homonym's row
whose name OCR misread by one letter ("GAUTHlER Edlth") reads neither the label nor the identity, so it would
not count, and the row that did read would be clicked as if it were alone. A row is therefore a rival too
when every word of the record is there but for one letter (a letter replaced, added or dropped), in words
long enough for one letter not to make another common name; shorter words must read exactly. The price is a
pause when two patients' names truly differ by one letter ("MARTIN Marie", "MARTINE Marie"): a person
chooses, as they should between such names.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from rpa_mcp.replay.identity import run_apart, words

NEAR_MIN_LETTERS = 5  # a word this long may read one letter off and still be the same word


def near_word(read: str, wanted: str) -> bool:
    """`read` is `wanted` (normalised words), or one letter off it when the word is long enough."""
    if read == wanted:
        return True
    return len(wanted) >= NEAR_MIN_LETTERS and Levenshtein.distance(read, wanted, score_cutoff=1) <= 1


def nearly_shows(text: str, label: str) -> bool:
    """Every word of the label is, or is one letter off, a word of the text."""
    seen = {*words(text), *words(run_apart(text))}  # a misread small letter inside capitals cuts no word
    wanted = words(label)
    return bool(wanted) and all(any(near_word(s, w) for s in seen) for w in wanted)


def nearly_reads(read: str, identity: str, values: Sequence[str]) -> bool:
    """Every run value's words (else the identity's) are, or are one letter off, words of the row read."""
    expected = " ".join(values) if values else identity
    return nearly_shows(read, expected)
