"""The bed management desk (the Java AWT application `rpa-mcp bench apps --app awt` measures on).

The first test runs it on a real desktop (Xvfb + openbox): the program starts from its single source file,
shows nothing to the accessibility tree (the platform sees it by vision alone), and the scripted bed
manager's real XTEST input, accents included, with its Alt+Tab detour and misclick, saves exactly the record
the benchmark expects, once. The second checks that, once the benchmark has moved and resized the window, AWT
knows where it is on the screen (where its drop-down list opens and its clicks land), and that the list opens
where the bed manager's eyes say. The last checks, from the source alone, that every benchmark variant names a
patient and a unit the application has.
"""

from __future__ import annotations

import re
from functools import partial

import pytest

from rpa_mcp.bench.app_specs import AWT
from rpa_mcp.desktop_rig import beds
from rpa_mcp.desktop_rig.admission import hand_click, place
from rpa_mcp.desktop_rig.harness import VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.imaging import accessibility_bus_up
from rpa_mcp.desktop_rig.person import Person
from tests.agent_x11.conftest import require_desktop, require_packages
from tests.desktop_rig.placing import content_offset


def require_java() -> None:
    require_packages("the AWT application", beds.missing())


@pytest.mark.desktop
def test_the_scripted_bed_manager_saves_an_accented_assignment_exactly_as_typed_unseen_by_the_tree(tmp_path):
    require_desktop()
    require_java()
    variant = AWT.variants[2]  # LEFÈVRE Grégoire, "Unité de soins continus", "Scope, oxygène 2 L/min"
    query, first, number, unit, bed, date, instructions = variant
    with VirtualDisplay(workdir=tmp_path / "desk") as desk:
        accessibility_bus_up(desk)  # the tree is live: a bridge, were there one, would hold the window's widgets
        app = beds.start_beds(desk, tmp_path / "beds.jsonl")
        manager = Person(desk)
        try:
            assert manager.eyes.find("Rechercher") is None  # nothing of it in the accessibility tree
            beds.assign(manager, app, beds.Assignment(query, first, unit, bed, date, True, instructions))
            assert [(e.kind, e.detail.get("q") or e.detail.get("patient")) for e in app.since(0)] == [
                ("search", query),
                ("open", number),
                ("save", number),
            ]
            assert app.since(0)[-1].detail == {**AWT.wanted(variant), "referent": ""}
            assert desk.windows().info(app.wid).title == f"Gestion des lits — {query} {first}"
        finally:
            manager.close()
            app.close()


@pytest.mark.desktop
def test_awt_knows_where_its_window_is_and_opens_its_list_there_once_moved_and_resized(tmp_path):
    require_desktop()
    require_java()
    with VirtualDisplay(workdir=tmp_path / "desk") as desk:
        app = beds.start_beds(desk, tmp_path / "beds.jsonl")
        windows = desk.windows()
        manager = Person(desk)
        offset = partial(content_offset, app, windows)
        try:
            below_menu = wait_until(offset, timeout=10, what="the maximised window's content")
            for n, geometry in enumerate(("moved", "wide", "resized")):
                place(app, geometry)
                wait_until(lambda: offset() == below_menu, timeout=10, what=f"Java at its {geometry} window's place")
                wanted = beds.Assignment().unit if n % 2 == 0 else "Soins de suite et réadaptation"
                hand_click(manager, *app.point("unit"))
                hand_click(manager, *app.point("options", wanted))
                wait_until(
                    lambda chosen=wanted: app.layout().get("unit_shown") == chosen,
                    timeout=10,
                    what=f"{wanted!r} chosen",
                )
                assert app.layout().get("options") == {}  # the list closed
        finally:
            manager.close()
            app.close()


def test_every_benchmark_variant_names_a_patient_line_and_a_unit_the_application_has():
    source = beds.SCRIPT.read_text("utf-8")
    patients = set(re.findall(r'\{"(\d{6})", "([^"]+)", "([^"]+)", "[\d/]+", "[FM]"\}', source))
    units = set(re.findall(r'^ {8}"([^"]+)",$', source.split("UNITS = {")[1].split("};")[0], re.M))
    assert len(patients) == 12 and len(units) == 6
    for query, row, number, unit, _bed, _date, _instructions in AWT.variants:
        assert (number, query, row) in patients and unit in units
    assert {kind for kind, _label, _value in beds.EXPECTED_STEPS} >= {"select_option", "set_checked"}
    assert max(AWT.parameters) < len(beds.EXPECTED_STEPS)
    assert AWT.values(AWT.variants[0])["date_entree"] == "06/12/2026"
