"""Match read screen text (title, body lines, button labels) against catalog entries.

Screen text is data: it is only ever compared with the catalog, never executed or trusted to
unlock anything. Comparison is accent-, case-, space- and punctuation-insensitive (the OCR
drops spaces and accents), then fuzzy (rapidfuzz's Indel similarity, as difflib's ratio but
~1000x faster: a frame is scored against ~60 entries) above a threshold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import Indel

from rpa_mcp.dialogs.catalog import GENERIC_IDS, DialogCatalog, DialogEntry
from rpa_mcp.vision.ocr import normalize_text

FUZZY_BUTTON = 0.8
CONTAINED = 0.95  # the similarity of an expected text found inside a longer read
ACCEPT_SCORE = 0.6
TITLELESS_FACTOR = 0.75  # keeps a title-less match under the auto threshold of the resolver
ANCHOR_TITLE = 0.85  # a line this close to a catalog title may head a dialog (thorough path)
ANCHOR_KEYWORD_CHARS = 10  # a body keyword at least this long may head a dialog (thorough path)
LOCKED_TITLE_MIN_CHARS = 8  # a locked entry's title seen anywhere in the dialog makes it a candidate
STEM_TAIL = 3  # a title ending this few letters before its word does is that word's stem ("Sign in", "signing")
# a name with an extension ("tour.gpx"): two such lines at a box's head are a list of files, and one alone
# under another line is an item of one; a title pattern either fits (a page's origin, "intranet.chu.fr")
# names nothing there: an origin is its alert's first line
LISTED_NAME = re.compile(r"\S\.[A-Za-z0-9]{2,5}$")
LISTED_NAMES = 2


@lru_cache(maxsize=4096)
def compact(text: str) -> str:
    """normalize_text without spaces and punctuation: 'Don't Save' -> 'dontsave'."""
    return "".join(c for c in normalize_text(text) if c.isalnum())


def similarity(read: str, expected: str, floor: float = 0.0) -> float:
    """1.0 exact (compact), 0.95 expected contained in a longer read, else difflib ratio squared.

    `floor`: the caller only cares about values above it; a pair that cannot reach it (by its
    lengths alone) returns 0.0 without running difflib.
    """
    return _similarity(compact(read), compact(expected), floor)


def _similarity(a: str, b: str, floor: float = 0.0) -> float:
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    if len(b) >= 5 and b in a:
        return CONTAINED
    # ratio <= 2*min(len)/(len(a)+len(b)): most catalog strings are ruled out by length alone
    if floor > 0.0 and (2 * min(len(a), len(b)) / (len(a) + len(b))) ** 2 <= floor:
        return 0.0
    return _ratio_squared(a, b)


def _ends_inside_a_word(line: str, title: str) -> bool:
    """Every place the (compact) title is found in the line ends one to STEM_TAIL letters before the
    word it ends in does: "Sign in" in "Unlock the signing key" is the stem of "signing". A longer
    tail is a word the OCR ran on without its space ("Savechanges"): the title stands."""
    words = "".join(c if c.isalnum() else " " for c in normalize_text(line)).split()
    ends, end = [], 0
    for word in words:
        end += len(word)
        ends.append(end)
    text = "".join(words)
    start = text.find(title)
    if start < 0:
        return False
    while start >= 0:
        stop = start + len(title)
        tail = next(e for e in ends if e >= stop) - stop
        if not 0 < tail <= STEM_TAIL:
            return False
        start = text.find(title, start + 1)
    return True


def _ratio_squared(a: str, b: str) -> float:
    # squared: one word more or less ("Mise à jour Java disponible" vs "Mise à jour disponible")
    # must not look like a match
    return float(Indel.normalized_similarity(a, b)) ** 2


def process_name(process: str) -> str:
    """'C:\\Windows\\System32\\consent.exe' -> 'consent.exe' (casefolded)."""
    return process.strip().replace("\\", "/").rsplit("/", 1)[-1].casefold()


@dataclass(frozen=True)
class EntryScore:
    entry: DialogEntry
    score: float
    title: float
    buttons: float
    body: float
    title_line: str | None


