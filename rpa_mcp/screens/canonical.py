"""The committed corpus: a fixed, small set the tests read (tests/fixtures/screens), and the demo
desktop's frames shipped inside the package (rpa_mcp/agent_sim/assets).

Names say what a frame shows: `d-` a dialog, `s-` no dialog, `p-` a before/after pair.
Every look here draws from the tuning half of the content pools (see pools.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rpa_mcp.screens.corpus import FrameSpec, PairSpec, _render_frame, render_pair, write_set
from rpa_mcp.screens.look import Look
from rpa_mcp.screens.render import Renderer, palette_png
from rpa_mcp.screens.scenes import incident
from rpa_mcp.screens.truth import to_json

BASE = Look()  # win11, light, 100 %, fr, 1920x1080, Liberation Sans, Edge


def look(**changes: object) -> Look:
    return BASE.but(**changes)


EN, W10, CHROME, DARK = {"lang": "en"}, {"os": "win10"}, {"browser": "chrome"}, {"theme": "dark"}
SMALL = {"width": 1366, "height": 768}
LARGE = {"width": 2560, "height": 1440, "scale": 1.25}

FRAMES: tuple[FrameSpec, ...] = (
    FrameSpec("d-uac-en-win11", "uac", look(**EN)),
    FrameSpec("d-uac-fr-win10", "uac", look(**W10)),
    FrameSpec("d-hello-en-dark", "hello", look(**EN, **DARK)),
    FrameSpec("d-credential-fr", "credential", look(**SMALL)),
    FrameSpec("d-smartscreen-en-win10", "smartscreen", look(**EN, **W10), options={"variant": "more-info"}),
    FrameSpec("d-smartscreen-fr-win11", "smartscreen", look(), options={"variant": "dont-run"}),
    FrameSpec("d-smartscreen-details-en", "smartscreen", look(**EN), options={"variant": "details"}),
    FrameSpec("d-defender-en-win10", "defender", look(**EN, **W10, **SMALL), seed=2),
    FrameSpec("d-defender-fr-win11", "defender", look(), seed=4),
    FrameSpec("d-confirm-delete-en", "confirm-delete", look(**EN, **W10)),
    FrameSpec("d-file-in-use-fr", "file-in-use", look(**SMALL)),
    FrameSpec("d-save-as-en-1440", "save-as", look(**EN, **LARGE)),
    FrameSpec("d-notepad-save-en-win10", "notepad-save", look(**EN, **W10)),
    FrameSpec("d-notepad-save-fr-dark-150", "notepad-save", look(**DARK, scale=1.5)),
    FrameSpec("d-office-save-fr", "office-save", look(**W10)),
    FrameSpec("d-outlook-reminder-en", "outlook-reminder", look(**EN, **SMALL)),
    FrameSpec("d-app-error-en", "app-error", look(**EN)),
    FrameSpec("d-app-confirm-delete-fr", "app-confirm-delete", look(**W10)),
    FrameSpec("d-unknown-labo-fr", "unknown", look(**W10), options={"variant": 0}),
    FrameSpec("d-unknown-update-fr", "unknown", look(), options={"variant": 1}),
    FrameSpec("d-unknown-confirmation-en", "unknown", look(**EN, **SMALL), options={"variant": 2}),
    FrameSpec("d-perm-camera-fr-chrome", "perm-camera", look(**CHROME)),
    FrameSpec("d-perm-microphone-en-edge", "perm-microphone", look(**EN)),
    FrameSpec("d-perm-location-fr-chrome-1366", "perm-location", look(**CHROME, **SMALL)),
    FrameSpec("d-perm-notifications-en-chrome", "perm-notifications", look(**EN, **CHROME)),
    FrameSpec("d-js-confirm-fr-chrome", "js-dialog", look(**CHROME), options={"kind": "confirm"}),
    FrameSpec("d-leave-site-en-edge", "js-dialog", look(**EN), options={"kind": "leave"}),
    FrameSpec("d-translate-en-chrome", "translate", look(**EN, **CHROME)),
    FrameSpec("d-easily-save-confirm-fr", "easily-save-confirm", look()),
    FrameSpec("d-easily-toast-fr", "easily-toast", look(**CHROME)),
    FrameSpec("d-easily-required-fr", "easily-required", look()),
    FrameSpec("d-easily-clinical-fr", "easily-clinical", look(**W10)),
    FrameSpec("d-easily-session-fr-1366", "easily-session", look(**SMALL)),
    FrameSpec("d-easily-delete-fr", "easily-delete", look()),
    # other applications' generic prompts, in the words of application-bound entries
    FrameSpec("d-other-save-fr-editor", "other-app-prompt", look(), options={"kind": "save-changes", "host": "editor"}),
    FrameSpec(
        "d-other-save-en-office",
        "other-app-prompt",
        look(**EN, **W10),
        options={"kind": "save-changes", "host": "office"},
    ),
    FrameSpec(
        "d-other-save-fr-office-dark",
        "other-app-prompt",
        look(**DARK),
        options={"kind": "save-changes", "host": "office"},
    ),
    FrameSpec(
        "d-other-saved-notice-fr", "other-app-prompt", look(**W10), options={"kind": "saved-notice", "host": "editor"}
    ),
    FrameSpec(
        "d-other-delete-fr-office", "other-app-prompt", look(), options={"kind": "confirm-delete", "host": "office"}
    ),
    FrameSpec(
        "d-other-delete-en-editor-1366",
        "other-app-prompt",
        look(**EN, **SMALL),
        options={"kind": "confirm-delete", "host": "editor"},
    ),
    FrameSpec("d-other-error-fr-editor", "other-app-prompt", look(**W10), options={"kind": "error", "host": "editor"}),
    FrameSpec(
        "d-other-credential-en-office", "other-app-prompt", look(**EN), options={"kind": "credential", "host": "office"}
    ),
    FrameSpec(
        "d-other-credential-fr-1366",
        "other-app-prompt",
        look(**SMALL, **W10),
        options={"kind": "credential", "host": "editor"},
    ),
    FrameSpec(
        "d-notepad-save-occluded-en", "notepad-save", look(**EN), seed=11, options={"occlude": 1.0, "force": True}
    ),
    FrameSpec("s-easily-synthese", "easily-page", look(), options={"page": "synthese"}),
    FrameSpec("s-easily-prescriptions", "easily-page", look(**CHROME), options={"page": "prescriptions"}),
    FrameSpec("s-explorer-1440", "explorer", look(**LARGE, **DARK)),
    FrameSpec("s-notepad-en", "notepad", look(**EN)),
    FrameSpec("s-outlook-fr", "outlook", look(**SMALL)),
    FrameSpec("s-pacs-fr", "pacs", look()),
    FrameSpec("s-word-en", "word", look(**EN, **W10)),
)

PAIRS: tuple[PairSpec, ...] = (
    PairSpec("p-tab-switch-ok", "tab-switch-ok", look()),
    PairSpec("p-tab-switch-dark-1440-chrome", "tab-switch-ok", look(**DARK, **CHROME, **LARGE), seed=5),
    PairSpec("p-wrong-tab", "wrong-tab", look()),
    PairSpec("p-already-active", "already-active", look()),
    PairSpec("p-no-change-1366", "no-change", look(**SMALL)),
    PairSpec("p-clock-only", "clock-only", look()),
    PairSpec("p-wrong-application", "wrong-application", look()),
    PairSpec("p-tab-closed", "tab-closed", look()),
    PairSpec("p-tab-closed-chrome-en", "tab-closed", look(**EN, **CHROME), seed=7),
    PairSpec("p-save-notepad-fr", "save-ok", look(**W10)),
    PairSpec("p-save-toast-fr", "save-toast", look()),
    PairSpec("p-save-session-expired", "unexpected-dialog", look()),
    PairSpec("p-click-opens-confirm", "click-opens-confirm", look(**CHROME)),
    PairSpec("p-blocked-by-leave-dialog", "blocked-by-dialog", look()),
    PairSpec("p-dialog-closed-fr", "dialog-closed", look(**W10)),
    PairSpec("p-dialog-still-open-en", "dialog-still-open", look(**EN, **W10)),
    PairSpec("p-click-menu-ok", "click-ok", look()),
)


def build_canonical(folder: Path, renderer: Renderer, progress: Callable[[str], None] | None = None) -> None:
    write_set(folder, renderer, FRAMES, PAIRS, "canonical", palette=True, progress=progress)


def build_assets(folder: Path, renderer: Renderer, progress: Callable[[str], None] | None = None) -> None:
    """The demo desktop's screens: PNG + truth, shipped in the wheel (the demo reads nothing else)."""
    for path in list(folder.glob("*.png")) + list(folder.glob("*.json")):
        path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    scenes = {name: make() for name, make in incident.FRAMES.items()}
    pacs_before, pacs_after = incident.pacs()
    scenes["pacs"], scenes["pacs_series1"] = pacs_before, pacs_after
    for name, scene in scenes.items():
        png, truth = _render_frame(renderer, scene, f"{name}.png", 0, strict=not name.startswith("pacs"))
        (folder / truth.file).write_bytes(palette_png(png))
        (folder / f"{name}.json").write_text(json.dumps(to_json(truth), ensure_ascii=False, indent=1) + "\n", "utf-8")
        if progress:
            progress(truth.file)


__all__ = ["FRAMES", "PAIRS", "build_assets", "build_canonical", "render_pair"]
