"""The Qt 5 imaging desk on a real desktop, through its accessibility tree, with no platform involved.

`rpa-mcp bench apps --app qt` holds this application out (measured once, never tuned on), so no
learn-and-replay test runs here; this checks the rig the figure stands on: Qt's bridge puts the
window in the AT-SPI tree (it stays out when it starts before the desktop's accessibility bus),
and the scripted clerk's real XTEST input reaches the application as typed, accents included.
"""

from __future__ import annotations

import pytest

from rpa_mcp.bench.app_specs import QT
from rpa_mcp.desktop_rig import imaging
from rpa_mcp.desktop_rig.harness import Person, VirtualDisplay
from tests.agent_x11.conftest import require_desktop
from tests.desktop_rig.test_qt_imaging import require_qt

pytestmark = pytest.mark.desktop


def test_the_scripted_clerk_books_two_accented_appointments_exactly_as_typed(tmp_path):
    require_desktop()
    require_qt()
    effects = tmp_path / "imaging.jsonl"
    with VirtualDisplay(workdir=tmp_path / "desk") as desk:
        app = imaging.start_imaging(desk, effects)  # before anyone asked for the accessibility bus
        clerk = Person(desk)
        try:
            for n, variant in enumerate((QT.variants[3], QT.variants[4])):  # NOËL, Œdème
                query, first, number, indication, exam, date = variant
                if n:
                    app = imaging.start_imaging(desk, effects)
                mark = app.mark
                try:
                    imaging.book(clerk, app, imaging.Booking(query, first, indication, exam, date))
                    assert [(e.kind, e.detail.get("q") or e.detail.get("patient")) for e in app.since(mark)] == [
                        ("search", query),
                        ("open", number),
                        ("save", number),
                    ]
                    assert app.since(mark)[-1].detail == {**QT.wanted(variant), "salle": ""}
                finally:
                    app.close()
                    app.wait_gone()
        finally:
            clerk.close()
