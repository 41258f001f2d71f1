"""The bed management desk's push buttons are seen as buttons on a real frame (Java AWT on Xvfb, no accessibility
tree); its result list's patient line and its search field are not."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rpa_mcp.desktop_rig import beds
from rpa_mcp.desktop_rig.admission import hand_click
from rpa_mcp.desktop_rig.harness import VirtualDisplay
from rpa_mcp.desktop_rig.person import Person
from rpa_mcp.vision.push_button import button_around
from tests.agent_x11.conftest import require_desktop, require_packages


@pytest.mark.desktop
def test_the_awt_desk_s_buttons_are_seen_and_its_patient_line_and_field_are_not(tmp_path):
    require_desktop()
    require_packages("the AWT application", beds.missing())
    with VirtualDisplay(workdir=tmp_path / "desk") as desk:
        app = beds.start_beds(desk, tmp_path / "beds.jsonl")
        manager = Person(desk)
        try:
            mark = app.mark
            beds.field(manager, app, "query")
            manager.type("GAUTHIER")
            hand_click(manager, *app.point("find"))
            app.wait_effect("search", mark)
            line = app.box("rows", "Édith")
            desk.wait_still()
            frame = cv2.imread(str(desk.screenshot(tmp_path / "frame.png")), cv2.IMREAD_COLOR)
            assert isinstance(frame, np.ndarray)
            for name in ("find", "assign"):
                x, y, w, h = app.box(name)
                face = button_around(frame, app.point(name))
                assert face is not None, name
                assert x <= face[0] and face[0] + face[2] <= x + w and y <= face[1] and face[1] + face[3] <= y + h
            assert button_around(frame, app.point("rows", "Édith"), (line[0], line[1], line[2], line[3])) is None
            assert button_around(frame, app.point("rows", "Édith")) is None
            assert button_around(frame, app.point("query")) is None
        finally:
            manager.close()
            app.close()
