"""The outpatient appointment desk (the wxPython application `rpa-mcp bench apps --app wx` measures on).

The first test runs it on a real desktop (Xvfb + openbox): the program starts under the system Python, shows
nothing to the accessibility tree (the platform sees it by vision alone), and the scripted receptionist's
real XTEST input, accents included, with its typo, hesitation and misclick, picks the right one of two
patients alike in the wx-drawn grid and saves exactly the record the benchmark expects, once, confirmed in
the window. The second checks that, once the benchmark has moved and resized the window, wx knows where its
widgets are on the screen (where its drop-down opens and its clicks land) and takes the option clicked in
its list. The last checks, from the source alone, that every benchmark variant names a patient and a
consultation the application has.
"""

from __future__ import annotations

import ast
import os
from functools import partial

import pytest

from rpa_mcp.bench.app_specs import WX
from rpa_mcp.desktop_rig import appointments
from rpa_mcp.desktop_rig.admission import hand_click, place
from rpa_mcp.desktop_rig.harness import VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.imaging import accessibility_bus_up
from rpa_mcp.desktop_rig.person import Person
from tests.agent_x11.conftest import require_desktop
from tests.desktop_rig.placing import content_offset


def require_wx() -> None:
    absent = appointments.missing()
    if not absent:
        return
    reason = f"the wxPython application needs Debian packages {', '.join(absent)}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must provide them")
    pytest.skip(reason)


@pytest.mark.desktop
def test_the_scripted_receptionist_books_the_right_one_of_two_alike_with_accents_as_typed_unseen_by_the_tree(
    tmp_path,
):
    require_desktop()
    require_wx()
    variant = WX.variants[4]  # MARCHAND Léo, beside MARCHAND Léa: "Douleurs lombaires après une chute"
    query, first, number, consultation, date, reason = variant
    with VirtualDisplay(workdir=tmp_path / "desk") as desk:
        accessibility_bus_up(desk)  # the tree is live: a bridge, were there one, would hold the window's widgets
        app = appointments.start_appointments(desk, tmp_path / "appointments.jsonl")
        receptionist = Person(desk)
        try:
            assert receptionist.eyes.find("Chercher") is None  # nothing of it in the accessibility tree
            task = appointments.Booking(query, first, consultation, date, True, reason)
            appointments.book(receptionist, app, task)
            assert [(e.kind, e.detail.get("q") or e.detail.get("patient")) for e in app.since(0)] == [
                ("search", query),
                ("open", number),
                ("save", number),
            ]
            assert app.since(0)[0].detail["hits"] == ["800423", "800424"]  # Léa and Léo, one row apart
            assert app.since(0)[-1].detail == {**WX.wanted(variant), "adresseur": ""}
            assert desk.windows().info(app.wid).title == f"Consultations externes — {query} {first}"
            wait_until(lambda: app.layout().get("banner") is True, timeout=10, what="the confirmation shown")
        finally:
            receptionist.close()
            app.close()


@pytest.mark.desktop
def test_wx_knows_where_its_widgets_are_and_opens_its_list_there_once_moved_and_resized(tmp_path):
    require_desktop()
    require_wx()
    with VirtualDisplay(workdir=tmp_path / "desk") as desk:
        app = appointments.start_appointments(desk, tmp_path / "appointments.jsonl")
        windows = desk.windows()
        receptionist = Person(desk)
        offset = partial(content_offset, app, windows)
        try:
            below_menu = wait_until(offset, timeout=10, what="the maximised window's client area")
            for n, geometry in enumerate(("moved", "wide", "resized", "small")):
                place(app, geometry)
                wait_until(lambda: offset() == below_menu, timeout=10, what=f"wx at its {geometry} window's place")
                wanted = WX.variants[n][3]
                hand_click(receptionist, *app.point("consultation"))
                hand_click(receptionist, *app.point("options", wanted))
                wait_until(
                    lambda chosen=wanted: (
                        app.layout().get("consultation_shown") == chosen and app.layout().get("options") == {}
                    ),
                    timeout=10,
                    what=f"{wanted!r} chosen and the list closed",
                )
        finally:
            receptionist.close()
            app.close()


def test_every_benchmark_variant_names_a_patient_row_and_a_consultation_the_application_has():
    tree = ast.parse(appointments.SCRIPT.read_text("utf-8"))
    literals = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
        if node.targets[0].id in ("PATIENTS", "CONSULTATIONS")
    }
    patients = {(number, name, first) for number, name, first, _born, _sex in literals["PATIENTS"]}
    consultations = set(literals["CONSULTATIONS"])
    assert len(patients) == 12 and len(consultations) == 8
    for query, row, number, consultation, _date, _reason in WX.variants:
        assert (number, query, row) in patients and consultation in consultations
    near = [first for _n, name, first in patients if name == "MARCHAND"]
    assert sorted(near) == ["Léa", "Léo"]  # two alike, one letter apart, in the same search
    assert {kind for kind, _label, _value in appointments.EXPECTED_STEPS} >= {"select_option", "set_checked"}
    assert max(WX.parameters) < len(appointments.EXPECTED_STEPS)
    assert WX.values(WX.variants[0])["date_rdv"] == "06/12/2026"
