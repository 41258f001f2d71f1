"""The demo hospital application, in memory: pages, notes, and the effects log it keeps."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from starlette.testclient import TestClient

from rpa_mcp.demo_app import PATIENTS, EffectsLog, create_demo_app, search_patients
from rpa_mcp.demo_app import app as demo_app_module


@pytest.fixture
def log() -> EffectsLog:
    return EffectsLog()


@pytest.fixture
def client(log: EffectsLog) -> TestClient:
    return TestClient(create_demo_app(log))


def test_patients_are_many_and_distinct():
    assert len(PATIENTS) >= 50 and len({p.name for p in PATIENTS}) == len(PATIENTS)


def test_a_full_name_finds_exactly_one_patient_accents_and_case_ignored():
    assert [p.name for p in search_patients("durand alice")] == ["DURAND Alice"]
    assert [p.name for p in search_patients("MOREAU Lea")] == ["MOREAU Léa"]
    assert search_patients("   ") == []


def test_search_page_is_french_by_default_and_english_on_request(client: TestClient, log: EffectsLog):
    fr = client.get("/search", params={"q": "DURAND Alice"})
    assert "<title>Easily — Recherche patient</title>" in fr.text and "Ouvrir le dossier" in fr.text
    en = client.get("/search", params={"q": "DURAND Alice", "lang": "en"})
    assert "Patient search" in en.text and "Open record" in en.text and "/patient/p001/synthese?lang=en" in en.text
    assert [(e.kind, e.detail["q"]) for e in log.since()] == [("search", "DURAND Alice")] * 2


def test_the_record_has_the_six_tabs_and_names_the_active_one_in_its_title(client: TestClient):
    page = client.get("/patient/p001/imagerie")
    assert "<title>Easily — DURAND Alice — Imagerie</title>" in page.text
    for tab in ("Synthèse", "Observations", "Prescriptions", "Biologie", "Imagerie", "Documents"):
        assert f">{tab}</button>" in page.text
    assert client.get("/patient/p999/synthese").status_code == 404
    assert client.get("/patient/p001/nope").status_code == 404
    assert "default-src 'self'" in page.headers["content-security-policy"]


def test_a_save_is_logged_once_and_shown_on_the_record(client: TestClient, log: EffectsLog):
    saved = client.post("/api/notes", json={"patient": "p001", "text": "Patient calme."})
    assert saved.status_code == 200
    assert [(e.kind, e.detail["text"]) for e in log.since(kind="save")] == [("save", "Patient calme.")]
    assert "Patient calme." in client.get("/patient/p001/observations").text
    deleted = client.post("/api/notes/delete", json={"patient": "p001", "id": saved.json()["id"]})
    assert deleted.status_code == 200 and len(log.since(kind="delete")) == 1
    assert client.post("/api/notes/delete", json={"patient": "p001", "id": saved.json()["id"]}).status_code == 404


@pytest.mark.parametrize(
    "body", [{"patient": "p999", "text": "x"}, {"patient": "p001"}, {"patient": "p001", "text": "x" * 5001}]
)
def test_a_bad_save_is_refused_and_changes_nothing(client: TestClient, log: EffectsLog, body: dict):
    assert client.post("/api/notes", json=body).status_code == 422
    assert log.since() == []


def test_page_events_are_logged_and_read_back_since_a_mark(client: TestClient, log: EffectsLog):
    assert (
        client.post("/effects", json={"kind": "click", "label": "Imagerie", "nested": {"dropped": 1}}).status_code
        == 204
    )
    mark = log.mark
    client.post("/effects", json={"kind": "dialog", "dialog": "delete-confirm", "answer": "no"})
    assert client.post("/effects", json={"kind": "save"}).status_code == 422  # saves come from the server only
    assert client.post("/effects", content=b"not json").status_code == 422
    read = client.get("/effects", params={"since": mark}).json()
    assert [(e["kind"], e["answer"]) for e in read] == [("dialog", "no")]
    assert log.since()[0].detail == {"label": "Imagerie"}


def test_waiting_on_the_log_returns_as_soon_as_the_condition_holds(log: EffectsLog):
    log.add("save", text="a")
    assert len(log.wait_for(lambda es: len(es) == 1, timeout=1)) == 1
    with pytest.raises(TimeoutError):
        log.wait_for(lambda es: len(es) == 2, timeout=0.05)


def test_sign_in_logs_who_but_never_the_password(client: TestClient, log: EffectsLog):
    assert 'type="password"' in client.get("/login").text
    answer = client.post("/login", data={"user": "infirmiere1", "password": "s3cret!"}, follow_redirects=False)
    assert answer.status_code == 303
    (effect,) = log.since(kind="login")
    assert effect.detail == {"user": "infirmiere1", "password_length": 7}


def test_a_save_the_application_refuses_keeps_nothing_and_is_logged_as_refused(client: TestClient, log: EffectsLog):
    assert client.post("/control", json={"save": "error"}).json()["save"] == "error"
    refused = client.post("/api/notes", json={"patient": "p001", "text": "Note"})
    assert refused.status_code == 422 and "obligatoires" in refused.json()["error"]
    assert [e.kind for e in log.since()] == ["refused"]
    assert "Aucune observation" in client.get("/patient/p001/observations").text
    client.post("/control", json={})  # back to a new day
    assert client.post("/api/notes", json={"patient": "p001", "text": "Note"}).status_code == 200
    assert [e.kind for e in log.since()][-2:] == ["open_record", "save"]


def test_a_save_the_application_asks_about_first_is_kept_only_once_confirmed(client: TestClient, log: EffectsLog):
    client.post("/control", json={"save": "confirm"})
    asked = client.post("/api/notes", json={"patient": "p001", "text": "Note"})
    assert asked.status_code == 409 and "Confirmer" in asked.json()["confirm"] and log.since() == []
    kept = client.post("/api/notes", json={"patient": "p001", "text": "Note", "confirmed": True})
    assert kept.status_code == 200 and [e.kind for e in log.since()] == ["save"]


def test_a_renamed_label_replaces_the_applications_own(client: TestClient):
    client.post("/control", json={"renamed": {"save": "Sauvegarder"}})
    page = client.get("/patient/p001/observations").text
    assert ">Sauvegarder</button>" in page and ">Enregistrer</button>" not in page


def test_the_results_can_be_reversed(client: TestClient):
    names = [p.name for p in search_patients("DURAND")]
    client.post("/control", json={"results": "reversed"})
    page = client.get("/search", params={"q": "DURAND"}).text
    assert [page.index(n) for n in reversed(names)] == sorted(page.index(n) for n in names)


def test_a_patients_row_can_be_drawn_unreadable_and_the_others_stay_as_they_are(client: TestClient):
    first, second = search_patients("DURAND")[:2]
    client.post("/control", json={"unreadable": [second.id]})
    page = client.get("/search", params={"q": "DURAND"}).text
    row = page[page.rindex("<tr", 0, page.index(second.name)) : page.index(second.name)]
    assert 'class="unreadable"' in row and f"/patient/{second.id}/synthese" in page
    before = page[page.rindex("<tr", 0, page.index(first.name)) : page.index(first.name)]
    assert "unreadable" not in before
    assert "tr.unreadable" in client.get("/static/app.css").text


@pytest.mark.parametrize(
    "body",
    [
        {"save": "maybe"},
        {"results": "random"},
        {"renamed": {"nope": "x"}},
        {"renamed": {"save": ""}},
        {"x": 1},
        {"unreadable": "p001"},
        {"unreadable": ["p999"]},
        {"slow": -1},
        {"slow": 11},
        {"slow": "4"},
        {"slow": True},
    ],
)
def test_an_unknown_variation_is_refused_and_changes_nothing(client: TestClient, body: dict):
    assert client.post("/control", json=body).status_code == 422
    assert client.get("/control").json() == {
        "save": "saved",
        "renamed": {},
        "results": "name",
        "unreadable": [],
        "slow": 0.0,
    }


def test_a_slow_server_answers_record_pages_and_saves_late_and_nothing_else(
    client: TestClient, log: EffectsLog, monkeypatch: pytest.MonkeyPatch
):
    waited: list[float] = []

    async def sleep(seconds: float) -> None:  # the time is not waited: what would be is recorded
        waited.append(seconds)

    monkeypatch.setattr(demo_app_module, "anyio", SimpleNamespace(sleep=sleep))
    assert client.post("/control", json={"slow": 4}).json()["slow"] == 4.0
    client.get("/search", params={"q": "DURAND"})
    assert waited == []  # the search answers at once
    client.get("/patient/p001/observations")
    assert client.post("/api/notes", json={"patient": "p001", "text": "Note"}).status_code == 200
    assert waited == [4.0, 4.0] and [e.kind for e in log.since()] == ["search", "open_record", "save"]
    client.post("/control", json={})
    client.get("/patient/p001/synthese")
    assert waited == [4.0, 4.0]  # a new day: on time again
