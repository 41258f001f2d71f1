"""The catalog entry that the text read in a dialog names, or the generic kind its shape shows.

Scores every entry (matching.py), keeps the admissible ones (an auto/skip entry only inside its
confirmed application, never a buttonless entry for a region with buttons: naming.py), then:
the generic kind when the words belong to an unconfirmed application; nothing for a panel whose
title names no entry; a locked (system) entry whose title the dialog shows; the generic kind its
shape shows when no entry's words name it surely (structure.py), or when a decisive shape outranks
an application's pause entry whose own title is not read ("Untitled" alone names no Notepad); else
the best entry, made stricter and unsure when a rival of another policy ties with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from rpa_mcp.dialogs.apps import AppConfirmer
from rpa_mcp.dialogs.catalog import GENERIC_IDS, DialogCatalog
from rpa_mcp.dialogs.classification import Classification, ReadButton, first, seen, with_app
from rpa_mcp.dialogs.matching import ACCEPT_SCORE, EntryScore, Matcher
from rpa_mcp.dialogs.naming import (
    TIE,
    admissible,
    generic_over_unnamed,
    question_in_page_dialog,
    rank,
    specific_over_generic,
)
from rpa_mcp.dialogs.structure import Shape, kind_of
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrEngine

UNKNOWN_NO_BUTTON_FACTOR = 0.5
TIED_CONFIDENCE = 0.7  # < the 0.8 under which more lines are read
PANEL_TITLE_MIN = 0.8  # a panel without buttons is a dialog only when its title names a catalog entry
GENERIC_CONFIDENCE = 0.7  # a generic kind given for an application-bound entry's words: never sure
STRUCTURE_OVER = 0.8  # a generic kind named by words under this score gives way to what the shape shows
STRUCTURE_CONFIDENCE = 0.65  # a kind told by the shape alone: < the resolver's auto threshold
UNNAMED_TITLE = 0.5  # an application's entry whose title scores under this is not named by its title


class Identifier:
    def __init__(self, catalog: DialogCatalog, matcher: Matcher, ocr: OcrEngine) -> None:
        self.catalog = catalog
        self.matcher = matcher
        self.ocr = ocr  # for the signature of an application, when no confirmer is given

    def match(
        self,
        bbox: BBox | None,
        buttons: Sequence[ReadButton],
        lines: Sequence[str],
        *,
        panel: bool = False,
        confirm: AppConfirmer | None = None,
        icon: Callable[[], bool] = lambda: False,
        flat: Sequence[str] = (),
        whole_frame: bool = False,
    ) -> Classification:
        """The catalog entry the read text names. `panel`: the region has no buttons (a toast, a
        notification, or a card of the page): it is a dialog only when its title names an entry.
        `confirm`: which applications are confirmed; an auto/skip entry of another matches nothing.
        When no entry's words name it surely, the shape may name a generic kind (structure.py):
        `icon` says whether the region shows an error icon, `flat` are lines read as buttons drawn flat.
        `whole_frame`: the lines come from the whole frame (thorough path), not from one dialog's box."""
        confirm = confirm or AppConfirmer(self.catalog, self.ocr, None)
        labels = [b.label for b in buttons]
        scores, gated = admissible(self.matcher.score(lines, labels), confirm, with_buttons=not panel or bool(buttons))
        unknown = self.catalog.unknown
        accepted = [s for s in scores if s.score >= ACCEPT_SCORE]
        # a system dialog's title shown anywhere names it; an application's locked entry not in another program
        mentioned = self.matcher.locked_mentions(lines)
        mentions = [e for e in mentioned if confirm.contradicts(e) is None]
        notes: list[str] = [f"reads like {s.entry.id}, but {confirm.refusal(s.entry)}: not taken for it" for s in gated]
        refused = [e for e in mentioned if e not in mentions]
        notes += [f"shows the title of {e.id}, but {confirm.refusal(e)}: not taken for it" for e in refused]
        generic = next((self.catalog.get(s.entry.generic) for s in gated if s.entry.generic), None)
        if not accepted and generic is not None and not mentions:
            notes.append(f"the same words in another application: {generic.id}")
            confidence = round(min(gated[0].score, GENERIC_CONFIDENCE), 3)
            found = seen(generic, confidence, bbox, buttons, lines, notes)
            app = gated[0].entry.app
            return with_app(replace(found, app=app, app_confirmed_by="none" if app else ""), confirm)
        if panel and not (accepted and accepted[0].title >= PANEL_TITLE_MIN) and not mentions:
            best = scores[0] if scores else None
            detail = f" (closest {best.entry.id}: title {best.title:.2f})" if best else ""
            return Classification(
                unknown.id,
                unknown,
                0.0,
                "screenshot",
                found=False,
                bbox=bbox,
                lines=tuple(lines),
                notes=(f"a panel without buttons whose text names no catalog entry{detail}",),
            )
        if mentions and not (accepted and accepted[0].entry.locked):
            entry = mentions[0]
            notes.append(f"the dialog shows the title of {entry.id}: treated as that system dialog")
            return seen(entry, 0.9, bbox, buttons, lines, notes)
        # words read across a whole frame (a status bar's "untitled") name no application without its title
        plain = generic_over_unnamed(accepted) if accepted and whole_frame else None
        if plain is not None:
            notes.append(f"{plain.entry.id} rather than {accepted[0].entry.id}: its application's title is not read")
            accepted = [plain, *(s for s in accepted if s is not plain)]
        shape = _shape(accepted, labels, flat, lines, icon) if (buttons or flat) and not mentions else None
        if shape is not None:
            kind = self.catalog.get(shape.kind)
            assert kind is not None, f"{shape.kind}: a generic kind of the catalog"
            named = f"; the words read like {accepted[0].entry.id}" if accepted else ""
            notes.append(f"{kind.id} by its shape: {shape.why}{named}")
            return seen(kind, STRUCTURE_CONFIDENCE, bbox, buttons, lines, notes)
        if not accepted:
            best = scores[0] if scores else None
            if best is not None:
                notes.append(f"closest catalog entry {best.entry.id} scored {best.score:.2f} < {ACCEPT_SCORE}")
            confidence = 1.0 - (best.score if best else 0.0)
            if not buttons:
                # no button read: as likely a panel of the page as a dialog
                confidence *= UNKNOWN_NO_BUTTON_FACTOR
                notes.append("no button read: perhaps not a dialog at all")
            return seen(unknown, round(confidence, 3), bbox, buttons, lines, notes)
        return with_app(self._named(accepted, bbox, buttons, lines, notes, whole_frame=whole_frame), confirm)

    @staticmethod
    def _named(
        accepted: list[EntryScore],
        bbox: BBox | None,
        buttons: Sequence[ReadButton],
        lines: Sequence[str],
        notes: list[str],
        *,
        whole_frame: bool,
    ) -> Classification:
        """The best accepted entry: a named application's rather than the generic kind, made stricter
        and unsure when a rival of another policy ties with it."""
        top = accepted[0]
        specific = specific_over_generic(accepted, whole_frame=whole_frame)
        if specific is not None:
            notes.append(f"{specific.entry.id} rather than the generic {top.entry.id}")
            accepted = [specific, *(s for s in accepted if s is not specific)]
            top = specific
        question = question_in_page_dialog(accepted)
        if question is not None:
            notes.append(f"{question.entry.id} asked in a page dialog's box rather than {top.entry.id}")
            accepted = [question, *(s for s in accepted if s not in (question, top))]  # no rival of it
            top = question
        confidence = top.score
        tied = [s for s in accepted[1:] if top.score - s.score < TIE]
        if top.entry.id not in GENERIC_IDS:
            # a generic kind shares the named entry's words by design: it is no rival of it
            tied = [s for s in tied if s.entry.id not in GENERIC_IDS or s.entry.policy != "pause"]
        rivals = [s for s in tied if s.entry.policy != top.entry.policy]
        if rivals:
            strict = max([top, *rivals], key=lambda s: rank(s.entry))
            notes.append(f"ambiguous between {top.entry.id} and {', '.join(s.entry.id for s in rivals)}")
            top, confidence = strict, min(confidence, 0.5)
        elif tied:
            # entries of one family (a site asking for the camera, the microphone...) told apart by
            # nothing read yet: not identified, so the caller reads further lines
            notes.append(f"as likely {', '.join(s.entry.id for s in tied)} as {top.entry.id}")
            confidence = min(confidence, TIED_CONFIDENCE)
        return Classification(
            top.entry.id,
            top.entry,
            round(min(1.0, confidence), 3),
            "screenshot",
            True,
            bbox,
            top.title_line if top.title >= 0.5 else first(lines),
            tuple(buttons),
            tuple(lines),
            tuple(notes),
        )


