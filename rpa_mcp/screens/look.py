"""How a synthetic screen looks: Windows generation, theme, scale, language, resolution, font.

A `Look` is drawn from a seeded random generator, so the same seed always gives the same
screen. Physical pixels = CSS pixels x scale (a 1920x1080 screen at 125 % is a 1536x864 page
rendered with a device scale factor of 1.25), as on a real Windows desktop.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Literal

Os = Literal["win10", "win11"]
Theme = Literal["light", "dark"]
Lang = Literal["fr", "en"]
Browser = Literal["edge", "chrome"]
Split = Literal["canonical", "tuning", "evaluation"]

# (width, height, scale): the combinations a hospital workstation really runs.
DISPLAYS: tuple[tuple[int, int, float], ...] = (
    (1366, 768, 1.0),
    (1600, 900, 1.0),
    (1600, 900, 1.25),
    (1920, 1080, 1.0),
    (1920, 1080, 1.0),
    (1920, 1080, 1.25),
    (1920, 1080, 1.5),
    (2560, 1440, 1.0),
    (2560, 1440, 1.25),
    (2560, 1440, 1.5),
)
# Segoe UI is not on Linux: sans-serif families stand in for it. The evaluation set uses a family
# the tuning set never shows (DejaVu Sans, wider), so a rule that fits one font's metrics shows up.
FONTS: dict[Split, tuple[str, ...]] = {
    "canonical": ("Liberation Sans",),
    "tuning": ("Liberation Sans", "Nimbus Sans"),
    "evaluation": ("DejaVu Sans", "Liberation Sans"),
}


@dataclass(frozen=True)
class Look:
    os: Os = "win11"
    theme: Theme = "light"
    scale: float = 1.0
    lang: Lang = "fr"
    width: int = 1920
    height: int = 1080
    font: str = "Liberation Sans"
    browser: Browser = "edge"

    @property
    def css_width(self) -> int:
        return round(self.width / self.scale)

    @property
    def css_height(self) -> int:
        return round(self.height / self.scale)

    @property
    def dark(self) -> bool:
        return self.theme == "dark"

    @property
    def win11(self) -> bool:
        return self.os == "win11"

    def t(self, en: str, fr: str) -> str:
        """The string of this look's language."""
        return fr if self.lang == "fr" else en

    def but(self, **changes: object) -> Look:
        return replace(self, **changes)  # type: ignore[arg-type]  # dataclass fields by name

    @property
    def tag(self) -> str:
        """Short description used in file names: win11-light-fr-1920x1080@100."""
        return f"{self.os}-{self.theme}-{self.lang}-{self.width}x{self.height}@{round(self.scale * 100)}"


def sample_look(rng: random.Random, split: Split, *, lang: Lang | None = None, dark_share: float = 0.3) -> Look:
    width, height, scale = rng.choice(DISPLAYS)
    return Look(
        os=rng.choice(("win10", "win11")),
        theme="dark" if rng.random() < dark_share else "light",
        scale=scale,
        lang=lang if lang is not None else rng.choice(("fr", "en")),
        width=width,
        height=height,
        font=rng.choice(FONTS[split]),
        browser=rng.choice(("edge", "chrome")),
    )
