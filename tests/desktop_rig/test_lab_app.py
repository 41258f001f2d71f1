"""The laboratory order desk (the web application `rpa-mcp bench apps --app web` measures on), in memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from rpa_mcp.bench.app_specs import WEB
from rpa_mcp.desktop_rig import lab_orders
from rpa_mcp.desktop_rig.lab_app import EXAMS, PATIENTS, TITLE, create_lab_app

ORDER = {"patient": "700101", "renseignements": "Cytolyse", "examen": "CRP", "date": "05/12/2026", "a_jeun": True}


@pytest.fixture
def effects(tmp_path: Path) -> Path:
    return tmp_path / "lab.jsonl"


@pytest.fixture
def client(effects: Path) -> TestClient:
    return TestClient(create_lab_app(effects))


def logged(effects: Path) -> list[tuple[str, dict[str, object]]]:
    return [(e["kind"], e["detail"]) for e in map(json.loads, effects.read_text("utf-8").splitlines())]


def test_the_page_draws_its_drop_down_and_check_box_without_native_controls(client: TestClient):
    page = client.get("/").text
    assert f"<title>{TITLE}</title>" in page and "Enregistrer la demande" in page
    assert "<select" not in page and 'type="checkbox"' not in page and "role=" not in page


def test_a_search_finds_every_name_containing_the_query_and_is_logged(client: TestClient, effects: Path):
    hits = client.post("/api/search", json={"q": "martin"}).json()
    assert [(p[1], p[2]) for p in hits] == [("MARTIN", "Hugo"), ("MARTINEZ", "Lina")]
    assert logged(effects) == [("search", {"q": "MARTIN", "hits": ["700115", "700116"]})]


def test_a_complete_order_is_saved_once_with_every_value(client: TestClient, effects: Path):
    client.post("/api/open", json={"patient": "700101"})
    answer = client.post("/api/save", json=ORDER).json()
    assert answer["ok"] is True and "DUPONT Jean" in answer["message"]
    assert logged(effects) == [("open", {"patient": "700101"}), ("save", ORDER)]


@pytest.mark.parametrize(
    ("change", "missing"),
    [({"examen": ""}, ["examen"]), ({"examen": "Glycémie"}, ["examen"]), ({"date": "5 déc."}, ["date"])],
)
def test_an_incomplete_order_is_refused_and_nothing_is_saved(client, effects, change, missing):
    answer = client.post("/api/save", json={**ORDER, **change}).json()
    assert answer["ok"] is False
    assert logged(effects) == [("error", {"missing": missing})]


def test_an_unknown_patient_is_not_opened(client: TestClient, effects: Path):
    assert client.post("/api/open", json={"patient": "999999"}).status_code == 404
    assert not effects.exists() or logged(effects) == []


def test_the_layout_the_page_reports_is_kept_beside_the_effects_for_the_scripted_clerk(client, effects):
    client.post("/api/layout", json={"q": [102, 63, 167, 21], "focus": "q"})
    assert json.loads(effects.with_suffix(".layout.json").read_text("utf-8"))["focus"] == "q"


def test_every_benchmark_variant_names_a_patient_row_and_an_exam_the_application_has():
    rows = {(p[1], p[2], p[0]) for p in PATIENTS}
    for query, row, ipp, _clinical, exam, _date in WEB.variants:
        assert (query, row, ipp) in rows and exam in EXAMS
    assert {kind for kind, _label, _value in lab_orders.EXPECTED_STEPS} >= {"select_option", "set_checked"}
    assert max(WEB.parameters) < len(lab_orders.EXPECTED_STEPS)
