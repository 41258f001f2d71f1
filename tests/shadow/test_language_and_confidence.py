"""Intents speak the session's language and name the effect and the value; confidence is calibrated, low first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rpa_mcp.bench.segmentation import Tally, match, rows_of
from rpa_mcp.shadow.calibration import ASK_BELOW, Calibration, fit
from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev

FR_SCREEN = {"window_title": "MédiDossier - Recherche patient - Microsoft Edge", "app": "msedge.exe"}
EN_SCREEN = {"window_title": "CareRecord - Patient search - Microsoft Edge", "app": "msedge.exe"}


def search(screen: dict[str, str], field: str, value: str = "DURAND", **extra: Any) -> list[dict[str, Any]]:
    element = {"name": field, "role": "Edit"}
    return [
        ev("focus", 0.5, **screen, **extra),
        ev("click", 1.0, x=900, y=225, element=element, **screen),
        ev("type", 2.0, text=value, element=element, **screen),
        ev("key", 3.0, keys="Enter", element=element, **screen),
    ]


def test_without_a_locale_the_screens_words_choose_french(shadow: ShadowService) -> None:
    shadow.ingest([*search(FR_SCREEN, "Rechercher un patient"), ev("focus", 4.0, window_title="Dossier de DURAND")])
    understanding = shadow.understanding("s1")
    assert understanding["locale"] == "fr"
    assert understanding["steps"][1]["intent"] == "Rechercher le patient 'DURAND'"


def test_without_a_locale_an_english_screen_gives_english_intents(shadow: ShadowService) -> None:
    shadow.ingest(
        [*search(EN_SCREEN, "Search patient", "SMITH"), ev("focus", 4.0, window_title="Record of the patient")]
    )
    understanding = shadow.understanding("s1")
    assert understanding["locale"] == "en"
    assert understanding["steps"][1]["intent"] == "Search for the patient 'SMITH'"


def test_the_language_chosen_at_start_wins_over_the_agents_locale(shadow: ShadowService) -> None:
    shadow.ingest(search(FR_SCREEN, "Rechercher un patient", locale="fr-FR")[:1])
    assert shadow.start("s1", language="en")["status"] == "shadow_started"
    shadow.ingest(search(FR_SCREEN, "Rechercher un patient")[1:])
    understanding = shadow.understanding("s1")
    assert understanding["locale"] == "en"
    assert understanding["steps"][0]["intent"] == "Search for the patient 'DURAND'"


def test_an_unknown_language_at_start_is_refused_naming_the_field(shadow: ShadowService) -> None:
    from rpa_mcp.errors import InvalidInput

    shadow.ingest([ev("focus", 0.5, **FR_SCREEN)])
    with pytest.raises(InvalidInput) as err:
        shadow.start("s1", language="de")
    assert err.value.details["field"] == "language"


@pytest.mark.parametrize(
    ("locale", "events", "intent"),
    [
        ("fr", [("click", {"name": "Enregistrer", "role": "Button"})], "Enregistrer"),
        ("en", [("click", {"name": "Save", "role": "Button"})], "Save"),
        ("fr", [("click", {"name": "Aide", "role": "Button"})], "Cliquer sur 'Aide'"),
        ("fr", [("click", {"name": "DURAND Alice", "role": "DataItem"})], "Sélectionner 'DURAND Alice'"),
        ("en", [("click", {"name": "Open record", "role": "MenuItem"})], "Choose 'Open record' in the menu"),
        ("fr", [("type", {"name": "Observation", "role": "Edit"}, "Vu ce jour.\nRAS.")], "Saisir l'observation"),
        ("en", [("type", {"name": "Progress note", "role": "Edit"}, "Seen.\nStable.")], "Enter the progress note"),
        ("fr", [("type", {"name": "Nom", "role": "Edit"}, "DURAND")], "Saisir 'DURAND' dans 'Nom'"),
        (
            "fr",
            [("type", {"name": "Éditeur de texte", "role": "Edit"}, "a\nb")],
            "Saisir du texte dans 'Éditeur de texte'",
        ),
    ],
)
def test_intents_name_the_effect_and_the_value(
    shadow: ShadowService, locale: str, events: list[tuple[Any, ...]], intent: str
) -> None:
    stream = []
    for i, (kind, element, *text) in enumerate(events):
        fields = {"x": 10, "y": 10} if kind == "click" else {"text": text[0]}
        stream.append(ev(kind, 1.0 + i, element=element, locale=locale, **FR_SCREEN, **fields))
    shadow.ingest(stream)
    assert shadow.understanding("s1")["steps"][0]["intent"] == intent


def test_the_calibration_shrinks_toward_the_steps_prior_and_the_most_specific_kind_wins(tmp_path: Path) -> None:
    samples = [("click_anchor", "uia", "plain", 0.9, True)] * 6 + [("click_anchor", "raw", "plain", 0.25, False)] * 2
    cells = fit(samples, prior_weight=4)
    assert (cells["click_anchor|uia|plain"].n, cells["click_anchor|uia|plain"].right) == (6, 6)
    assert cells["click_anchor|uia|plain"].confidence == round((6 + 4 * 0.9) / 10, 3)
    table = Calibration({k: (c.n, c.right) for k, c in cells.items()}, prior_weight=4)
    assert table.confidence("click_anchor", "uia", "plain", 0.9) == pytest.approx((6 + 3.6) / 10)
    assert table.confidence("click_anchor", "raw", "collapsed", 0.25) == pytest.approx((0 + 1.0) / 6)
    assert table.confidence("scroll", "uia", "plain", 0.42) == 0.42  # a kind never seen keeps its prior
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\ncells: {x: {confidence: 0.5, n: 1, right: 2}}\n", encoding="utf-8")
    with pytest.raises(ValueError):
        Calibration.load(bad)


def test_the_repositorys_confidence_table_was_fitted_on_the_tuning_half_only() -> None:
    import yaml

    from rpa_mcp.bench.segmentation import calibration_path, half_of

    doc = yaml.safe_load(calibration_path().read_text(encoding="utf-8"))
    assert doc["tuning_demos"] and all(half_of(name) == "tuning" for name in doc["tuning_demos"])
    Calibration.load(calibration_path())


def test_the_steps_to_ask_about_first_are_the_least_sure(make_service) -> None:
    table = Calibration({"click_anchor|raw": (4, 0), "click_anchor|window_title": (8, 4), "click_anchor|uia": (10, 10)})
    shadow = make_service(calibration=table)
    shadow.ingest(
        [
            ev("click", 1.0, x=10, y=10, window_title="App", element={"name": "OK", "role": "Button"}),
            ev("click", 2.0, x=300, y=10, window_title="App"),
            ev("click", 3.0, x=600, y=10),
        ]
    )
    understanding = shadow.understanding("s1")
    assert [s["confidence"] for s in understanding["steps"]] == [0.97, 0.48, 0.48]
    assert understanding["review"]["ask_first"] == [2, 3] and understanding["review"]["ask_below"] == ASK_BELOW


def test_a_proposed_step_matches_a_labelled_one_by_action_target_and_overlapping_events() -> None:
    proposed = [
        {"action_type": "type_text", "target": {"by_text": "Rechercher un patient"}, "events": [1, 2, 3]},
        {"action_type": "double_click_anchor", "target": {"by_text": "DURAND Alice"}, "events": [4, 5]},
        {
            "action_type": "focus_window",
            "target": {},
            "events": [6, 7],
            "suggestions": [{"action": "undo", "kind": "detour"}],
        },
    ]
    labelled = [
        {"action_type": "type_text", "target": "Rechercher un patient", "events": [2, 3]},
        {"action_type": "click_anchor", "target": "DURAND Alice", "events": [4]},  # not the same action
        {"detour": True, "events": [7]},
    ]
    assert match(proposed, labelled) == {0: 0, 2: 2}
    rows = {r["metric"]: r for r in rows_of({"tuning": Tally(demos=1, proposed=3, labelled=3, matched=2)})}
    assert rows["step precision"]["tuning"] == "0.67 (2/3)" and rows["step precision"]["evaluation"] == "–"
    assert rows["step recall"]["target"] == "≥ 0.90"
