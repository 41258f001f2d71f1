"""Build screen sets: the committed canonical corpus, the demo's desktop, and seeded tuning /
evaluation sets, each written as PNG files with their ground truth beside them."""

from __future__ import annotations

import hashlib
import json
import random
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rpa_mcp.screens.look import Look, Split, sample_look
from rpa_mcp.screens.render import Renderer, Scene, palette_png
from rpa_mcp.screens.scenes import dialogs, pairs, screens
from rpa_mcp.screens.scenes.base import Ctx
from rpa_mcp.screens.truth import ActionTruth, FrameTruth, PairTruth, frame_from_json, to_json

PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class FrameSpec:
    name: str
    family: str  # a key of dialogs.FAMILIES or screens.FAMILIES
    look: Look
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PairSpec:
    name: str
    category: str  # a key of pairs.CATEGORIES
    look: Look
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)


def _builder(family: str) -> Callable[[Ctx], Scene]:
    if family in dialogs.FAMILIES:
        return dialogs.FAMILIES[family]
    if family in screens.FAMILIES:
        return screens.FAMILIES[family]
    raise KeyError(f"unknown scene family {family!r}")


def frame_truth(
    file: str, scene: Scene, measured: dict[str, Any], look: Look, seed: int | None, *, strict: bool = True
) -> FrameTruth:
    """The frame's record; `strict`: the scene's dialog id must be the page's primary dialog (and
    a scene without one must show none). Pair frames are not strict: their dialog comes from the page."""
    found = measured["dialogs"]
    primary = [d for d in found if d["primary"]] or found[-1:]
    if not strict:
        pass
    elif scene.dialog_id is not None:
        if not primary or primary[0]["id"] != scene.dialog_id:
            raise AssertionError(f"{file}: the page shows {[d['id'] for d in found]}, the scene says {scene.dialog_id}")
    elif found:
        raise AssertionError(f"{file}: a frame without a dialog shows {[d['id'] for d in found]}")
    raw: dict[str, Any] = {
        "file": file,
        "size": [look.width, look.height],
        "look": {k: getattr(look, k) for k in ("os", "theme", "scale", "lang", "font", "browser")},
        "description": scene.description,
        "dialog": primary[0] if primary and (scene.dialog_id or not strict) else None,
        "dialogs": found,
        "tabs": measured["tabs"],
        "windows": measured["windows"],
        "window_title": scene.window_title,
        "process": scene.process,
        "elements": measured["elements"],
        "hard_cases": list(scene.hard_cases)
        + ([] if not primary or primary[0]["visible"] >= 0.999 else ["partly hidden"]),
        "seed": seed,
    }
    return frame_from_json(json.loads(json.dumps(raw)))


def _render_frame(
    renderer: Renderer, scene: Scene, file: str, seed: int | None, *, strict: bool = True
) -> tuple[bytes, FrameTruth]:
    out = renderer.render(scene.body, scene.look)
    return out.png, frame_truth(file, scene, out.measured, scene.look, seed, strict=strict)


def render_frame(renderer: Renderer, spec: FrameSpec, split: Split) -> tuple[bytes, FrameTruth]:
    ctx = Ctx(random.Random(spec.seed), spec.look, split, spec.seed, dict(spec.options))
    scene = _builder(spec.family)(ctx)
    return _render_frame(renderer, scene, f"{spec.name}.png", spec.seed)


