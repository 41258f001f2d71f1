"""The committed screens the tests read: tests/fixtures/screens (regenerate: python -m rpa_mcp.screens build)."""

from __future__ import annotations

from pathlib import Path

from rpa_mcp.agent_sim.fixtures import ASSETS_DIR
from rpa_mcp.screens.truth import ScreenSet

SCREENS_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "screens"
SCREENS = ScreenSet(SCREENS_DIR)  # the canonical corpus: dialogs, screens without one, before/after pairs
ASSETS = ScreenSet(ASSETS_DIR)  # the demo desktop's frames, shipped inside the package
