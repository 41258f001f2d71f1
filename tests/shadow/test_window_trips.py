"""A trip to another window of the same application (a browser's other tab) is a detour only when the person
switches back to the window they left: by its tab, its taskbar button or Alt+Tab — never when the application
itself brought the window back (a dialog closed by its button, a page's own link)."""

from __future__ import annotations

from typing import Any

from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev

RECORD = "MédiDossier - DURAND Alice - Observations - Microsoft Edge"
MAIL = "Webmail - Boîte de réception - Microsoft Edge"
EDGE = {"window_title": RECORD, "app": "msedge.exe", "locale": "fr-FR"}
IN_MAIL = {"window_title": MAIL, "app": "msedge.exe"}
SAVE = {"name": "Enregistrer", "role": "Button", "automation_id": "save-note"}
TAB = {"name": "Imagerie", "role": "TabItem", "automation_id": "tab-2"}
MAIL_TAB = {"name": "Webmail - Boîte de réception", "role": "TabItem"}
RECORD_TAB = {"name": "MédiDossier - DURAND Alice - Observations", "role": "TabItem"}


def tab_trip(
    t: float, *, back: dict[str, Any] | None = None, on_the_way: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    return [
        ev("click", t, x=420, y=12, element=MAIL_TAB, **EDGE),
        ev("focus", t + 0.3, **IN_MAIL),
        ev("click", t + 3, x=300, y=400, element={"name": "Réunion de service", "role": "ListItem"}, **IN_MAIL),
        *(on_the_way or []),
        ev("click", t + 9, x=128, y=12, element=back or RECORD_TAB, **IN_MAIL),
        ev("focus", t + 9.3, **EDGE),
    ]


def _steps(shadow: ShadowService, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shadow.ingest(events)
    steps: list[dict[str, Any]] = shadow.understanding("s1")["steps"]
    return steps


def test_a_trip_to_another_tab_and_back_by_its_tab_is_one_step_suggested_for_removal(shadow: ShadowService) -> None:
    steps = _steps(shadow, [ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *tab_trip(12.0),
                            ev("click", 30.0, x=1390, y=755, element=SAVE, **EDGE)])  # fmt: skip
    assert [s["events"] for s in steps] == [[0], [1, 2, 3, 4, 5], [6]]
    detour = steps[1]
    assert detour["shape"] == "detour" and detour["target"]["window_title"] == RECORD
    assert [(s["action"], s["kind"]) for s in detour["suggestions"]] == [("undo", "detour")]


def test_a_dialog_of_the_application_closed_by_its_button_is_not_a_detour(shadow: ShadowService) -> None:
    dialog = {"window_title": "Confirmer la suppression - Microsoft Edge", "app": "msedge.exe"}
    steps = _steps(shadow, [
        ev("click", 1.0, x=900, y=205, element={"name": "Supprimer", "role": "Button"}, **EDGE),
        ev("focus", 1.3, **dialog),
        ev("click", 4.0, x=700, y=500, element={"name": "OK", "role": "Button"}, **dialog),
        ev("focus", 4.3, **EDGE),
        ev("click", 30.0, x=1390, y=755, element=SAVE, **EDGE),
    ])  # fmt: skip
    assert all(s["shape"] != "detour" and not s["suggestions"] for s in steps), steps
    assert "OK" in [s["target"].get("by_text") or (s["target"].get("element") or {}).get("name") for s in steps]


def test_back_by_a_link_of_the_page_is_not_a_detour(shadow: ShadowService) -> None:
    link = {"name": "Observations", "role": "Link"}  # names a part of the window's title, not the window
    steps = _steps(shadow, [ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *tab_trip(12.0, back=link)])
    assert all(s["shape"] != "detour" for s in steps)


def test_a_tab_trip_that_typed_something_is_not_a_detour(shadow: ShadowService) -> None:
    typed = [ev("type", 16.0, text="OK, merci", element={"name": "Réponse", "role": "Edit"}, **IN_MAIL)]
    steps = _steps(shadow, [ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *tab_trip(12.0, on_the_way=typed)])
    assert all(s["shape"] != "detour" for s in steps) and len(steps) > 2


def test_an_alt_tab_trip_from_the_other_tab_is_still_a_detour_of_its_own(shadow: ShadowService) -> None:
    outlook = {"window_title": "Calendrier - Outlook", "app": "OUTLOOK.EXE"}
    steps = _steps(shadow, [
        ev("click", 1.0, x=900, y=205, element=TAB, **EDGE),
        ev("click", 3.0, x=420, y=12, element=MAIL_TAB, **EDGE),
        ev("focus", 3.3, **IN_MAIL),
        ev("type", 4.0, text="DURAND", element={"name": "Rechercher", "role": "Edit"}, **IN_MAIL),
        ev("key", 6.0, keys="alt+tab", **IN_MAIL),
        ev("focus", 6.4, **outlook),
        ev("key", 9.0, keys="alt+tab", **outlook),
        ev("focus", 9.4, **IN_MAIL),
    ])  # fmt: skip
    assert [s["events"] for s in steps if s["shape"] == "detour"] == [[4, 5, 6, 7]]
