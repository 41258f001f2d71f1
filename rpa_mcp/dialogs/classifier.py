"""Classify a dialog from a window title / process (fast path) or from a screenshot.

Screenshot path: locate the modal with OpenCV (no OCR), then read only what identifies it:
the button labels and the first text lines of the dialog, recognition only on each box (reading.py)
— never a full-frame OCR on the fast path. Then the catalog entry they name (identify.py). A single
frame whose fast path names no dialog is read whole (thorough.py).

Safety: when a decisive signal (a system process such as consent.exe, a window title, or a
locked entry's title seen in the dialog) points to a locked entry (system, deletion, identity,
clinical), that entry wins ("strictest wins"). A browser or application process (msedge.exe,
notepad.exe...) is not such a signal: it never names an entry by itself, and when the title and
process decide nothing the screenshot decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from rpa_mcp.dialogs.apps import RUN_BY, AppConfirmer, ReportedWindow
from rpa_mcp.dialogs.catalog import DialogCatalog
from rpa_mcp.dialogs.chooser_layout import file_chooser
from rpa_mcp.dialogs.choosers import bare_chooser
from rpa_mcp.dialogs.classification import Classification, ReadButton, with_app
from rpa_mcp.dialogs.classification import seen as seen_in_frame
from rpa_mcp.dialogs.identify import STRUCTURE_CONFIDENCE, Identifier
from rpa_mcp.dialogs.locate import ModalRegion, score_candidates, thin_framed
from rpa_mcp.dialogs.locate.geometry import inside
from rpa_mcp.dialogs.matching import Matcher, compact, process_name
from rpa_mcp.dialogs.naming import PAGE_DIALOG, bound, rank
from rpa_mcp.dialogs.reading import (
    FIRST_LINES,
    TITLE_BAR_H,
    icon_check,
    layout,
    read_lines_after,
    read_region,
    title_above,
    title_bars,
)
from rpa_mcp.dialogs.structure import (
    SAVE,
    SAVE_AS,
    accepts_to_save,
    labels_among,
    save_title,
    titled_as_warning,
)
from rpa_mcp.dialogs.thorough import classify_thorough
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrEngine, OcrLine

__all__ = ["CANDIDATES_READ", "FOOTERS_READ", "Classification", "DialogClassifier", "ReadButton"]

ACCEPT_SAVES = "its accept button saves"  # a chooser named so by its buttons, whatever its title
PROCESS_DOUBT = 0.8  # < the resolver's auto threshold
CHOOSERS = frozenset({"file-open", "file-save-as"})  # both pause: the title only tells which
CANDIDATES_READ = 2  # candidates read when the best one is a panel whose text names nothing
FOOTERS_READ = 2  # and after them, boxes with a footer of buttons still unread (a dialog ranked low)
MESSAGE_BOX_BUTTONS = 2  # a message box: an answer or two (OK; Yes / No) ...
CHOOSER_MIN_SHARE = 0.15  # of the screen: the least a file chooser covers (its list, its side bar)
MESSAGE_BOX_SHARE = 0.04  # ... in a small share of the screen: read whole when its lines name nothing
FRONT_MAX_WIDTH = 0.8  # of the dialog behind: a box in front of it is narrower (a footer spans it)
FRONT_AS_WIDE = 0.95  # ... or spans it too, away from its buttons (a question across a save panel)
# Evidence that a box is drawn over the page rather than part of it. "new" is not enough: search
# results appearing under an unchanged search field are new, and a card of the page.
FLOATING = frozenset({"shadow", "backdrop"})
TITLE_MIN_H = 12  # px above a box at least for its own title bar to be read


class DialogClassifier:
    def __init__(self, catalog: DialogCatalog, ocr: OcrEngine) -> None:
        self.catalog = catalog
        self.ocr = ocr
        self.matcher = Matcher(catalog)
        self.identifier = Identifier(catalog, self.matcher, ocr)

    # --- fast path -------------------------------------------------------------------
    def classify_title(
        self, window_title: str | None = None, process: str | None = None, *, confirm: AppConfirmer | None = None
    ) -> Classification:
        """From what the agent reports about the foreground window.

        A process name decides only for a system process that hosts nothing but its dialogs
        (catalog `system_processes`: consent.exe, CredentialUIBroker.exe, ...). Any other process
        (a browser, notepad.exe, explorer.exe...) shows pages and windows of every kind: it only
        breaks ties between title matches and never names an entry on its own.
        """
        by_process = self.matcher.by_process(process) if process else []
        by_title = self.matcher.by_title(window_title) if window_title else []
        confirm = confirm or AppConfirmer(
            self.catalog, self.ocr, None, [ReportedWindow(window_title, process)], owner=process
        )
        gated = [
            e
            for e in by_title
            if confirm.contradicts(e) is not None or (bound(e) and not confirm.check(e.app or "").confirmed)
        ]
        by_title = [e for e in by_title if e not in gated]
        notes: tuple[str, ...] = tuple(
            f"the title reads like {e.id}, but {confirm.refusal(e)}: not taken for it" for e in gated
        )
        if by_process and process and self.matcher.is_system_process(process):
            both = [e for e in by_process if e in by_title]
            entry = (both or by_process)[0]
            return Classification(
                entry.id, entry, 0.97 if both or len(by_process) == 1 else 0.9, "process", title=window_title
            )
        if by_title:
            locked = [e for e in by_title if e.locked]
            both = [e for e in by_title if e in by_process]
            entry = (locked or both or by_title)[0]
            confidence = 0.95 if (both or len(by_title) == 1) else 0.7
            return with_app(
                Classification(
                    entry.id,
                    entry,
                    confidence,
                    "title",
                    title=window_title,
                    region_found_by="window title",
                    path="title",
                    notes=notes,
                ),
                confirm,
            )
        unknown = self.catalog.unknown
        if by_process and process:
            hosts = ", ".join(e.id for e in by_process)
            notes = (
                *notes,
                f"{process_name(process)} may host {hosts}, but a process name alone identifies no dialog",
            )
        return Classification(unknown.id, unknown, 0.0, "none", title=window_title, notes=notes, path="title")

    # --- screenshot path -------------------------------------------------------------
    def classify(
        self,
        image: np.ndarray | None = None,
        *,
        window_title: str | None = None,
        process: str | None = None,
        previous: np.ndarray | None = None,
        windows: Sequence[ReportedWindow] = (),
        thorough: bool = False,
    ) -> Classification:
        """`window_title`/`process`: the dialog's own window, as the agent reports it (it may name the
        dialog). `windows`: other agent-reported windows (the focused one): they only confirm which
        application shows the dialog, never name it. `thorough`: a single frame whose fast path finds
        no dialog is read whole (slow: see thorough.py)."""
        confirm = AppConfirmer(
            self.catalog, self.ocr, image, [ReportedWindow(window_title, process), *windows], owner=process
        )
        hint = self.classify_title(window_title, process, confirm=confirm) if (window_title or process) else None
        if image is None:
            assert hint is not None, "classify needs an image, a window title or a process"
            return hint
        seen = self._process_belt(
            self.classify_image(image, previous=previous, confirm=confirm, thorough=thorough), process
        )
        if seen.dialog_id == "file-open" and window_title and save_title(window_title):
            # a chooser with an OK button: its window's title says it saves ("Save Image File")
            entry = self.catalog.get("file-save-as")
            assert entry is not None, "file-save-as: a generic kind of the catalog"
            seen = replace(
                seen, dialog_id=entry.id, entry=entry, notes=(*seen.notes, f"the window title {window_title!r} saves")
            )
        if hint is None or hint.dialog_id == self.catalog.unknown.id:
            # the title/process path decided nothing: the screenshot decides
            return replace(seen, notes=(*hint.notes, *seen.notes)) if hint is not None else seen
        seen = replace(seen, notes=(*hint.notes, *seen.notes))  # what the title path refused, and why
        # strictest wins: a locked hint (system process, system dialog title) overrides the pixels
        if hint.entry.locked and not seen.entry.locked:
            return replace(
                seen,
                dialog_id=hint.dialog_id,
                entry=hint.entry,
                confidence=hint.confidence,
                source=hint.source,
                title=seen.title or hint.title,
                notes=(*seen.notes, f"{hint.source} says {hint.dialog_id}; a system dialog wins"),
            )
        if seen.dialog_id == hint.dialog_id:
            return replace(seen, confidence=max(seen.confidence, hint.confidence))
        if seen.dialog_id == self.catalog.unknown.id:
            # the window title names a catalog dialog the pixels could not identify: the title, unsure
            return replace(
                seen,
                dialog_id=hint.dialog_id,
                entry=hint.entry,
                confidence=min(hint.confidence, 0.7),
                source=hint.source,
                title=seen.title or hint.title,
            )
        # disagreement: keep the stricter one, with a low confidence so nothing is auto-clicked or skipped;
        # open and save choosers share one layout: the window's own title tells which ("Save To:")
        choosers = {seen.dialog_id, hint.dialog_id} <= CHOOSERS
        stricter = seen if rank(seen.entry) >= rank(hint.entry) and not choosers else hint
        if choosers and ACCEPT_SAVES in seen.notes:  # a Save button read tells more than "Select file"
            stricter = seen
        return replace(
            seen,
            dialog_id=stricter.dialog_id,
            entry=stricter.entry,
            confidence=0.5,
            source=stricter.source,
            notes=(*seen.notes, f"the window title says {hint.dialog_id}, the screenshot {seen.dialog_id}"),
        )

    def _process_belt(self, seen: Classification, process: str | None) -> Classification:
        """A process that hosts only system dialogs of the catalog (explorer.exe, rundll32.exe...) but
        is not decisive: when the screenshot sees another, answerable dialog, never answer it alone."""
        if not process or not seen.found or seen.entry.locked:
            return seen
        hosts = self.matcher.by_process(process)
        if not hosts or seen.entry in hosts or not all(e.locked for e in hosts):
            return seen
        return replace(
            seen,
            confidence=min(seen.confidence, PROCESS_DOUBT),
            notes=(
                *seen.notes,
                f"{process_name(process)} hosts system dialogs ({', '.join(e.id for e in hosts)}), "
                f"not {seen.dialog_id}: a person confirms",
            ),
        )

    def classify_image(
        self,
        image: np.ndarray,
        *,
        previous: np.ndarray | None = None,
        confirm: AppConfirmer | None = None,
        thorough: bool = False,
    ) -> Classification:
        unknown = self.catalog.unknown
        confirm = confirm or AppConfirmer(self.catalog, self.ocr, image)
        candidates = score_candidates(image, previous)
        notes: list[str] = []
        to_read = _to_read(candidates)
        boxed: list[OcrLine] = []  # the buttons read on located boxes, for the thorough path
        for region in to_read:
            found, buttons = self._name_box(image, region, to_read.front, confirm)
            boxed += [OcrLine(b.label, b.bbox, 1.0) for b in buttons]
            if found.found and "clipped" in region.evidence:
                found = replace(found, notes=(*found.notes, "the dialog runs off the screen: its buttons are hidden"))
            if found.found and found.dialog_id == unknown.id:
                # a box that names nothing inside a candidate with buttons of its own (a chooser's file
                # browser): that candidate, when it names a dialog, is the dialog
                holder = self._holder_named(image, region, to_read, confirm)
                if holder is not None:
                    return replace(holder, notes=(*notes, *holder.notes))
            if found.found and found.dialog_id == unknown.id and thorough and previous is None:
                # a box that names nothing (a camera preview taken for the dialog): read the whole frame
                seen = [*boxed, *title_bars(self.ocr, image, to_read)]
                deeper = classify_thorough(self.identifier, self.ocr, image, confirm, seen=seen)
                if deeper is not None:
                    return replace(deeper, notes=(*notes, *found.notes, *deeper.notes))
                return replace(found, notes=(*notes, *found.notes), path="thorough")
            if found.found:
                return replace(found, notes=(*notes, *found.notes))
            notes.extend(found.notes)
        deep = thorough and previous is None
        if deep:
            # a single frame and no outline that names a dialog: a box whose buttons' thin frames only an
            # undilated edge map closes is read first (its own words outrank a whole frame's), then the
            # whole frame
            for region in thin_framed(image)[:FOOTERS_READ]:
                found, _ = self._name_box(image, region, None, confirm)
                if found.found and found.dialog_id != unknown.id:
                    thin = "located on the edge map left undilated: its buttons' frames are thin"
                    return replace(found, notes=(*notes, *found.notes, thin), path="thorough")
            seen = [*boxed, *title_bars(self.ocr, image, to_read)]
            deeper = classify_thorough(self.identifier, self.ocr, image, confirm, seen=seen)
            if deeper is not None:
                return replace(deeper, notes=(*notes, *deeper.notes))
        return Classification(
            unknown.id,
            unknown,
            0.0,
            "none",
            found=False,
            notes=tuple(notes) or ("no dialog found",),
            path="thorough" if deep else "fast",
        )

    def _holder_named(
        self, image: np.ndarray, region: ModalRegion, to_read: Sequence[ModalRegion], confirm: AppConfirmer
    ) -> Classification | None:
        """What the first candidate to read holding `region`, with buttons outside it, names (None when
        there is none, or it names nothing)."""
        holder = next(
            (
                c
                for c in to_read
                if c is not region
                and c.buttons
                and inside(region.bbox, c.bbox)
                and not any(inside(b, region.bbox) for b in c.buttons)
            ),
            None,
        )
        if holder is None:
            return None
        found, _ = self._name_box(image, holder, None, confirm)
        if not found.found or found.dialog_id == self.catalog.unknown.id:
            return None
        note = f"the box read first, {list(region.bbox)}, names nothing: part of this one, with its own buttons"
        return replace(found, notes=(*found.notes, note))

    def _chooser_in(self, image: np.ndarray, region: ModalRegion) -> Classification | None:
        """A located box that names nothing by its words, read whole: a file chooser by its layout (an
        accept button beside Cancel under a list of files), or None. GTK's chooser without a header bar
        (wxWidgets' file dialogs) titles itself after the program ("Select translation file")."""
        x, y, w, h = region.bbox
        read = [OcrLine(line.text, (x + line.bbox[0], y + line.bbox[1], *line.bbox[2:]), line.score)
                for line in self.ocr.read(image[y : y + h, x : x + w])]  # fmt: skip
        chooser = file_chooser(read, image.shape[0])
        # an accept button that names no action (OK) leaves the kind to the words around it: the thorough path
        entry = self.catalog.get(chooser.kind) if chooser is not None and not chooser.guessed else None
        if chooser is None or entry is None:
            return None
        buttons = [ReadButton(b.text.strip(), b.bbox) for b in chooser.buttons]
        lines = [line.text.strip() for line in read]
        notes = (f"a file chooser: {chooser.why}",)
        return seen_in_frame(entry, STRUCTURE_CONFIDENCE, region.bbox, buttons, lines, notes)

    def _titled_above(
        self,
        image: np.ndarray,
        region: ModalRegion,
        buttons: Sequence[ReadButton],
        found: Classification,
        confirm: AppConfirmer,
    ) -> Classification | None:
        """A box named by its shape alone (a guess: a question naming a deletion, OK / Cancel) under a title
        bar whose title names a catalog entry ("JavaScript Confirm - <address>", a page's question): named
        by its title with its words, a pause entry only (None: no such title, or it names nothing else). An
        entry the title names but the dialog's own window refuses (another program runs it) is said in the
        guess's notes: the answer then differs from the one without the window, and says why."""
        title = title_above(self.ocr, image, region.bbox)
        if title is None or not self.matcher.by_title(title):
            return None
        named = self.identifier.match(region.bbox, buttons, [title, *found.lines], confirm=confirm)
        refused = tuple(note for note in named.notes if RUN_BY in note and note not in found.notes)
        if not named.found or named.dialog_id in (found.dialog_id, self.catalog.unknown.id):
            return replace(found, notes=(*found.notes, *refused)) if refused else None
        if named.entry.policy != "pause" or named.confidence <= found.confidence:
            return replace(found, notes=(*found.notes, *refused)) if refused else None
        note = f"titled '{title}' by the title bar over the box: {named.dialog_id} rather than {found.dialog_id}"
        return replace(named, notes=(*named.notes, note))

    def _name_box(
        self, image: np.ndarray, region: ModalRegion, front: ModalRegion | None, confirm: AppConfirmer
    ) -> tuple[Classification, list[ReadButton]]:
        """What a located box names from its buttons and lines (read further, or whole, when they name
        nothing), and the buttons read on it. `front`: the box read first for lying in front of another."""
        unknown = self.catalog.unknown
        found_layout = layout(image, region)
        buttons, lines = read_region(self.ocr, image, region, found_layout, max_lines=FIRST_LINES)
        icon = icon_check(image, region.bbox)
        found = self.identifier.match(region.bbox, buttons, lines, panel=region.buttonless, confirm=confirm, icon=icon)
        # a page dialog's box, named by its title, may hold a browser's own question: its words are read too
        if not found.found or found.dialog_id in (unknown.id, PAGE_DIALOG) or found.confidence < 0.8:
            more = read_lines_after(self.ocr, image, region, found_layout, FIRST_LINES)
            if more:
                found = self.identifier.match(
                    region.bbox, buttons, [*lines, *more], panel=region.buttonless, confirm=confirm, icon=icon
                )
        named = found.found and found.dialog_id != unknown.id
        if not named and _read_whole(region, front, image.shape[:2]):
            # a box in front of another, or a message box, names nothing from its lines read one by
            # one: read it whole (a small box's lines beside its icon are easily cut short); the
            # buttons read already are no text lines of it (an "Open" button is no "Open" title)
            x, y, w, h = region.bbox
            read = self.ocr.read(image[y : y + h, x : x + w])
            if region is not front:
                read = [line for line in read if not _on_a_button(line.bbox, (x, y), buttons)]
            whole = [line.text.strip() for line in read]
            found = self.identifier.match(
                region.bbox, buttons, whole, panel=False, confirm=confirm, icon=icon, flat=labels_among(whole)
            )
        if not (found.found and found.dialog_id != unknown.id) and _chooser_sized(region, image.shape[:2]):
            found = self._chooser_in(image, region) or found
        if found.found and found.dialog_id != unknown.id and found.confidence <= STRUCTURE_CONFIDENCE and buttons:
            found = self._titled_above(image, region, buttons, found, confirm) or found
        if found.dialog_id == "file-open" and "titled" in region.evidence and self._titled_to_save(image, region):
            # its own title bar, above the box, says it saves ("Enregistrer", "Save As")
            entry = self.catalog.get("file-save-as")
            assert entry is not None, "file-save-as: a generic kind of the catalog"
            found = replace(found, dialog_id=entry.id, entry=entry, notes=(*found.notes, "its title bar says it saves"))
        elif found.dialog_id == "file-open" and accepts_to_save([button.label for button in buttons]):
            # its accept button saves whatever its title says (GTK 4's save chooser titled "Select file")
            entry = self.catalog.get("file-save-as")
            assert entry is not None, "file-save-as: a generic kind of the catalog"
            found = replace(found, dialog_id=entry.id, entry=entry, notes=(*found.notes, ACCEPT_SAVES))
        if found.found and bare_chooser(self.ocr, image, found.entry, region.bbox, found.lines):
            why = f"named {found.dialog_id} by its words, it shows no file list, name field or path: no chooser"
            found = seen_in_frame(unknown, round(1 - found.confidence, 3), region.bbox, buttons, found.lines, (why,))
        found = replace(found, region_found_by="+".join(region.evidence) or "outline")
        floating = FLOATING & set(region.evidence) or titled_as_warning(found.lines)
        if found.found and found.dialog_id == unknown.id and not floating:
            # a box with buttons that names nothing and casts no shadow: a card of the page (a
            # results table with its "Open" button), not a dialog (a web modal dims the page: the
            # validator sees that on its own); a box titled as a warning ("VIM - ATTENTION") is
            # one whatever it asks: a window manager without a compositor draws no shadow
            found = replace(
                found,
                found=False,
                notes=(
                    *found.notes,
                    "a panel of the page: its text names no dialog and it casts no shadow",
                ),
            )
        return found, buttons

    def _titled_to_save(self, image: np.ndarray, region: ModalRegion) -> bool:
        """The title bar right above the box (its own) reads the save verb first, or "Save As"."""
        x, y, w, _ = region.bbox
        if y < TITLE_MIN_H:
            return False
        strip = image[max(0, y - TITLE_BAR_H) : y - 1, x : x + w]
        read = [compact(word) for line in self.ocr.read(strip) for word in line.text.replace("'", " ").split()]
        words = [word for word in read if any(c.isalpha() for c in word)]  # the window's icon read as "9" aside
        return bool(words) and (words[0] in SAVE or any(stem in "".join(words) for stem in SAVE_AS))

    def match(
        self,
        bbox: BBox | None,
        buttons: Sequence[ReadButton],
        lines: Sequence[str],
        *,
        panel: bool = False,
        confirm: AppConfirmer | None = None,
    ) -> Classification:
        """The catalog entry the read text names (identify.py)."""
        return self.identifier.match(bbox, buttons, lines, panel=panel, confirm=confirm)


class _Reading(list[ModalRegion]):
    """The candidates to read, in order; `front`: the box read first for lying in front of another."""

    front: ModalRegion | None = None


def _to_read(candidates: Sequence[ModalRegion]) -> _Reading:
    """The best candidates, then the next ones with a footer of buttons: a dialog that page cards
    outrank must still be read before the frame is said to hold none. A box with its own buttons
    inside the best one's, much smaller, is read first: a message box in front of its dialog (the
    prompt before a file is overwritten, over the save box that asked for it)."""
    footers = [c for c in candidates[CANDIDATES_READ:] if "buttons" in c.evidence]
    out = _Reading([*candidates[:CANDIDATES_READ], *footers[:FOOTERS_READ]])
    if out and "buttons" in out[0].evidence:
        front = next((c for c in out[1:] if "buttons" in c.evidence and _in_front(c, out[0])), None)
        if front is not None:
            out.remove(front)
            out.insert(0, front)
            out.front = front
    return out


def _on_a_button(box: BBox, origin: tuple[int, int], buttons: Sequence[ReadButton]) -> bool:
    """A line read in a box (box coordinates from `origin`) whose middle lies on a read button."""
    cx, cy = origin[0] + box[0] + box[2] / 2, origin[1] + box[1] + box[3] / 2
    return any(bx <= cx <= bx + bw and by <= cy <= by + bh for bx, by, bw, bh in (b.bbox for b in buttons))


def _chooser_sized(region: ModalRegion, frame: tuple[int, ...]) -> bool:
    """A box with a footer of buttons as large as a file chooser: read whole for its layout when its
    words name nothing."""
    _, _, w, h = region.bbox
    return "buttons" in region.evidence and w * h >= CHOOSER_MIN_SHARE * frame[0] * frame[1]


def _read_whole(region: ModalRegion, front: ModalRegion | None, frame: tuple[int, ...]) -> bool:
    """A box read whole when its lines read one by one name nothing: the box in front of another, or
    a message box (one or two buttons in a small share of the screen)."""
    if region is front:
        return True
    _, _, w, h = region.bbox
    return 0 < len(region.buttons) <= MESSAGE_BOX_BUTTONS and w * h <= MESSAGE_BOX_SHARE * frame[0] * frame[1]


def _in_front(inner: ModalRegion, outer: ModalRegion) -> bool:
    """`inner` lies within `outer` (a few pixels of slack), takes under half of it and is narrower, or as
    wide and holding none of `outer`'s buttons: a box of its own, not the dialog's footer of buttons (as
    wide as the dialog, round its buttons). A question as wide as the chooser it covers (GNUstep's "...
    exists. Replace it?" over its save panel) has its buttons above the chooser's."""
    ix, iy, iw, ih = inner.bbox
    ox, oy, ow, oh = outer.bbox
    slack = 4
    within = ix >= ox - slack and iy >= oy - slack and ix + iw <= ox + ow + slack and iy + ih <= oy + oh + slack
    apart = bool(outer.buttons) and not any(_holds(inner.bbox, button) for button in outer.buttons)
    as_wide = iw >= FRONT_AS_WIDE * ow
    return within and iw * ih < 0.5 * ow * oh and (iw <= FRONT_MAX_WIDTH * ow or (as_wide and apart))


def _holds(box: BBox, inner: BBox) -> bool:
    """`inner`'s middle lies in `box`."""
    cx, cy = inner[0] + inner[2] / 2, inner[1] + inner[3] / 2
    return box[0] <= cx <= box[0] + box[2] and box[1] <= cy <= box[1] + box[3]
