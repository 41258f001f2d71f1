"""Target resolution with a quality guard.

`TargetResolver.resolve(image, target_spec)` follows the spec's `resolve_order`
(memory, ocr, template, vlm, uia), then the legacy cascade for the methods not tried yet.
Each candidate passes the guard (minimum score per method from catalog/thresholds.yaml, and
a drift guard against the recorded position); a rejected candidate does not stop the
cascade, but when nothing passes the answer is `resolved=false` with the first rejection's
`method=rejected_low_score_*|rejected_drift_*` and its reason.

A record-selecting target (``identity`` in its spec: rpa_mcp.replay.identity) is accepted only when
the line at the hit reads the record the person chose; otherwise the answer is `resolved=false`,
`method=identity_mismatch`, with both texts in the reason (the step is never clicked). Its OCR
search passes over the lines of the fields the run typed the value into (``typed_fields``) and, among the
lines that read its label, takes the one on the record's line (a result list whose order changed).
A record is looked for only that way, on its whole window (never by a remembered spot, recorded
coordinates, a picture or the small first look: each would see one row where two may be it), and when
two rows read it (homonyms, a first name shared across surnames that start alike) the answer is
`resolved=false`, `method=identity_ambiguous`, naming both: a person chooses (a row one letter off the
record counts: `near_records`). A record the run's values
name only in part (``identity_partial``, no person validated it) is never looked for:
`resolved=false`, `method=identity_partial`.

OCR never reads a full frame when a recorded position exists: it reads a window around it, and
before it a small region around the point (and a field's label beside it, `ocr_first_look`) whose
answer is taken only when a line wholly inside it reads the label alone, at a score the guard accepts, or
holds it as its own part set apart by a wide gap and read alone (`label_runs`: two controls' texts the
detector ran together; a line the region's edge cut is read again whole in a small region around it);
otherwise the windows are read as before: a partial or cut line never stops the search.
A region wider or taller than the detector's input is read at its own scale up to 1280x1024 px (a
window, the wide region), then scaled down; a larger one scaled down, then in tiles (`vision.tiles`).
A remembered position is used only where its label is read again; where that label's line was
last read is kept (`LabelBoxes`), so the check recognises one line instead of a target's box.
Before the memory trusts a spot, OCR first recognises the label's line where it was read for
the last validated success there (one line instead of a region); a line that does not read the
label, or no such line, leaves the region search to run as before.
The memory (and the label lines kept with it) is the workstation's own: `machine_id` names it.
Template matching looks in a local window around the recorded position, then a wider one.
A field named by a label beside it (`label_offset`) is clicked at that offset from the label's line; one
recorded with its own box (`in_field`) is never clicked on the line itself: not placed, not found.
An option of an opened list (`opened_list` in its spec: the list its drop-down opened at replay, as the agent
saw the screen change) is read in that list only (no first look, no regions around the point) and the guard
accepts it inside the list only, in place of its distance from the point clicked: the last option of a long
list lies farther from its drop-down than the drift guard reaches; the same words elsewhere are refused.
An irreversible step's spec (`step_class: irreversible`) is only found by its label or anchor:
recorded coordinates (`uia`) and a remembered spot of a target without a label are not used.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rpa_mcp.errors import RpaError
from rpa_mcp.replay import identity
from rpa_mcp.replay import model as m
from rpa_mcp.replay.anchor_match import anchor_match
from rpa_mcp.replay.candidates import (
    Candidate,
    beside,
    inside,
    label_score,
    padded,
    showing,
)
from rpa_mcp.replay.first_look import FirstLook
from rpa_mcp.replay.label_boxes import LabelBoxes
from rpa_mcp.replay.memory import TargetMemory
from rpa_mcp.replay.ports import TextReader, VlmLocator
from rpa_mcp.replay.record_choice import RecordChoice, ambiguity
from rpa_mcp.replay.search_regions import (
    Point,
    opened_list,
    other_points,
    record_regions,
    recorded_position,
    search_regions,
)
from rpa_mcp.replay.thresholds import Thresholds
from rpa_mcp.vision.images import BBox, clamp_bbox
from rpa_mcp.vision.ocr import normalize_text
from rpa_mcp.vision.tiles import needs_tiles, read_at_other_scale, read_region

DEFAULT_ORDER = ("memory", "uia", "ocr", "template", "vlm")  # the legacy cascade
LINE_START_SLACK = 4  # px: a label this close to its line's left end starts the line


@dataclass
class Resolution:
    resolved: bool
    x: int | None = None
    y: int | None = None
    method: str = "none"
    score: float | None = None
    reason: str | None = None
    from_memory: bool = False
    tried: list[dict[str, Any]] = field(default_factory=list)
    elapsed_ms: float = 0.0
    box: BBox | None = None  # where the label's line was read (absolute pixels), for OCR hits


class TargetResolver:
    def __init__(
        self,
        *,
        ocr: TextReader,
        memory: TargetMemory | None,
        thresholds: Thresholds,
        vlm: VlmLocator,
        label_boxes: LabelBoxes | None = None,
    ) -> None:
        self.ocr = ocr
        self.label_boxes = label_boxes if label_boxes is not None else LabelBoxes()
        self.vlm = vlm
        self.thresholds = thresholds
        self.memory = memory
        self.records = RecordChoice(ocr)
        self.first_look = FirstLook(ocr, thresholds, recorded=self._recorded, guard=self.guard)
        if memory is not None:
            memory.trusted_after = self.thresholds.memory.trusted_after
            memory.min_reliability = self.thresholds.memory.min_reliability
            memory.same_spot_px = self.thresholds.memory.same_spot_px

    # --- guard ------------------------------------------------------------------------------
    def _recorded(self, spec: Mapping[str, Any]) -> Point | None:
        """The point the person clicked (shares of the frame); None when there is none or it is a placeholder."""
        pos = recorded_position(spec)
        placeholder = pos is not None and any(
            abs(pos[0] - px) < 1e-6 and abs(pos[1] - py) < 1e-6 for px, py in self.thresholds.drift.placeholders
        )
        return None if placeholder else pos

    def guard(self, cand: Candidate, spec: Mapping[str, Any], shape: tuple[int, ...]) -> tuple[bool, str, str]:
        """(ok, method, reason): the method becomes rejected_low_score_<m> / rejected_drift_<m> on rejection."""
        known, minimum = self.thresholds.min_score(cand.method)
        if not known:
            return False, f"rejected_low_score_{cand.method}", f"method {cand.method} has no threshold: refused"
        if minimum is not None and cand.score < minimum:
            return (
                False,
                f"rejected_low_score_{cand.method}",
                f"{cand.method} scored {cand.score:.3f} < {minimum:.2f} (minimum for this method)",
            )
        opened = opened_list(spec, shape)
        if opened is not None:  # an option: in the list its drop-down opened, wherever that list reaches
            x, y = cand.judged_at or (cand.x, cand.y)
            ox, oy, ow, oh = opened
            if not (ox <= x <= ox + ow and oy <= y <= oy + oh):
                return (
                    False,
                    f"rejected_drift_{cand.method}",
                    f"{cand.method} hit at ({x}, {y}) is outside the list the drop-down opened {list(opened)}",
                )
            return True, cand.method, ""
        pos = self._recorded(spec)
        if pos is not None:
            h, w = shape[:2]
            limit = self.thresholds.drift.max_fraction
            # where the step was clicked; in a resized window also that point kept from the window's top-left
            # (and where a scroll its agent made took either)
            drifts = [_drift(cand, point, w, h) for point in (pos, *other_points(spec))]
            (x, y), far = min(drifts, key=lambda d: d[1])
            if far > limit:
                return (
                    False,
                    f"rejected_drift_{cand.method}",
                    f"{cand.method} hit at ({x / w:.3f}, {y / h:.3f}) is {far:.2f} of the "
                    f"screen away from the recorded ({pos[0]:.3f}, {pos[1]:.3f}) (limit {limit:.2f})",
                )
        return True, cand.method, ""

    def _beside_or_line(
        self, cand: Candidate | None, spec: Mapping[str, Any], shape: tuple[int, ...]
    ) -> Candidate | None:
        """The field beside the label line found, when that lands where the step was demonstrated; else the
        line itself, judged as any hit (the same text elsewhere, e.g. a menu item, is not the field's label).
        A field recorded with its own box (`in_field`) is never its label: placed beside it, or not found; it
        is judged where the person clicked it from the label (`label_click`), clicked at `label_offset`."""
        moved = beside(cand, spec, shape)
        if spec.get("in_field") is True and cand is not None:
            if moved is cand or moved is None or cand.line_box is None:
                return None  # the label's line without the field's place: never typed on a guess
            clicked = beside(cand, {**spec, "label_offset": spec.get("label_click")}, shape)
            if clicked is not None and clicked is not cand:
                moved = replace(moved, judged_at=(clicked.x, clicked.y))
            moved = _field_text_after_label(moved)
            return moved if self.guard(moved, spec, shape)[0] else None
        if moved is not cand and moved is not None and not self.guard(moved, spec, shape)[0]:
            return cand
        return moved

    # --- cascade ----------------------------------------------------------------------------
    def resolve(
        self,
        image: np.ndarray,
        spec: Mapping[str, Any],
        *,
        window_title: str | None = None,
        machine_id: str | None = None,
        replay_id: str | None = None,
        action_id: str | None = None,
    ) -> Resolution:
        """`machine_id`: the workstation whose target memory is read (None: the memory is not used)."""
        started = time.perf_counter()
        order = [str(x) for x in (spec.get("resolve_order") or [])] or list(DEFAULT_ORDER)
        order += [mth for mth in DEFAULT_ORDER if mth not in order]  # legacy cascade fallback
        title = window_title or spec.get("window_title")
        m.log_event(
            "resolve_entry",
            replay_id=replay_id,
            action_id=action_id,
            order=order,
            label=spec.get("label") or spec.get("by_text"),
            window_title=title,
            has_anchor=bool(spec.get("anchor_png_base64")),
        )
        if (why := identity.partial(spec)) is not None:  # a record named in part: a person chooses it
            return self._exit(
                Resolution(False, None, None, "identity_partial", reason=why), started, replay_id, action_id
            )
        tried: list[dict[str, Any]] = []
        first_rejection: Resolution | None = None
        mismatch: Resolution | None = None  # a hit on another record: said first when nothing else passes
        for method in order:
            try:
                cand = self._run(method, image, spec, title, machine_id)
            except RpaError as exc:
                tried.append({"method": method, "error": exc.message})
                continue
            except Exception as exc:
                m.log_event(
                    "resolve_exception", replay_id=replay_id, action_id=action_id, method=method, error=repr(exc)
                )
                tried.append({"method": method, "error": repr(exc)})
                continue
            if cand is None:
                tried.append({"method": method, "found": False})
                continue
            ok, name, reason = self.guard(cand, spec, image.shape)
            tried.append(
                {
                    "method": cand.method,
                    "x": cand.x,
                    "y": cand.y,
                    "score": round(cand.score, 4),
                    "accepted": ok,
                    "reason": reason or None,
                }
                | ({"first_look": True} if cand.first_look else {})
            )
            if cand.rivals:  # more than one row reads the record: none of them is clicked, wherever they are
                why = ambiguity(spec, cand)
                tried[-1] |= {"accepted": False, "reason": why}
                res = Resolution(False, None, None, "identity_ambiguous", round(cand.score, 4), why, tried=tried)
                return self._exit(res, started, replay_id, action_id)
            if ok and identity.identity_of(spec) is not None:
                reading = time.perf_counter()
                seen = self.records.identity_at(image, spec, cand)
                tried[-1]["identity_read"] = seen.read
                tried[-1]["identity_ms"] = round((time.perf_counter() - reading) * 1000, 2)
                if not seen.ok:  # the record there is not the one the person chose: never clicked there
                    tried[-1] |= {"accepted": False, "reason": seen.reason}
                    if mismatch is None:
                        mismatch = Resolution(
                            False, None, None, "identity_mismatch", round(cand.score, 4), seen.reason, tried=tried
                        )
                    continue
            if ok:
                if cand.line_box is not None:
                    self.label_boxes.remember(title, spec, (cand.x, cand.y), cand.line_box, machine_id=machine_id)
                x = cand.click_x if cand.click_x is not None else cand.x
                res = Resolution(
                    True, x, cand.y, cand.method, round(cand.score, 4), from_memory=method == "memory", tried=tried
                )
                res.box = cand.line_box
                return self._exit(res, started, replay_id, action_id)
            if first_rejection is None:
                first_rejection = Resolution(False, None, None, name, round(cand.score, 4), reason, tried=tried)
        res = (
            mismatch
            or first_rejection
            or Resolution(False, method="not_found", reason="no method found the target on this screen", tried=tried)
        )
        res.tried = tried
        return self._exit(res, started, replay_id, action_id)

    def _exit(self, res: Resolution, started: float, replay_id: str | None, action_id: str | None) -> Resolution:
        res.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
        m.log_event(
            "resolve_exit",
            replay_id=replay_id,
            action_id=action_id,
            resolved=res.resolved,
            method=res.method,
            x=res.x,
            y=res.y,
            score=res.score,
            from_memory=res.from_memory,
            reason=res.reason,
            elapsed_ms=res.elapsed_ms,
            first_look=True if res.resolved and res.tried and res.tried[-1].get("first_look") else None,
        )
        return res

    def _run(
        self, method: str, image: np.ndarray, spec: Mapping[str, Any], title: str | None, machine_id: str | None
    ) -> Candidate | None:
        if spec.get("step_class") == "irreversible" and (
            method == "uia" or (method == "memory" and not (spec.get("label") or spec.get("by_text")))
        ):
            return None  # a position alone never clicks an irreversible step
        record = identity.identity_of(spec) is not None
        if record and method != "ocr":
            return None  # a record is chosen by who it is, read on every row that could be it
        if method == "memory":
            if self.memory is None:
                return None
            hit = self.memory.lookup(machine_id, title, spec)
            if hit is None or not self._label_at(image, spec, hit.x, hit.y, title, machine_id):
                return None
            return Candidate(hit.x, hit.y, hit.reliability, "memory")
        if method == "ocr":
            quick = (
                None
                if record
                else self._beside_or_line(self._last_line(image, spec, title, machine_id), spec, image.shape)
            )
            if (
                quick is not None
                and self.guard(quick, spec, image.shape)[0]
                and self.records.same_record(image, spec, quick)
            ):
                return quick
            return self._beside_or_line(self._ocr_match(image, spec), spec, image.shape)
        if method == "template":
            return anchor_match(image, spec, self._recorded(spec), self.thresholds)
        if method == "uia":
            uia = spec.get("uia")
            if (
                isinstance(uia, Mapping)
                and isinstance(uia.get("x"), int | float)
                and isinstance(uia.get("y"), int | float)
            ):
                return Candidate(int(uia["x"]), int(uia["y"]), float(uia.get("score", 1.0)), "uia")
            return None
        if method == "vlm":
            found = self.vlm.locate(image, dict(spec))
            if found is None:
                return None
            x, y, score, name = found
            return Candidate(
                int(x), int(y), float(score), name if name.startswith(("vlm_", "grounding")) else f"vlm_{name}"
            )
        return None

    def _label_at(
        self, image: np.ndarray, spec: Mapping[str, Any], x: int, y: int, title: str | None, machine_id: str | None
    ) -> bool:
        """Does the remembered spot still show the target's label? (OCR of one target-sized box)

        The same window title does not mean the same layout: a window moved or resized, a page
        scrolled or a table whose columns follow its content put the target elsewhere, and a
        remembered position would then be clicked blind. A target without a label is not checked.
        Where the label's line was read before, that line alone is recognised first (inside the
        same target-sized box); when it does not show the label, the whole box is read as before.
        """
        label = spec.get("label") or spec.get("by_text") or spec.get("text")
        if not label:
            return True
        wanted = normalize_text(str(label))
        if not wanted:
            return False
        bbox = spec.get("bbox")
        w, h = (int(bbox[2]), int(bbox[3])) if isinstance(bbox, list | tuple) and len(bbox) == 4 else (300, 40)
        box = clamp_bbox((x - w // 2 - 8, y - h // 2 - 4, w + 16, h + 8), image.shape)
        line = self.label_boxes.box_at(title, spec, (x, y), machine_id=machine_id)
        if line is not None and self._line_shows(image, inside(padded(line), box), wanted):
            return True
        x0, y0, bw, bh = box
        for read in self.ocr.read(image[y0 : y0 + bh, x0 : x0 + bw]) if bw > 4 and bh > 4 else []:
            if wanted in normalize_text(read.text):
                lx, ly, lw, lh = read.bbox
                self.label_boxes.remember(title, spec, (x, y), (x0 + lx, y0 + ly, lw, lh), machine_id=machine_id)
                return True
        return False

    def _line_shows(self, image: np.ndarray, box: BBox | None, wanted: str) -> bool:
        """Recognition only, on one line's crop: does it read the label?"""
        if box is None or box[2] <= 4 or box[3] <= 4:
            return False
        x0, y0, bw, bh = box
        read = self.ocr.read_line(image[y0 : y0 + bh, x0 : x0 + bw])
        return read is not None and wanted in normalize_text(read.text)

    # --- OCR ----------------------------------------------------------------------------------
    def _last_line(
        self, image: np.ndarray, spec: Mapping[str, Any], title: str | None, machine_id: str | None
    ) -> Candidate | None:
        """The label's line where it was read for the target's last validated success (a spot the
        memory does not trust yet), read again (recognition of that one line) and scored as a region
        search scores it; None otherwise."""
        label = spec.get("label") or spec.get("by_text") or spec.get("text")
        if not label or self.memory is None:
            return None
        wanted = str(label)
        if self.memory.lookup(machine_id, title, spec) is not None:
            return None  # a trusted spot: the memory method reads that line (then the target's box)
        last = self.memory.last_success(machine_id, title, spec)
        line = (
            self.label_boxes.box_at(title, spec, (last.x, last.y), machine_id=machine_id)
            if normalize_text(wanted) and last is not None
            else None
        )
        if line is None:
            return None
        box = clamp_bbox(padded(line), image.shape)
        x0, y0, bw, bh = box
        if bw <= 4 or bh <= 4:
            return None
        read = self.ocr.read_line(image[y0 : y0 + bh, x0 : x0 + bw])
        score = label_score(read.text, float(read.score), wanted) if read is not None else None
        if score is None:
            return None
        lx, ly, lw, lh = line
        return Candidate(lx + lw // 2, ly + lh // 2, score, "hybrid_text_direct", line)

    def _ocr_match(self, image: np.ndarray, spec: Mapping[str, Any]) -> Candidate | None:
        label = spec.get("label") or spec.get("by_text") or spec.get("text")
        if not label:
            return None
        wanted = str(label)
        is_record = identity.identity_of(spec) is not None
        opened = None if is_record else opened_list(spec, image.shape)
        if normalize_text(wanted) and not is_record and opened is None:
            near = self.first_look.find(image, spec, wanted)
            if near is not None:
                return near
        first: Candidate | None = None
        regions = (
            record_regions(image.shape, spec)
            if is_record
            else [opened]  # an option is read in the list its drop-down opened, and only there
            if opened is not None
            else search_regions(image.shape, self._recorded(spec), spec, self.thresholds.search.ocr_region)
        )
        for region in regions:
            if region[2] <= 0 or region[3] <= 0:
                continue
            x0, y0, rw, rh = region
            lines = read_region(self.ocr, image[y0 : y0 + rh, x0 : x0 + rw])
            found = showing(lines, wanted, (x0, y0))
            if not found and needs_tiles(rw, rh):  # the detector's scale may have lost it
                lines = read_at_other_scale(self.ocr, image[y0 : y0 + rh, x0 : x0 + rw])
                found = showing(lines, wanted, (x0, y0))
            if is_record:
                # a list whose order changed: the label on the line of the record the person chose, wherever it is
                chosen = self.records.choose(image, spec, found, wanted, lines, (x0, y0))
                if chosen is not None:
                    return chosen
                first = first or (found[0] if found else None)
                continue
            if found:
                return found[0]
        return first  # a record's label seen on other records' lines only: its identity check says so


def _field_text_after_label(cand: Candidate) -> Candidate:
    """A label read on one line with the text of its field beside it (a placeholder, a value: the recognizer
    joins them when they stand close): the label starts the line and the field's place is past its end, so
    the rest of the line is the field's own text, not other words around the label. Scored as the label
    alone (its read score), where a label inside longer text scores lower."""
    box, left, right = cand.line_box, cand.label_left, cand.label_right
    if box is None or left is None or right is None or cand.read_score is None:
        return cand
    starts_line = left - box[0] <= LINE_START_SLACK
    return replace(cand, score=max(cand.score, cand.read_score)) if starts_line and cand.x >= right else cand


def _drift(cand: Candidate, point: Point, w: int, h: int) -> tuple[tuple[int, int], float]:
    """Where the hit is judged, and how far that is from `point` (the larger of its shares of the frame)."""
    x, y = cand.judged_at or (cand.x, cand.y)
    if cand.click_x is not None and cand.line_box is not None:  # a row: the point of it nearest the click
        left, _, width, _ = cand.line_box
        x = min(max(round(point[0] * w), left), left + width)
    return (x, y), max(abs(x / w - point[0]), abs(y / h - point[1]))
