"""Synthetic screens with ground truth: HTML/CSS templates of Windows dialogs, browser prompts,
applications and the Easily web app, rendered by headless Chromium (Playwright) and measured
from the DOM.

- `truth`: the ground-truth records written beside each image, and `ScreenSet` to read a folder
  (no browser needed);
- `look`, `pools`: variation (Windows 10/11, theme, scale, language, resolution, font, content);
- `html`, `scenes`: the templates and the scene builders;
- `render`, `corpus`, `canonical`: rendering, seeded sets, the committed corpus.

Regenerate the committed screens with `python -m rpa_mcp.screens build`.
"""

from rpa_mcp.screens.truth import (
    ActionTruth,
    ButtonTruth,
    DialogTruth,
    ElementTruth,
    FrameTruth,
    PairTruth,
    ScreenSet,
    TabTruth,
    WindowTruth,
)

__all__ = [
    "ActionTruth",
    "ButtonTruth",
    "DialogTruth",
    "ElementTruth",
    "FrameTruth",
    "PairTruth",
    "ScreenSet",
    "TabTruth",
    "WindowTruth",
]
