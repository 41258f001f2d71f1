"""Classify a dialog from a window title / process (fast path) or from a screenshot.

Screenshot path: locate the modal with OpenCV (no OCR), then read only what identifies it:
the button labels (recognition only, on each button box) and the first text lines of the
dialog (recognition only, on each line box) — never a full-frame OCR. Then match the catalog.

Safety: when a decisive signal (a system process such as consent.exe, a window title, or a
locked entry's title seen in the dialog) points to a locked entry (system, deletion, identity,
clinical), that entry wins ("strictest wins"). A browser or application process (msedge.exe,
notepad.exe...) is not such a signal: it never names an entry by itself, and when the title and
process decide nothing the screenshot decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from rpa_mcp.dialogs.apps import AppCheck, AppConfirmer, ReportedWindow
from rpa_mcp.dialogs.catalog import GENERIC_IDS, DialogCatalog, DialogEntry
from rpa_mcp.dialogs.locate import ModalRegion, score_candidates, text_lines
from rpa_mcp.dialogs.locate.icons import has_error_icon
from rpa_mcp.dialogs.matching import ACCEPT_SCORE, EntryScore, Matcher, process_name
from rpa_mcp.dialogs.naming import TIE, admissible, bound, generic_over_unnamed, rank, specific_over_generic
from rpa_mcp.dialogs.structure import Shape, file_chooser, kind_of, labels_among
from rpa_mcp.dialogs.thorough import THOROUGH_CONFIDENCE, blocks, button_blocks
from rpa_mcp.vision.images import BBox, crop
from rpa_mcp.vision.lines import ink_box
from rpa_mcp.vision.ocr import OcrEngine, OcrLine

MAX_LINES = 5  # text lines read per dialog (title + first body lines); each costs one recognition
FIRST_LINES = 3  # read first; the other lines only when these leave the dialog unidentified
MAX_BUTTONS = 5
MIN_LINE_W = 14
GLYPH_MAX_W = 40  # a box narrower than this and than twice its height is a close cross or an icon: not read
UNKNOWN_NO_BUTTON_FACTOR = 0.5
PROCESS_DOUBT = 0.8  # < the resolver's auto threshold
TIED_CONFIDENCE = 0.7  # < the 0.8 under which more lines are read
PANEL_TITLE_MIN = 0.8  # a panel without buttons is a dialog only when its title names a catalog entry
CANDIDATES_READ = 2  # candidates read when the best one is a panel whose text names nothing
FOOTERS_READ = 2  # and after them, boxes with a footer of buttons still unread (a dialog ranked low)
# Evidence that a box is drawn over the page rather than part of it. "new" is not enough: search
# results appearing under an unchanged search field are new, and a card of the page.
FLOATING = frozenset({"shadow", "backdrop"})
GENERIC_CONFIDENCE = 0.7  # a generic kind given for an application-bound entry's words: never sure
STRUCTURE_OVER = 0.8  # a generic kind named by words under this score gives way to what the shape shows
STRUCTURE_CONFIDENCE = 0.65  # a kind told by the shape alone: < the resolver's auto threshold
ICON_MARGIN = 96  # px beside a block of words where its icon may sit (thorough path)


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


class DialogClassifier:
    def __init__(self, catalog: DialogCatalog, ocr: OcrEngine) -> None:
        self.catalog = catalog
        self.ocr = ocr
        self.matcher = Matcher(catalog)

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
        confirm = confirm or AppConfirmer(self.catalog, self.ocr, None, [ReportedWindow(window_title, process)])
        gated = [e for e in by_title if bound(e) and not confirm.check(e.app or "").confirmed]
        by_title = [e for e in by_title if e not in gated]
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
            return _with_app(
                Classification(
                    entry.id,
                    entry,
                    confidence,
                    "title",
                    title=window_title,
                    region_found_by="window title",
                    path="title",
                ),
                confirm,
            )
        unknown = self.catalog.unknown
        notes: tuple[str, ...] = tuple(
            f"the title reads like {e.id}, but {confirm.check(e.app or '').detail}: not taken for it" for e in gated
        )
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
        confirm = AppConfirmer(self.catalog, self.ocr, image, [ReportedWindow(window_title, process), *windows])
        hint = self.classify_title(window_title, process, confirm=confirm) if (window_title or process) else None
        if image is None:
            assert hint is not None, "classify needs an image, a window title or a process"
            return hint
        seen = self._process_belt(
            self.classify_image(image, previous=previous, confirm=confirm, thorough=thorough), process
        )
        if hint is None or hint.dialog_id == self.catalog.unknown.id:
            # the title/process path decided nothing: the screenshot decides
            return replace(seen, notes=(*hint.notes, *seen.notes)) if hint is not None else seen
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
        # disagreement: keep the stricter one, with a low confidence so nothing is auto-clicked or skipped
        stricter = seen if rank(seen.entry) >= rank(hint.entry) else hint
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
        for region in _to_read(candidates):
            buttons, lines = self.read_region(image, region, max_lines=FIRST_LINES)
            icon = _icon_check(image, region.bbox)
            found = self.match(region.bbox, buttons, lines, panel=region.buttonless, confirm=confirm, icon=icon)
            if not found.found or found.dialog_id == unknown.id or found.confidence < 0.8:
                more = self.read_lines_after(image, region, FIRST_LINES)
                if more:
                    found = self.match(
                        region.bbox, buttons, [*lines, *more], panel=region.buttonless, confirm=confirm, icon=icon
                    )
            found = replace(found, region_found_by="+".join(region.evidence) or "outline")
            if found.found and found.dialog_id == unknown.id and not FLOATING & set(region.evidence):
                # a box with buttons that names nothing and casts no shadow: a card of the page (a
                # results table with its "Open" button), not a dialog (a web modal dims the page: the
                # validator sees that on its own)
                found = replace(
                    found,
                    found=False,
                    notes=(
                        *found.notes,
                        "a panel of the page: its text names no dialog and it casts no shadow",
                    ),
                )
            if found.found and "clipped" in region.evidence:
                found = replace(found, notes=(*found.notes, "the dialog runs off the screen: its buttons are hidden"))
            if found.found and found.dialog_id == unknown.id and thorough and previous is None:
                # a box that names nothing (a camera preview taken for the dialog): read the whole frame
                deeper = self.classify_thorough(image, confirm)
                if deeper is not None:
                    return replace(deeper, notes=(*notes, *found.notes, *deeper.notes))
                return replace(found, notes=(*notes, *found.notes), path="thorough")
            if found.found:
                return replace(found, notes=(*notes, *found.notes))
            notes.extend(found.notes)
        deep = thorough and previous is None
        if deep:
            # a single frame and no outline that names a dialog: read the whole frame
            deeper = self.classify_thorough(image, confirm)
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

    def classify_thorough(self, image: np.ndarray, confirm: AppConfirmer) -> Classification | None:
        """A dialog found by its words and buttons on the whole frame read once (see thorough.py), or
        a file chooser by its layout (structure.py)."""
        unknown = self.catalog.unknown
        best: Classification | None = None
        read = self.ocr.read(image)
        scale = max(1.0, image.shape[0] / 1080)
        for block in blocks(self.catalog, self.matcher, read, image.shape[0]):
            buttons = [ReadButton(b.text.strip(), b.bbox) for b in block.buttons]
            lines = [line.text.strip() for line in block.lines]
            x, y, w, h = block.bbox
            margin = int(ICON_MARGIN * scale)
            found = self.match(
                block.bbox,
                buttons,
                lines,
                confirm=confirm,
                icon=_icon_check(image, (x - margin, y, w + margin, h)),
                flat=labels_among(lines),
                whole_frame=True,
            )
            if found.found and found.dialog_id != unknown.id and (best is None or found.confidence > best.confidence):
                best = found
        best = best or self._by_buttons(image, read)
        chooser = file_chooser(read, image.shape[0])
        if chooser is not None and (best is None or best.dialog_id in GENERIC_IDS):
            entry = self.catalog.get(chooser.kind)
            assert entry is not None, f"{chooser.kind}: a generic kind of the catalog"
            best = Classification(
                entry.id,
                entry,
                STRUCTURE_CONFIDENCE,
                "screenshot",
                True,
                chooser.bbox,
                None,
                tuple(ReadButton(b.text.strip(), b.bbox) for b in chooser.buttons),
                notes=(f"a file chooser: {chooser.why}",),
            )
        if best is None:
            return None
        return replace(
            best,
            confidence=min(best.confidence, THOROUGH_CONFIDENCE),
            region_found_by="words",
            path="thorough",
            notes=(*best.notes, "found by its words and buttons on the whole frame (no outline named it)"),
        )

    def _by_buttons(self, image: np.ndarray, read: Sequence[OcrLine]) -> Classification | None:
        """A dialog found from its row of buttons up, named by its shape alone (never by its words)."""
        scale = max(1.0, image.shape[0] / 1080)
        for block in button_blocks(read, image.shape[0]):
            lines = [line.text.strip() for line in block.lines]
            x, y, w, h = block.bbox
            margin = int(ICON_MARGIN * scale)
            icon = _icon_check(image, (x - margin, y, w + margin, h))
            shape = kind_of([b.text for b in block.buttons], lines, icon)
            kind = self.catalog.get(shape.kind) if shape is not None else None
            if shape is not None and kind is not None:
                buttons = [ReadButton(b.text.strip(), b.bbox) for b in block.buttons]
                notes = [f"{kind.id} by its shape: {shape.why} (found from its buttons up)"]
                return _seen(kind, STRUCTURE_CONFIDENCE, block.bbox, buttons, lines, notes)
        return None

    def _layout(self, image: np.ndarray, region: ModalRegion) -> tuple[list[BBox], list[BBox], list[BBox]]:
        """(button boxes, texts on the button row, other text lines) — region-local for the texts."""
        x, y, _, _ = region.bbox
        area = crop(image, region.bbox)
        button_boxes = list(region.buttons[:MAX_BUTTONS])
        local_buttons = [(b[0] - x, b[1] - y, b[2], b[3]) for b in region.buttons]
        boxes = [b for b in text_lines(area, exclude=local_buttons) if b[2] >= MIN_LINE_W]
        # a text on the button row is a button whose frame we missed (focus ring, occluder)
        row_y = [b[1] + b[3] / 2 - y for b in region.buttons]
        on_row = [b for b in boxes if row_y and any(abs(b[1] + b[3] / 2 - r) <= 8 for r in row_y)]
        on_row = on_row[: max(0, MAX_BUTTONS - len(button_boxes))]
        text = [b for b in boxes if b not in on_row and not (b[2] < GLYPH_MAX_W and b[2] < 2 * b[3])][:MAX_LINES]
        return button_boxes, on_row, text

    def read_lines_after(self, image: np.ndarray, region: ModalRegion, first: int) -> list[str]:
        """The text lines after the `first` ones (read only when those did not identify the dialog)."""
        _buttons, _row, text = self._layout(image, region)
        area = crop(image, region.bbox)
        rest = text[first:]
        reads = self.ocr.read_lines([crop(area, (b[0] - 3, b[1] - 3, b[2] + 6, b[3] + 6)) for b in rest])
        return [line.text.strip() for line in reads if line is not None and line.text.strip()]

    def read_region(
        self, image: np.ndarray, region: ModalRegion, *, max_lines: int = MAX_LINES
    ) -> tuple[list[ReadButton], list[str]]:
        """The region's buttons and first text lines, read in one batched recognition."""
        x, y, _, _ = region.bbox
        area = crop(image, region.bbox)
        button_boxes, on_row, text = self._layout(image, region)
        text = text[:max_lines]
        crops = [ink_box(crop(image, (b[0] + 2, b[1] + 2, b[2] - 4, b[3] - 4))) for b in button_boxes]
        crops += [crop(area, (b[0] - 3, b[1] - 3, b[2] + 6, b[3] + 6)) for b in (*on_row, *text)]
        reads = self.ocr.read_lines(crops)
        buttons: list[ReadButton] = []
        for bbox, line in zip(button_boxes, reads, strict=False):
            if line is not None and line.text.strip():
                buttons.append(ReadButton(line.text.strip(), bbox))
        for box, line in zip(on_row, reads[len(button_boxes) :], strict=False):
            if line is not None and line.text.strip():
                buttons.append(ReadButton(line.text.strip(), (box[0] + x, box[1] + y, box[2], box[3])))
        if any(b[1] != region.buttons[0][1] for b in region.buttons):  # a stack: top down
            buttons.sort(key=lambda b: (b.bbox[1], b.bbox[0]))
        else:
            buttons.sort(key=lambda b: b.bbox[0])
        lines = [
            line.text.strip()
            for line in reads[len(button_boxes) + len(on_row) :]
            if line is not None and line.text.strip()
        ]
        return buttons, lines

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
        mentions = self.matcher.locked_mentions(lines)
        notes: list[str] = [
            f"reads like {s.entry.id}, but {confirm.check(s.entry.app or '').detail}: not taken for it" for s in gated
        ]
        generic = next((self.catalog.get(s.entry.generic) for s in gated if s.entry.generic), None)
        if not accepted and generic is not None and not mentions:
            notes.append(f"the same words in another application: {generic.id}")
            confidence = round(min(gated[0].score, GENERIC_CONFIDENCE), 3)
            found = _seen(generic, confidence, bbox, buttons, lines, notes)
            return _with_app(replace(found, app=gated[0].entry.app, app_confirmed_by="none"), confirm)
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
            return _seen(entry, 0.9, bbox, buttons, lines, notes)
        # words read across a whole frame (a status bar's "untitled") name no application without its title
        plain = generic_over_unnamed(accepted) if accepted and whole_frame else None
        if plain is not None:
            notes.append(f"{plain.entry.id} rather than {accepted[0].entry.id}: its application's title is not read")
            accepted = [plain, *(s for s in accepted if s is not plain)]
        shape = self._shape(accepted, labels, flat, lines, icon) if (buttons or flat) and not mentions else None
        if shape is not None:
            kind = self.catalog.get(shape.kind)
            assert kind is not None, f"{shape.kind}: a generic kind of the catalog"
            named = f"; the words read like {accepted[0].entry.id}" if accepted else ""
            notes.append(f"{kind.id} by its shape: {shape.why}{named}")
            return _seen(kind, STRUCTURE_CONFIDENCE, bbox, buttons, lines, notes)
        if not accepted:
            best = scores[0] if scores else None
            if best is not None:
                notes.append(f"closest catalog entry {best.entry.id} scored {best.score:.2f} < {ACCEPT_SCORE}")
            confidence = 1.0 - (best.score if best else 0.0)
            if not buttons:
                # no button read: as likely a panel of the page as a dialog
                confidence *= UNKNOWN_NO_BUTTON_FACTOR
                notes.append("no button read: perhaps not a dialog at all")
            return _seen(unknown, round(confidence, 3), bbox, buttons, lines, notes)
        top = accepted[0]
        specific = specific_over_generic(accepted, whole_frame=whole_frame)
        if specific is not None:
            notes.append(f"{specific.entry.id} rather than the generic {top.entry.id}")
            accepted = [specific, *(s for s in accepted if s is not specific)]
            top = specific
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
        return _with_app(
            Classification(
                top.entry.id,
                top.entry,
                round(min(1.0, confidence), 3),
                "screenshot",
                True,
                bbox,
                top.title_line if top.title >= 0.5 else _first(lines),
                tuple(buttons),
                tuple(lines),
                tuple(notes),
            ),
            confirm,
        )

    @staticmethod
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
        if top is not None and top.entry.id not in GENERIC_IDS:
            return None
        shape = kind_of([*labels, *flat], lines, icon)
        if shape is None or (top is not None and (shape.kind == top.entry.id)):
            return None
        return shape if top is None or shape.decisive or top.score < STRUCTURE_OVER else None


