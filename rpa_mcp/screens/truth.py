"""Ground truth of the screen sets, as written beside each image (typed, read without a browser).

A set is a folder of `<name>.png` + `<name>.json` (one frame: kind "frame") and, for the
validator, `<id>.before.png` + `<id>.after.png` + `<id>.json` (kind "pair"). Boxes are
`[x, y, w, h]` in PNG pixels, measured from the DOM of the rendered page (or labelled by hand
for screenshots of real software: `source: "real"`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from rpa_mcp.vision.images import BBox, decode_image


def _box(value: Any) -> BBox | None:
    if value is None:
        return None
    x, y, w, h = (round(float(v)) for v in value)
    return x, y, w, h


@dataclass(frozen=True)
class ButtonTruth:
    label: str
    bbox: BBox
    key: str | None = None
    visible: float = 1.0


@dataclass(frozen=True)
class DialogTruth:
    id: str  # catalog id (unknown for a dialog the catalog does not hold)
    title: str
    bbox: BBox
    visible_bbox: BBox
    visible: float = 1.0
    text: str = ""
    title_bbox: BBox | None = None
    title_visible: float = 1.0
    buttons: tuple[ButtonTruth, ...] = ()
    kind: str = "dialog"  # dialog | bubble | toast | window
    modal: bool = True

    def button(self, label: str) -> ButtonTruth:
        return next(b for b in self.buttons if b.label == label)


@dataclass(frozen=True)
class TabTruth:
    label: str
    bbox: BBox
    label_bbox: BBox
    close_bbox: BBox | None
    active: bool
    visible: float = 1.0


@dataclass(frozen=True)
class WindowTruth:
    title: str
    process: str
    bbox: BBox
    front: bool = False


@dataclass(frozen=True)
class ElementTruth:
    """A named element of the page (an action's target, a field, a taskbar icon...)."""

    label: str
    bbox: BBox
    visible: float = 1.0


@dataclass(frozen=True)
class FrameTruth:
    file: str
    size: tuple[int, int]
    look: dict[str, Any]
    description: str = ""
    dialog: DialogTruth | None = None  # the dialog a classifier must report (front-most)
    dialogs: tuple[DialogTruth, ...] = ()
    tabs: tuple[TabTruth, ...] = ()
    windows: tuple[WindowTruth, ...] = ()
    window_title: str = ""  # the foreground window's title, as an agent reports it
    process: str = ""
    elements: dict[str, ElementTruth] = field(default_factory=dict)
    hard_cases: tuple[str, ...] = ()
    source: str = "generated"  # generated | real
    seed: int | None = None

    @property
    def dialog_id(self) -> str | None:
        return self.dialog.id if self.dialog else None

    def tab(self, label: str) -> TabTruth:
        return next(t for t in self.tabs if t.label == label)

    def element(self, name: str) -> ElementTruth:
        return self.elements[name]


@dataclass(frozen=True)
class ActionTruth:
    type: str  # an action type of the validator matrix (switch_tab, close_tab, save, ...)
    label: str | None
    bbox: BBox | None  # the target element in the BEFORE frame
    point: tuple[int, int] | None  # where the click lands
    label_bbox: BBox | None = None
    expected_text: str | None = None
    expected_window_title: str | None = None


@dataclass(frozen=True)
class PairTruth:
    id: str
    category: str  # what the pair shows: tab-switch-ok, wrong-application, ...
    before: FrameTruth
    after: FrameTruth
    action: ActionTruth
    verdict: str  # SUCCESS | FAILURE | UNCERTAIN
    failure_category: str | None
    description: str = ""
    observed: dict[str, str] = field(default_factory=dict)  # window_title_before/_after, process_after
    recorded: dict[str, Any] = field(default_factory=dict)  # what a recorded step keeps: rel_x, rel_y, window_title
    source: str = "generated"
    seed: int | None = None


def _button(raw: dict[str, Any]) -> ButtonTruth:
    return ButtonTruth(raw["label"], _box(raw["bbox"]) or (0, 0, 0, 0), raw.get("key"), float(raw.get("visible", 1)))


def _dialog(raw: dict[str, Any] | None) -> DialogTruth | None:
    if raw is None:
        return None
    bbox = _box(raw["bbox"]) or (0, 0, 0, 0)
    return DialogTruth(
        id=raw["id"],
        title=raw.get("title", ""),
        bbox=bbox,
        visible_bbox=_box(raw.get("visible_bbox")) or bbox,
        visible=float(raw.get("visible", 1)),
        text=raw.get("text", ""),
        title_bbox=_box(raw.get("title_bbox")),
        title_visible=float(raw.get("title_visible", 1)),
        buttons=tuple(_button(b) for b in raw.get("buttons", ())),
        kind=raw.get("kind", "dialog"),
        modal=bool(raw.get("modal", True)),
    )


def frame_from_json(raw: dict[str, Any]) -> FrameTruth:
    return FrameTruth(
        file=raw["file"],
        size=(int(raw["size"][0]), int(raw["size"][1])),
        look=dict(raw.get("look", {})),
        description=raw.get("description", ""),
        dialog=_dialog(raw.get("dialog")),
        dialogs=tuple(d for d in (_dialog(x) for x in raw.get("dialogs", ())) if d is not None),
        tabs=tuple(
            TabTruth(
                t["label"],
                _box(t["bbox"]) or (0, 0, 0, 0),
                _box(t["label_bbox"]) or (0, 0, 0, 0),
                _box(t.get("close_bbox")),
                bool(t["active"]),
                float(t.get("visible", 1)),
            )
            for t in raw.get("tabs", ())
        ),
        windows=tuple(
            WindowTruth(w["title"], w.get("process", ""), _box(w["bbox"]) or (0, 0, 0, 0), bool(w.get("front")))
            for w in raw.get("windows", ())
        ),
        window_title=raw.get("window_title", ""),
        process=raw.get("process", ""),
        elements={
            k: ElementTruth(v.get("label", ""), _box(v["bbox"]) or (0, 0, 0, 0), float(v.get("visible", 1)))
            for k, v in raw.get("elements", {}).items()
        },
        hard_cases=tuple(raw.get("hard_cases", ())),
        source=raw.get("source", "generated"),
        seed=raw.get("seed"),
    )


def pair_from_json(raw: dict[str, Any]) -> PairTruth:
    action = raw["action"]
    point = action.get("point")
    return PairTruth(
        id=raw["id"],
        category=raw["category"],
        before=frame_from_json(raw["before"]),
        after=frame_from_json(raw["after"]),
        action=ActionTruth(
            type=action["type"],
            label=action.get("label"),
            bbox=_box(action.get("bbox")),
            point=(int(point[0]), int(point[1])) if point else None,
            label_bbox=_box(action.get("label_bbox")),
            expected_text=action.get("expected_text"),
            expected_window_title=action.get("expected_window_title"),
        ),
        verdict=raw["verdict"],
        failure_category=raw.get("failure_category"),
        description=raw.get("description", ""),
        observed=dict(raw.get("observed", {})),
        recorded=dict(raw.get("recorded", {})),
        source=raw.get("source", "generated"),
        seed=raw.get("seed"),
    )


def to_json(record: FrameTruth | PairTruth) -> dict[str, Any]:
    """The JSON written beside the image(s); `kind` tells frames and pairs apart."""
    data = asdict(record)
    data["kind"] = "pair" if isinstance(record, PairTruth) else "frame"
    return data


class ScreenSet:
    """A folder of frames and pairs with their ground truth; images decoded once, on demand."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._decoded: dict[str, np.ndarray] = {}

    @cached_property
    def _records(self) -> tuple[list[FrameTruth], list[PairTruth]]:
        frames: list[FrameTruth] = []
        pairs: list[PairTruth] = []
        for path in sorted(self.root.glob("*.json")):
            raw = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict) or raw.get("kind") not in ("frame", "pair"):
                continue
            if raw["kind"] == "pair":
                pairs.append(pair_from_json(raw))
            else:
                frames.append(frame_from_json(raw))
        return frames, pairs

    @property
    def frames(self) -> list[FrameTruth]:
        return self._records[0]

    @property
    def pairs(self) -> list[PairTruth]:
        return self._records[1]

    def frame(self, name: str) -> FrameTruth:
        """A frame by file name, with or without `.png`."""
        stem = name.removesuffix(".png")
        found = next((f for f in self.frames if f.file.removesuffix(".png") == stem), None)
        if found is None:
            raise KeyError(f"no frame {name!r} in {self.root}")
        return found

    def pair(self, pair_id: str) -> PairTruth:
        found = next((p for p in self.pairs if p.id == pair_id), None)
        if found is None:
            raise KeyError(f"no pair {pair_id!r} in {self.root}")
        return found

    def path(self, file: str) -> Path:
        return self.root / file

    def png(self, file: str) -> bytes:
        return (self.root / file).read_bytes()

    def image(self, file: str) -> np.ndarray:
        if file not in self._decoded:
            self._decoded[file] = decode_image(self.png(file))
        return self._decoded[file]