def _target(ref: tuple[str, str], before: FrameTruth) -> tuple[str | None, Any, Any, Any]:
    """(label, bbox, point, label_bbox) of a named target on the BEFORE frame."""
    kind, name = ref
    if kind in ("tab", "tab-close"):
        tab = before.tab(name)
        box = tab.close_bbox if kind == "tab-close" else tab.bbox
        assert box is not None
        return name, box, (box[0] + box[2] // 2, box[1] + box[3] // 2), tab.label_bbox
    if kind == "element":
        el = before.element(name)
        box = el.bbox
        return el.label, box, (box[0] + box[2] // 2, box[1] + box[3] // 2), None
    if kind == "button":
        assert before.dialog is not None
        button = before.dialog.button(name)
        box = button.bbox
        return name, box, (box[0] + box[2] // 2, box[1] + box[3] // 2), None
    raise KeyError(kind)


def check_in_view(name: str, ref: tuple[str, str], bbox: Any, before: FrameTruth) -> None:
    """A generator fault, loud: the target a person clicks (`ref`, at `bbox`) lies on the frame, and
    an element of the page is not clipped by its window nor covered by the taskbar."""
    width, height = before.size
    x, y, w, h = bbox
    visible = before.element(ref[1]).visible if ref[0] == "element" else 1.0
    if x < 0 or y < 0 or x + w > width or y + h > height or visible < 0.9:
        raise ValueError(
            f"{name}: its target {ref[1]!r} at {(x, y, w, h)} is not in view on the {width}x{height} frame "
            f"({visible:.0%} visible); the scene must keep it in view"
        )


def render_pair(renderer: Renderer, spec: PairSpec, split: Split) -> tuple[bytes, bytes, PairTruth]:
    ctx = Ctx(random.Random(spec.seed), spec.look, split, spec.seed, dict(spec.options))
    scene = pairs.CATEGORIES[spec.category](ctx)
    png_b, before = _render_frame(renderer, scene.before, f"{spec.name}.before.png", spec.seed, strict=False)
    png_a, after = _render_frame(renderer, scene.after, f"{spec.name}.after.png", spec.seed, strict=False)
    label, bbox, point, label_bbox = _target(scene.target, before)
    width, height = before.size
    check_in_view(spec.name, scene.target, bbox, before)
    truth = PairTruth(
        id=spec.name,
        category=scene.category,
        before=before,
        after=after,
        action=ActionTruth(
            scene.action_type, label, bbox, point, label_bbox, scene.expected_text, scene.expected_window_title
        ),
        verdict=scene.verdict,
        failure_category=scene.failure_category,
        description=scene.description,
        observed=dict(scene.observed),
        recorded={
            "rel_x": round(point[0] / max(1, width - 1), 5),
            "rel_y": round(point[1] / max(1, height - 1), 5),
            "window_title": scene.expected_window_title or scene.observed.get("window_title_before", ""),
        },
        seed=spec.seed,
    )
    return png_b, png_a, truth


class _Writer:
    """Writes PNGs into a folder once per distinct content (identical frames share one file)."""

    def __init__(self, folder: Path, *, palette: bool) -> None:
        self.folder = folder
        self.palette = palette
        self.by_digest: dict[str, str] = {}

    def png(self, name: str, png: bytes) -> str:
        data = palette_png(png) if self.palette else png
        digest = hashlib.sha256(data).hexdigest()
        if digest in self.by_digest:
            return self.by_digest[digest]
        (self.folder / name).write_bytes(data)
        self.by_digest[digest] = name
        return name

    def json(self, name: str, record: FrameTruth | PairTruth) -> None:
        text = json.dumps(to_json(record), ensure_ascii=False, indent=1) + "\n"
        (self.folder / f"{name}.json").write_text(text, encoding="utf-8")


def write_set(
    folder: Path,
    renderer: Renderer,
    frames: Sequence[FrameSpec],
    pair_specs: Sequence[PairSpec],
    split: Split,
    *,
    clean: bool = True,
    palette: bool = False,
    progress: Callable[[str], None] | None = None,
) -> None:
    """Render every spec into `folder` (PNG + JSON beside it); with `clean`, stale files go first,
    without it a spec whose JSON is there already is kept (its PNGs are written before it).

    `palette`: store 256-colour PNGs (the committed corpus; see render.palette_png).
    """
    if clean and folder.is_dir():
        for path in list(folder.glob("*.png")) + list(folder.glob("*.json")):
            path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    out = _Writer(folder, palette=palette)
    for spec in frames:
        if not clean and (folder / f"{spec.name}.json").is_file():
            continue
        png, truth = render_frame(renderer, spec, split)
        truth = replace(truth, file=out.png(truth.file, png))
        out.json(spec.name, truth)
        if progress:
            progress(truth.file)
    for pair_spec in pair_specs:
        if not clean and (folder / f"{pair_spec.name}.json").is_file():
            continue
        png_b, png_a, pair = render_pair(renderer, pair_spec, split)
        before = replace(pair.before, file=out.png(pair.before.file, png_b))
        after = replace(pair.after, file=out.png(pair.after.file, png_a))
        out.json(pair_spec.name, replace(pair, before=before, after=after))
        if progress:
            progress(pair_spec.name)


# --- seeded sets ---------------------------------------------------------------------------------
FRAMES_PER_FAMILY = {"tuning": 8, "evaluation": 10}
SCREENS_PER_FAMILY = {"tuning": 6, "evaluation": 7}
PAIRS_PER_CATEGORY = {"tuning": 6, "evaluation": 8}


def seed_of(split: str, salt: str, kind: str, index: int) -> int:
    return zlib.crc32(f"{split}:{salt}:{kind}:{index}".encode())


def sampled_specs(split: Split, *, salt: str = "1", scale: float = 1.0) -> tuple[list[FrameSpec], list[PairSpec]]:
    """The tuning or evaluation set: every family and category, looks drawn by seed."""
    frames: list[FrameSpec] = []
    for family in list(dialogs.FAMILIES) + list(screens.FAMILIES):
        per = (FRAMES_PER_FAMILY if family in dialogs.FAMILIES else SCREENS_PER_FAMILY)[split]
        for i in range(max(1, round(per * scale))):
            seed = seed_of(split, salt, family, i)
            look = sample_look(random.Random(seed), split)
            frames.append(FrameSpec(f"{family}-{i:02d}", family, look, seed))
    pair_specs: list[PairSpec] = []
    for category in pairs.CATEGORIES:
        for i in range(max(1, round(PAIRS_PER_CATEGORY[split] * scale))):
            seed = seed_of(split, salt, category, i)
            look = sample_look(random.Random(seed), split, dark_share=0.25)
            pair_specs.append(PairSpec(f"{category}-{i:02d}", category, look, seed))
    return frames, pair_specs


NOT_GENERATOR = frozenset({"real.py", "__main__.py"})  # the capture of real software and the command line


def generator_digest() -> str:
    """Changes whenever the generator's code changes (a cached set is then rebuilt)."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if path.parent == PACKAGE_DIR and path.name in NOT_GENERATOR:
            continue
        h.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def ensure_sampled_set(
    cache: Path, split: Split, *, salt: str = "1", scale: float = 1.0, progress: Callable[[str], None] | None = None
) -> Path:
    """The set's folder under `cache`, rendered first when missing or built by another generator
    (a folder of this generator left half-rendered by an interrupted run is completed)."""
    folder = cache / f"{split}-{salt}-x{scale:g}-{generator_digest()}"
    done = folder / "COMPLETE"
    if done.is_file():
        return folder
    frames, pair_specs = sampled_specs(split, salt=salt, scale=scale)
    with Renderer() as renderer:
        write_set(folder, renderer, frames, pair_specs, split, clean=False, progress=progress)
    done.write_text("ok\n", encoding="utf-8")
    return folder


def names(specs: Iterable[FrameSpec | PairSpec]) -> list[str]:
    return [s.name for s in specs]
