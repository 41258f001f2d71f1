"""Which of the scored entries names a dialog: admissible ones, ties, generic kinds and named ones.

- `admissible`: an auto/skip entry matches only inside its confirmed application, an application's
  own entry never when the dialog's window is another program's, and a region with buttons never
  matches a buttonless entry;
- `specific_over_generic`: a named application's own pause entry rather than the generic kind the
  same words give (never without its title when the generic kind's is read as a line of its own,
  nor across a whole frame without its title);
- `generic_over_unnamed`: across a whole frame, the generic kind rather than a named entry tied with
  it whose own title is not read;
- `question_in_page_dialog`: a browser's own question (leaving the page) asked in a page dialog's box
  rather than the page dialog its title names;
- `rank`: strictness, for disagreements (locked > pause > skip > auto).
"""

from __future__ import annotations

from collections.abc import Sequence

from rpa_mcp.dialogs.apps import AppConfirmer
from rpa_mcp.dialogs.catalog import GENERIC_IDS, DialogEntry
from rpa_mcp.dialogs.matching import ACCEPT_SCORE, CONTAINED, EntryScore

TITLE_LINE = 0.8  # a line this close to a title, not merely holding it, is that title
SPECIFIC_MARGIN = 0.3  # a specific entry this close to the generic kind on top is the better name
TIE = 0.05  # two scores this close name a dialog equally well
PAGE_DIALOG = "browser-js-alert"  # a page's own alert / confirm / prompt, named by its box's title


def generic_over_unnamed(accepted: Sequence[EntryScore]) -> EntryScore | None:
    """The generic kind rather than a named application's entry tied with it whose own title is not
    read: words every application writes ("untitled", "save changes") name no application."""
    top = accepted[0]
    if top.entry.id in GENERIC_IDS or top.title >= 0.5:
        return None
    return next(
        (
            s
            for s in accepted[1:]
            if s.entry.id in GENERIC_IDS and top.score - s.score < TIE and s.entry.policy == "pause"
        ),
        None,
    )


def specific_over_generic(accepted: Sequence[EntryScore], *, whole_frame: bool) -> EntryScore | None:
    """A named application's own pause entry rather than the generic kind the same words also give
    (never an entry that would be answered or ignored: the generic kind's pause stands then)."""
    top = accepted[0]
    if top.entry.id not in GENERIC_IDS:
        return None
    for score in accepted[1:]:
        if top.score - score.score > SPECIFIC_MARGIN:
            return None
        if (
            score.entry.id not in GENERIC_IDS
            and score.entry.policy == "pause"
            and score.body > 0  # its own words are there, not only the title and buttons it shares
            # its own title, or no title of the generic kind read as a line of its own: a dialog titled
            # as the generic kind ("Save Document?") is that kind, whatever words of an application it
            # shows ("Untitled"); across a whole frame, its own title always
            and (score.title >= 0.5 or (not _titled(top) and not whole_frame))
            and score.body >= top.body
            and score.buttons >= top.buttons - 0.1
        ):
            return score
    return None


def question_in_page_dialog(accepted: Sequence[EntryScore]) -> EntryScore | None:
    """A browser's own pause question whose title and words are read, in a box titled as a page's dialog
    ("Javascript Confirm - <address>": "Are you sure you want to leave this page? Changes that you made may
    not be saved."): QtWebEngine asks it so. The page dialog is named by its title pattern alone."""
    top = accepted[0]
    if top.entry.id != PAGE_DIALOG:
        return None
    return next(
        (
            s
            for s in accepted[1:]
            if s.entry.category == top.entry.category
            and s.entry.policy == "pause"
            and s.body > 0
            and s.title >= TITLE_LINE
            and top.score - s.score <= SPECIFIC_MARGIN
        ),
        None,
    )


def _titled(score: EntryScore) -> bool:
    """The entry's title read as a line of its own (not inside a sentence: "Do you want to save changes
    to Untitled?" is a question Notepad's own prompt asks too)."""
    return score.title >= TITLE_LINE and score.title != CONTAINED


def bound(entry: DialogEntry) -> bool:
    """Answered or ignored without a person: it matches only inside its confirmed application."""
    return entry.app is not None and entry.policy in ("auto", "skip")


def admissible(
    scores: Sequence[EntryScore], confirm: AppConfirmer, *, with_buttons: bool
) -> tuple[list[EntryScore], list[EntryScore]]:
    """(the scores that may match, the accepted ones left out because their application is not
    confirmed or the dialog's own window is another program's). A region with buttons never matches a
    buttonless entry."""
    kept: list[EntryScore] = []
    gated: list[EntryScore] = []
    for score in scores:
        entry = score.entry
        if with_buttons and not entry.buttons:
            continue
        if confirm.contradicts(entry) is not None:
            if score.score >= ACCEPT_SCORE:
                gated.append(score)
            continue
        if bound(entry):
            if score.score < ACCEPT_SCORE:
                continue  # could not match anyway: no need to confirm its application
            if not confirm.check(entry.app or "").confirmed:
                gated.append(score)
                continue
        kept.append(score)
    return kept, gated


def rank(entry: DialogEntry) -> int:
    """Strictness: locked > pause > skip > auto."""
    if entry.locked:
        return 3
    return {"pause": 2, "skip": 1, "auto": 0}[entry.policy]