def _shape(
    accepted: Sequence[EntryScore],
    labels: Sequence[str],
    flat: Sequence[str],
    lines: Sequence[str],
    icon: Callable[[], bool],
) -> Shape | None:
    """The generic kind the shape shows, when no entry's words name the dialog surely: nothing was
    accepted, or only a generic kind under STRUCTURE_OVER (its words are weaker than the shape), or
    any generic kind when the shape is decisive."""
    top = accepted[0] if accepted else None
    if top is not None and top.entry.id not in GENERIC_IDS and not _unnamed(top):
        return None
    shape = kind_of([*labels, *flat], lines, icon)
    if top is not None and top.entry.id not in GENERIC_IDS and not _decisive(shape):
        return None
    if shape is None or (top is not None and (shape.kind == top.entry.id)):
        return None
    return shape if top is None or shape.decisive or top.score < STRUCTURE_OVER else None


def _unnamed(score: EntryScore) -> bool:
    """A named application's pause entry whose own title is not read: only words every application writes
    ("Untitled-1 has changed. Save?") name it, and a decisive shape (Save beside Don't Save) outranks them.
    Never a locked entry nor one a workflow may not override: the generic kind would loosen it."""
    entry = score.entry
    return entry.policy == "pause" and not entry.locked and entry.declarative_override and score.title < UNNAMED_TITLE


def _decisive(shape: Shape | None) -> bool:
    return shape is not None and shape.decisive
