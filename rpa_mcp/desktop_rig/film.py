"""A film a person can follow: the screen's frames, each captioned with what was happening.

`compose` turns captured frames and the story's marks (a step and its verdict, a click, a
person's move) into captioned pictures for the GIF: a band under each frame says the step and
its verdict, a ring shows where the agent clicked, blank frames (a screen being redrawn) are
dropped, and a mark that changed nothing on screen still gets a frame of its own, held long
enough to read. Pure picture work: tested on synthetic frames, no display needed.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFont

MIN_FRAME_MS = 100
CAPTION_HOLD_MS = 1800  # the first frame of a caption stays this long: time to read it
MARKER_S = 1.5  # the click ring shows on the frames of this long after the click
OWN_FRAME_S = 0.3  # a mark with no new frame this soon gets a copy of the picture then on screen
BLANK_STD = 2.0  # a frame whose grey levels vary less than this is blank (nothing drawn yet)
BAND_PX = 44
RING = (230, 30, 30)
FONT_NAMES = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf")


@dataclass(frozen=True)
class Frame:
    at: float  # seconds (wall clock)
    image: np.ndarray  # RGB


@dataclass(frozen=True)
class Mark:
    at: float  # seconds (wall clock, as the frames)
    caption: str
    click: tuple[int, int] | None = None  # in the frames' pixels


@dataclass(frozen=True)
class Picture:
    image: Image.Image
    duration_ms: int


def is_blank(image: np.ndarray) -> bool:
    """Nothing drawn: one colour everywhere (black before the first window, white while a page loads)."""
    grey = image.mean(axis=2) if image.ndim == 3 else image
    return float(grey.std()) < BLANK_STD


def compose(frames: list[Frame], marks: list[Mark], *, end: float, opening: str = "") -> list[Picture]:
    """Captioned pictures with their durations; blank frames left out. Empty when nothing was drawn."""
    kept = [f for f in frames if not is_blank(f.image)]
    if not kept:
        return []
    marks = sorted(marks, key=lambda m: m.at)
    kept = _one_frame_per_mark(kept, marks)
    times = [m.at for m in marks]
    font = _font()
    pictures: list[Picture] = []
    shown: int | None = None
    for i, frame in enumerate(kept):
        until = kept[i + 1].at if i + 1 < len(kept) else end
        n = bisect.bisect_right(times, frame.at) - 1
        mark = marks[n] if n >= 0 else None
        duration = max(MIN_FRAME_MS, round(1000 * (until - frame.at)))
        if n != shown:
            duration, shown = max(duration, CAPTION_HOLD_MS), n
        click = mark.click if mark and mark.click and frame.at - mark.at <= MARKER_S else None
        pictures.append(Picture(_draw(frame.image, mark.caption if mark else opening, click, font), duration))
    return pictures


def save_gif(pictures: list[Picture], path: str) -> None:
    images = [p.image.quantize(colors=128, method=Image.Quantize.MEDIANCUT) for p in pictures]
    durations = [p.duration_ms for p in pictures]
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False)


def _one_frame_per_mark(frames: list[Frame], marks: list[Mark]) -> list[Frame]:
    """The picture on screen when a mark came, as a frame of its own: for a click (where it went, on
    what the agent saw), and for a mark that changed nothing on screen."""
    out = list(frames)
    for n, mark in enumerate(marks):
        nxt = marks[n + 1].at if n + 1 < len(marks) else float("inf")
        if mark.click is None and any(mark.at <= f.at < min(nxt, mark.at + OWN_FRAME_S) for f in out):
            continue
        before = [f for f in out if f.at < mark.at]
        source = before[-1] if before else out[0]
        out.append(Frame(mark.at, source.image))
    return sorted(out, key=lambda f: f.at)


def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in FONT_NAMES:
        try:
            return ImageFont.truetype(name, 20)
        except OSError:
            continue
    return ImageFont.load_default(size=20)


def _draw(
    image: np.ndarray,
    caption: str,
    click: tuple[int, int] | None,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
) -> Image.Image:
    h, w = image.shape[:2]
    canvas = Image.new("RGB", (w, h + BAND_PX), (24, 24, 28))
    canvas.paste(Image.fromarray(image), (0, 0))
    draw = ImageDraw.Draw(canvas)
    if click is not None:
        x, y = click
        for r, width in ((18, 4), (5, 0)):
            box = (x - r, y - r, x + r, y + r)
            draw.ellipse(box, outline=RING, width=width) if width else draw.ellipse(box, fill=RING)
    text = caption
    while text and draw.textlength(text, font=font) > w - 24:
        text = text[:-2] + "…"
    draw.text((12, h + BAND_PX // 2), text, fill=(250, 250, 250), font=font, anchor="lm")
    return canvas
