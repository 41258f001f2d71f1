"""A click keeps the box of the window it was made in, so a replay can follow the window when it moves."""

from __future__ import annotations

from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev
from tests.shadow.test_target_box import frame_b64

AT = {"window_title": "Pharmacie", "app": "chromium", "locale": "fr-FR", "screen_width": 1920, "screen_height": 1080}
BUTTON = {"name": "Valider", "role": "Button"}


def test_the_clicks_window_box_and_the_screen_size_are_kept_in_the_target(shadow: ShadowService) -> None:
    shadow.ingest(
        [
            ev("screenshot", 0.5, screenshot=frame_b64(), **AT),
            ev("click", 1.0, x=600, y=500, element=BUTTON, window_box=[100, 80, 1024, 768], **AT),
            ev("click", 2.0, x=700, y=500, element=BUTTON | {"name": "Annuler"}, window_box=[1, 2, "x", 4], **AT),
        ]
    )
    first, second = shadow.understanding("s1")["steps"]
    assert first["target"]["window_box"] == [100, 80, 1024, 768] and first["target"]["screen"] == [1920, 1080]
    assert second["target"].get("window_box") is None  # not a box: ignored
