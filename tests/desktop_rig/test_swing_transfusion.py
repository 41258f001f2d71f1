"""The blood product request desk (the Java Swing application `rpa-mcp bench apps --app swing` measures on).

The first test runs it on a real desktop (Xvfb + openbox): the program starts from its single source file,
shows nothing to the accessibility tree (the platform sees it by vision alone), and the scripted clerk's
real XTEST input, accents included, saves exactly the record the benchmark expects. The second checks that,
once the benchmark has moved and resized the window, Java knows where it is on the screen (where its drop-down
lists open and its clicks land). The last checks, from the source alone, that every benchmark variant names a
patient and a product the application has.
"""

from __future__ import annotations

import re
from functools import partial

import pytest

from rpa_mcp.bench.app_specs import SWING
from rpa_mcp.desktop_rig import transfusion
from rpa_mcp.desktop_rig.admission import place
from rpa_mcp.desktop_rig.harness import VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.imaging import accessibility_bus_up
from rpa_mcp.desktop_rig.person import Person
from tests.agent_x11.conftest import require_desktop, require_packages
from tests.desktop_rig.placing import content_offset


def require_java() -> None:
    require_packages("the Swing application", transfusion.missing())


@pytest.mark.desktop
def test_the_scripted_clerk_sends_an_accented_request_exactly_as_typed_unseen_by_the_tree(tmp_path):
    require_desktop()
    require_java()
    variant = SWING.variants[2]  # LEMAÎTRE Hervé, "Surdosage en AVK, INR à 9", "Plasma frais congelé"
    query, first, number, indication, product, units, date = variant
    with VirtualDisplay(workdir=tmp_path / "desk") as desk:
        accessibility_bus_up(desk)  # the tree is live: with Java's bridge on, it would hold the window's widgets
        app = transfusion.start_transfusion(desk, tmp_path / "transfusion.jsonl")
        clerk = Person(desk)
        try:
            assert clerk.eyes.find("Rechercher") is None  # no bridge: nothing of it in the accessibility tree
            transfusion.request(clerk, app, transfusion.Request(query, first, indication, product, units, date))
            assert [(e.kind, e.detail.get("q") or e.detail.get("patient")) for e in app.since(0)] == [
                ("search", query),
                ("open", number),
                ("save", number),
            ]
            assert app.since(0)[-1].detail == {**SWING.wanted(variant), "prescripteur": ""}
            assert desk.windows().info(app.wid).title == f"Transfusion — Demande — {query} {first}"
        finally:
            clerk.close()
            app.close()


@pytest.mark.desktop
def test_java_knows_where_its_window_is_once_the_benchmark_moved_and_resized_it(tmp_path):
    require_desktop()
    require_java()
    with VirtualDisplay(workdir=tmp_path / "desk") as desk:
        app = transfusion.start_transfusion(desk, tmp_path / "transfusion.jsonl")
        windows = desk.windows()
        offset = partial(content_offset, app, windows)
        try:
            below_menu = wait_until(offset, timeout=10, what="the maximised window's content")
            for geometry in ("moved", "wide", "maximized", "resized"):
                place(app, geometry)
                wait_until(lambda: offset() == below_menu, timeout=10, what=f"Java at its {geometry} window's place")
        finally:
            app.close()


def test_every_benchmark_variant_names_a_patient_row_and_a_product_the_application_has():
    source = transfusion.SCRIPT.read_text("utf-8")
    patients = set(re.findall(r'\{"(\d{6})", "([^"]+)", "([^"]+)", "[\d/]+", "[ABO]+[+-]"\}', source))
    products = set(re.findall(r'^ {8}"([^"]+)",$', source.split("PRODUCTS = {")[1].split("};")[0], re.M))
    assert len(patients) == 11 and len(products) == 5
    for query, row, number, _indication, product, _units, _date in SWING.variants:
        assert (number, query, row) in patients and product in products
    assert {kind for kind, _label, _value in transfusion.EXPECTED_STEPS} >= {"select_option", "set_checked"}
    assert max(SWING.parameters) < len(transfusion.EXPECTED_STEPS)
    assert SWING.values(SWING.variants[0])["date_transfusion"] == "06/12/2026"