class Matcher:
    """Precompiled view of the catalog for fast scoring."""

    def __init__(self, catalog: DialogCatalog) -> None:
        self.catalog = catalog
        self.entries = [e for e in catalog.dialogs if e.id != catalog.unknown.id]
        self._regex = {e.id: re.compile(e.match.title_regex, re.I) for e in self.entries if e.match.title_regex}
        self._exact: dict[str, list[DialogEntry]] = {}
        self._process: dict[str, list[DialogEntry]] = {}
        self._system = {p.casefold() for p in catalog.system_processes}
        self._titles = {e.id: tuple(c for c in (compact(t) for t in e.titles.all()) if c) for e in self.entries}
        self._labels = {e.id: tuple(tuple(compact(lbl) for lbl in b.labels()) for b in e.buttons) for e in self.entries}
        self._label_owners: dict[str, set[str]] = {}  # a compact button label -> the entries showing it
        for entry_id, specs in self._labels.items():
            for spec in specs:
                for label in spec:
                    self._label_owners.setdefault(label, set()).add(entry_id)
        self._keywords = tuple(
            {k for e in self.entries for kw in e.match.body_keywords if len(k := compact(kw)) >= ANCHOR_KEYWORD_CHARS}
        )
        self._all_titles = tuple({t for titles in self._titles.values() for t in titles if len(t) >= 4})
        for entry in self.entries:
            for title in entry.titles.all():
                self._exact.setdefault(normalize_text(title), []).append(entry)
            for process in entry.match.processes:
                self._process.setdefault(process.casefold(), []).append(entry)

    # --- fast path: a window title and/or a process name reported by the agent ----------
    def by_process(self, process: str) -> list[DialogEntry]:
        return list(self._process.get(process_name(process), ()))

    def is_system_process(self, process: str) -> bool:
        """A system executable hosting nothing but the system dialogs naming it: its name is decisive."""
        return process_name(process) in self._system

    def by_title(self, title: str) -> list[DialogEntry]:
        norm = normalize_text(title)
        # a toolkit's punctuation after the title ("Open:", "Save As...") is no part of it
        found = list(self._exact.get(norm, ()) or self._exact.get(norm.rstrip(" :.\u2026"), ()))
        for entry in self.entries:
            regex = self._regex.get(entry.id)
            if regex is not None and entry not in found and regex.search(norm):
                found.append(entry)
        return found

    def by_pattern_only(self, title: str) -> bool:
        """Only a title pattern fits the title (no catalog title is read as it is)."""
        norm = normalize_text(title)
        if self._exact.get(norm) or self._exact.get(norm.rstrip(" :.\u2026")):
            return False
        return any(regex.search(norm) for regex in self._regex.values())

    def title_like(self, line: str) -> bool:
        """The line reads like a catalog dialog's title, or holds one of its (longer) body keywords."""
        read = compact(line)
        if len(read) < 4:
            return False
        if any(k in read for k in self._keywords):
            return True
        return any(_similarity(read, title, ANCHOR_TITLE) >= ANCHOR_TITLE for title in self._all_titles)

    # --- screenshot path: lines read in the dialog region -----------------------------
    def score(self, lines: Sequence[str], buttons: Sequence[str]) -> list[EntryScore]:
        """Every entry's score, best first. `lines` are top-to-bottom text lines (title first)."""
        head = [line for line in lines if len(compact(line)) >= 2][:4]
        body = compact(" ".join(lines) + " " + " ".join(buttons))
        # a button drawn as a link ("More choices" in Windows Hello) reads as a whole text line of its
        # own: it counts as that entry's button (never as one to click: only read buttons are)
        read = {compact(b) for b in buttons}
        links = [line for line in lines[1:] if (c := compact(line)) in self._label_owners and c not in read]
        out = []
        for entry in self.entries:
            t_score, t_line = self._title_score(entry, head)
            own = [line for line in links if entry.id in self._label_owners[compact(line)]]
            b_score = self._button_score(entry, [*buttons, *own] if own else buttons)
            keywords = entry.match.body_keywords
            k_score = 1.0 if any(compact(k) and compact(k) in body for k in keywords) else 0.0
            if keywords:
                total = 0.55 * t_score + 0.25 * b_score + 0.20 * k_score
                if t_score < 0.5 and k_score and b_score >= 0.8:
                    # title hidden (another window over it): buttons + body text, discounted
                    total = max(total, TITLELESS_FACTOR * (0.25 * b_score + 0.20 * k_score) / 0.45)
            else:
                total = 0.7 * t_score + 0.3 * b_score
            out.append(EntryScore(entry, round(total, 4), t_score, b_score, k_score, t_line))
        out.sort(key=lambda s: s.score, reverse=True)
        return out

    def locked_mentions(self, lines: Sequence[str]) -> list[DialogEntry]:
        """Locked entries whose exact title appears in any line (a UAC title shown by a web page counts)."""
        text = compact(" ".join(lines))
        found = []
        for entry in self.entries:
            if entry.id in GENERIC_IDS:
                continue  # generic wording ("Delete?", "Error"): it names no system dialog
            if entry.locked and any(
                len(compact(t)) >= LOCKED_TITLE_MIN_CHARS and compact(t) in text for t in entry.titles.all()
            ):
                found.append(entry)
        return found

    def _title_score(self, entry: DialogEntry, head: Sequence[str]) -> tuple[float, str | None]:
        best, best_line = 0.0, None
        regex = self._regex.get(entry.id)
        if regex is not None and sum(bool(LISTED_NAME.search(line.strip())) for line in head) >= LISTED_NAMES:
            regex = None
        titles = self._titles[entry.id]
        for i, line in enumerate(head):
            listed = i > 0 and " " not in line.strip() and LISTED_NAME.search(line.strip()) is not None
            if regex is not None and not listed and regex.search(normalize_text(line)):
                return 1.0, line
            read = compact(line)
            for title in titles:
                s = _similarity(read, title, best)
                if s == CONTAINED and _ends_inside_a_word(line, title):
                    s = _ratio_squared(read, title)
                if s > best:
                    best, best_line = s, line
        return best, best_line

    def _button_score(self, entry: DialogEntry, read: Sequence[str]) -> float:
        texts = [c for c in (compact(r) for r in read) if c]
        if not entry.buttons:
            return 1.0 if not texts else 0.3
        if not texts:
            return 0.0
        specs = self._labels[entry.id]
        hit = [
            [any(_similarity(t, lbl, FUZZY_BUTTON - 1e-9) >= FUZZY_BUTTON for lbl in spec) for spec in specs]
            for t in texts
        ]
        # an optional button (shown by some versions only) counts when it is there, never when it is not
        counted = [j for j, b in enumerate(entry.buttons) if not b.optional or any(row[j] for row in hit)]
        matched_specs = sum(1 for j in counted if any(row[j] for row in hit))
        matched_read = sum(1 for row in hit if any(row))
        recall = matched_specs / max(1, len(counted))
        precision = matched_read / len(texts)
        return 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)


def find_button(entry: DialogEntry, key: str, read: Sequence[str]) -> int | None:
    """Index of the one read label that is `key`'s button (either language); None if absent or ambiguous.

    Strict on purpose (it decides a click): whole-label ratio only (no containment, so "Ne pas
    enregistrer" is never taken for "Enregistrer"), and the label must be closer to this button
    than to any other button of the entry.
    """
    spec = entry.button(key)
    if spec is None:
        return None

    def ratio(text: str, label: str) -> float:
        a, b = compact(text), compact(label)
        return 1.0 if a == b else float(Indel.normalized_similarity(a, b)) if a and b else 0.0

    hits = []
    for i, text in enumerate(read):
        mine = max(ratio(text, lbl) for lbl in spec.labels())
        others = [ratio(text, lbl) for other in entry.buttons if other.key != key for lbl in other.labels()]
        if mine >= 0.85 and mine > max(others, default=0.0):
            hits.append(i)
    return hits[0] if len(hits) == 1 else None