def _seen(
    entry: DialogEntry,
    confidence: float,
    bbox: BBox | None,
    buttons: Sequence[ReadButton],
    lines: Sequence[str],
    notes: Sequence[str],
) -> Classification:
    """A dialog found in the screenshot and named `entry` (its first line taken for its title)."""
    return Classification(
        entry.id, entry, confidence, "screenshot", True, bbox, _first(lines), tuple(buttons), tuple(lines), tuple(notes)
    )


def _icon_check(image: np.ndarray, bbox: BBox) -> Callable[[], bool]:
    """Looks for an error icon in the box only when asked (most dialogs never need it)."""
    return lambda: has_error_icon(crop(image, bbox))


def _with_app(found: Classification, confirm: AppConfirmer) -> Classification:
    """The classification with the evidence that its application is (or is not) the one showing it."""
    app = found.entry.app
    if app is None:
        return found
    # a pause entry's application is reported, not looked for in the frame (that costs a read)
    check: AppCheck = confirm.check(app, read_frame=bound(found.entry))
    return replace(found, app=app, app_confirmed_by=check.by)


def _to_read(candidates: Sequence[ModalRegion]) -> list[ModalRegion]:
    """The best candidates, then the next ones with a footer of buttons: a dialog that page cards
    outrank must still be read before the frame is said to hold none."""
    footers = [c for c in candidates[CANDIDATES_READ:] if "buttons" in c.evidence]
    return [*candidates[:CANDIDATES_READ], *footers[:FOOTERS_READ]]


def _first(lines: Sequence[str]) -> str | None:
    return lines[0] if lines else None
