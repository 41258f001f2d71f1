"""The Qt 5 imaging desk on a real desktop: the rig alone, then a task learned and replayed.

`rpa-mcp bench apps --app qt` was held out until its first (unseen) figure; it is a tuning
application since. The first test checks the rig the figure stands on: Qt's bridge puts the window
in the AT-SPI tree (it stays out when it starts before the desktop's accessibility bus), and the
scripted clerk's real XTEST input reaches the application as typed, accents included. The second
learns the booking through `rpa-agent record` and replays it once for another patient in a smaller
window, nobody answering: it completes with each effect exactly once and the right record, or
pauses with nothing saved.
"""

from __future__ import annotations

import pytest

from rpa_mcp.bench import app_specs, apps
from rpa_mcp.bench.app_specs import QT
from rpa_mcp.desktop_rig import imaging
from rpa_mcp.desktop_rig.harness import VirtualDisplay
from rpa_mcp.desktop_rig.person import Person
from rpa_mcp.desktop_rig.rig import Rig
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


def test_a_booking_learned_on_the_qt_desk_is_saved_once_for_another_patient(tmp_path):
    require_desktop()
    require_qt()
    with Rig(tmp_path, log_to_console=False) as rig:
        app = imaging.start_imaging(rig.desk, tmp_path / "imaging.jsonl")
        tools = rig.tools()
        rig.start_agent(poll_wait_s=5.0)
        learning = apps.learn(rig, tools, app, app_specs.QT)
        # every typed value, the row and the drop-down's option (read from its list item in the tree)
        assert set(app_specs.QT.parameters.values()) <= learning.declared, (learning.parameterized, learning.steps)
        options = [(s.get("params") or {}).get("option") for s in learning.steps if s["action_type"] == "select_option"]
        assert options == ["Scanner thoracique"], learning.steps
        [run] = apps.replays(rig, tools, app, 1, learning.declared, spec=app_specs.QT)

    query, _row, number, *_values = run.variant
    assert run.verdict != "wrong", run.detail  # a pause is never wrong; an effect nobody asked for is
    if run.verdict == "paused":  # nothing saved
        assert [e.kind for e in run.effects if e.kind in ("save", "error")] == [], run.effects
        return
    assert [(e.kind, e.detail.get("q") or e.detail.get("patient")) for e in run.effects] == [
        ("search", query),
        ("open", number),
        ("save", number),
    ]
    assert app_specs.QT.wanted(run.variant).items() <= run.effects[-1].detail.items()
