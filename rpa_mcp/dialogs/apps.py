"""Which application shows a dialog: confirmed by the agent-reported windows, or by its signature.

An entry that may be answered or ignored without a person (`auto`, `skip`) belongs to one
application (catalog `apps:`). It matches only when that application is confirmed:
- `window`: an agent-reported window (the dialog's own, or the focused one) runs one of the
  application's processes AND its title matches one of the application's title patterns;
- `signature`: words only that application draws, read in one region of the frame (its header).
Neither: `none`, and the same words give a generic kind, which pauses. The screen text read for a
signature is data: it is only compared with the catalog's patterns.

An application's own entry (any policy) is also refused when the dialog's own window is reported run
by a process that is none of the executables it declares (`match.processes`, its application's
`processes`): Notepad's prompt is not Notepad's when geany draws it. System dialogs (category A) and
the generic kinds are shown on behalf of any program and are never contradicted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rpa_mcp.dialogs.catalog import GENERIC_IDS, AppSpec, DialogCatalog, DialogEntry
from rpa_mcp.dialogs.matching import process_name
from rpa_mcp.vision.images import crop
from rpa_mcp.vision.lines import text_lines
from rpa_mcp.vision.ocr import OcrEngine, normalize_text

SIGNATURE_LINES = 16  # text lines read in a signature region (one batched recognition)
SIGNATURE_BATCH = 4  # lines recognised at once
SIGNATURE_MAX_W = 0.3  # share of the frame's width: wider lines are not read for a signature
MIN_LINE_W = 24


@dataclass(frozen=True)
class ReportedWindow:
    """A window as the desktop agent reports it (never trusted to name a dialog by itself)."""

    title: str | None = None
    process: str | None = None


@dataclass(frozen=True)
class AppCheck:
    app: str
    by: str  # window | signature | none | unchecked (only the windows were looked at)
    detail: str

    @property
    def confirmed(self) -> bool:
        return self.by in ("window", "signature")


RUN_BY = "its window is run by"  # the refusal of an entry whose window another program runs


def window_confirms(spec: AppSpec, window: ReportedWindow) -> bool:
    """The window runs one of the application's processes and its title matches one of its patterns."""
    if not window.process or not window.title:
        return False
    if process_name(window.process) not in {p.casefold() for p in spec.processes}:
        return False
    title = normalize_text(window.title)
    return any(re.search(pattern, title, re.I) for pattern in spec.window_titles)


class AppConfirmer:
    """Confirms applications for one frame, each at most once (a signature costs one OCR batch)."""

    def __init__(
        self,
        catalog: DialogCatalog,
        ocr: OcrEngine,
        image: np.ndarray | None,
        windows: Sequence[ReportedWindow] = (),
        *,
        owner: str | None = None,
    ) -> None:
        """`owner`: the process the agent reports for the dialog's own window (not the focused one)."""
        self.catalog = catalog
        self.ocr = ocr
        self.image = image
        self.windows = tuple(w for w in windows if w.title or w.process)
        self.owner = process_name(owner) if owner and owner.strip() else None
        self._seen: dict[str, AppCheck] = {}

    def contradicts(self, entry: DialogEntry) -> str | None:
        """Why the dialog's own window cannot be `entry`'s: it runs none of the entry's executables
        (None when it may be: no owner reported, a system dialog, a generic kind, nothing declared)."""
        if self.owner is None or entry.category == "A" or entry.id in GENERIC_IDS:
            return None
        declared = {*entry.match.processes, *(self.catalog.apps[entry.app].processes if entry.app else ())}
        if not declared or self.owner in {process_name(p) for p in declared}:
            return None
        return f"{RUN_BY} {self.owner}, not by {', '.join(sorted(declared, key=str.casefold))}"

    def refusal(self, entry: DialogEntry) -> str:
        """Why an admissible-looking entry was left out: its owner contradicts it, or its application
        is not confirmed."""
        return self.contradicts(entry) or self.check(entry.app or "").detail

    def check(self, app: str, *, read_frame: bool = True) -> AppCheck:
        """Is `app` confirmed? `read_frame=False`: by the reported windows only (no OCR); a signature
        not looked for yet is `unchecked`."""
        if app in self._seen:
            return self._seen[app]
        if not read_frame:
            by_window = self._by_window(app)
            return by_window or AppCheck(app, "unchecked", "its signature was not looked for")
        self._seen[app] = self._check(app)
        return self._seen[app]

    def _by_window(self, app: str) -> AppCheck | None:
        spec = self.catalog.apps[app]
        for window in self.windows:
            if window_confirms(spec, window):
                return AppCheck(app, "window", f"{process_name(window.process or '')} shows {window.title!r}")
        return None

    def _check(self, app: str) -> AppCheck:
        spec = self.catalog.apps[app]
        by_window = self._by_window(app)
        if by_window is not None:
            return by_window
        if spec.signature is not None and self.image is not None:
            found = self._signature(spec)
            if found is not None:
                return AppCheck(app, "signature", f"the frame shows {found!r}")
        said = "; ".join(f"{w.process or '?'}: {w.title or '?'}" for w in self.windows) or "no window reported"
        return AppCheck(app, "none", f"{spec.name} not confirmed ({said}; its signature not seen)")

    def _signature(self, spec: AppSpec) -> str | None:
        assert spec.signature is not None and self.image is not None
        height, width = self.image.shape[:2]
        fx, fy, fw, fh = spec.signature.region
        box = (int(fx * width), int(fy * height), max(1, int(fw * width)), max(1, int(fh * height)))
        area = crop(self.image, box)
        # a brand or header phrase is short: a line wider than that (a patient banner) is not read
        boxes = [b for b in text_lines(area, max_lines=48) if MIN_LINE_W <= b[2] <= SIGNATURE_MAX_W * width]
        # bottom up, a few at a time: an application's header lies under the browser's or the
        # desktop's own bars, and the first hit ends the read
        boxes = sorted(boxes, key=lambda b: -b[1])[:SIGNATURE_LINES]
        for start in range(0, len(boxes), SIGNATURE_BATCH):
            batch = boxes[start : start + SIGNATURE_BATCH]
            reads = self.ocr.read_lines([crop(area, (b[0] - 3, b[1] - 3, b[2] + 6, b[3] + 6)) for b in batch])
            texts = [normalize_text(r.text) for r in reads if r is not None and r.text.strip()]
            for text in texts:
                if any(re.search(pattern, text, re.I) for pattern in spec.signature.patterns):
                    return text
        return None
