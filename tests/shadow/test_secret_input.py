"""A password typed while observed never reaches the disk nor the LLM; replays get it from params."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import pytest

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops import build_registry
from rpa_mcp.ops import shadow as ops
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller, Registry
from rpa_mcp.shadow.masking import MASK, MASK_KEY, is_secret_element, secret_placeholder, types_a_character
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.testing import FakeOcr
from tests.replay.kit import FakeAgent, FakeDialogs, FakeValidator
from tests.shadow.conftest import ev

SECRET = "S3cr3t!Pw"
CODE = "pin-4321"  # not digits alone: the stored times (the real clock's) may hold any four digits
USER = "dr.martin"
MACHINE = "PC-LOGIN"
OPERATOR = Caller("dom@hospital", frozenset({"operator"}))
APPROVER = Caller("chef@hospital", frozenset({"operator", "approver"}), via="web")  # in the console
AGENT = Caller("agent:PC-LOGIN", frozenset({"agent"}), via="rest", auth="api-token")
PASSWORD_FIELD = {"name": "Mot de passe", "role": "Edit", "automation_id": "txtPassword", "is_password": True}


def login_demo(session: str = "s1", *, per_key: bool = False) -> list[dict[str, Any]]:
    """Focus the login window, click 'Identifiant', type the user, click 'Mot de passe', type the secret, Enter."""
    at = {"session": session, "machine": MACHINE}
    window = {"window_title": "Connexion - MédiDossier", "app": "medidossier.exe"}
    typed = (
        [ev("key", 14.0 + i / 10, keys=c, **at, **window) for i, c in enumerate(SECRET)]
        if per_key
        else [ev("type", 14.0, text=SECRET, **at, **window)]  # no element: the focus says where it goes
    )
    return [
        ev("focus", 10.0, locale="fr-FR", **at, **window),
        ev("click", 11.0, x=400, y=300, element={"name": "Identifiant", "role": "Edit"}, **at, **window),
        ev("type", 12.0, text=USER, element={"name": "Identifiant", "role": "Edit"}, **at, **window),
        ev("click", 13.0, x=400, y=340, element=PASSWORD_FIELD, **at, **window),
        *typed,
        ev("key", 16.0, keys="enter", **at, **window),
        ev("focus", 16.5, window_title="MédiDossier - Accueil", app="medidossier.exe", **at),
    ]


def db_text(path: Path, *tables: str) -> str:
    """Every row of these tables (all tables when none is named) as one string."""
    conn = sqlite3.connect(path)
    try:
        names = tables or [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return "\n".join(repr(row) for name in names for row in conn.execute(f'SELECT * FROM "{name}"'))
    finally:
        conn.close()


# --- the rule ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "element",
    [
        {"is_password": True},
        {"role": "PasswordBox"},
        {"role": "edit (password)"},
        {"role": "Edit(Password)"},
        {"name": "Mot de passe :"},
        {"name": "MOT DE PASSE"},
        {"name": "Password"},
        {"automation_id": "txtMotDePasse"},
        {"automation_id": "pwdBox"},
        {"automation_id": "user_passwd"},
        {"name": "Code PIN"},
        {"name": "Code secret"},
        {"name": "Code porteur (carte CPS)"},
        {"name": "MDP"},
        {"name": "Passcode"},
    ],
)
def test_a_password_field_is_recognised_from_its_element(element: dict[str, Any]) -> None:
    assert is_secret_element(element)


@pytest.mark.parametrize(
    "element",
    [{"name": "Identifiant", "role": "Edit"}, {"name": "Spinner"}, {"automation_id": "shippingAddress"}, {}],
)
def test_an_ordinary_field_is_not_secret(element: dict[str, Any]) -> None:
    assert not is_secret_element(element)


def test_only_keys_that_type_a_character_are_masked() -> None:
    assert all(types_a_character(k) for k in ("a", "shift+a", "7", "space", "ctrl+alt+0", "numpad1"))
    assert not any(types_a_character(k) for k in ("enter", "tab", "backspace", "ctrl+v", "escape", "f5", "left"))


def test_the_placeholder_names_the_field_as_a_slug() -> None:
    assert secret_placeholder("Mot de passe") == "{{secret:mot_de_passe}}"
    assert secret_placeholder("Code PIN (carte CPS)") == "{{secret:code_pin_carte_cps}}"
    assert secret_placeholder(None) == "{{secret:password}}"


# --- ingestion and the understanding ------------------------------------------------------------
def test_the_typed_password_is_masked_before_it_is_stored(shadow: ShadowService, db_path: Path) -> None:
    shadow.ingest(login_demo())
    assert SECRET not in db_text(db_path)  # events, observer state, segments: nowhere on disk
    events = shadow.events("s1")
    masked = [e for e in events if e.get("masked")]
    assert len(masked) == 1 and masked[0]["text"] == MASK and masked[0]["masked_field"] == "Mot de passe"
    assert any(e.get("text") == USER for e in events)  # the user name is not a secret

    steps = shadow.understanding("s1")["steps"]
    assert [s["intent"] for s in steps] == [
        "Passer à la fenêtre 'Connexion - MédiDossier'",
        "Saisir 'dr.martin' dans 'Identifiant'",
        "Saisir le mot de passe dans 'Mot de passe'",
    ]
    password = steps[2]
    assert password["action_type"] == "type_text"
    assert password["params"] == {"text": "{{secret:mot_de_passe}}", "secret": True, "submit_key": "enter"}
    assert steps[1]["params"] == {"text": USER}
    assert SECRET not in json.dumps(shadow.understanding("s1"), ensure_ascii=False)


def test_without_a_locale_the_intent_follows_the_language_of_the_screen(shadow: ShadowService) -> None:
    events = login_demo()
    events[0].pop("locale")
    shadow.ingest(events)
    assert shadow.understanding("s1")["steps"][2]["intent"] == "Saisir le mot de passe dans 'Mot de passe'"


def test_keystrokes_typed_in_a_password_field_are_masked_and_make_one_step(
    shadow: ShadowService, db_path: Path
) -> None:
    shadow.ingest(login_demo(per_key=True))
    with closing(sqlite3.connect(db_path)) as conn:
        stored = [
            r[0] for r in conn.execute("SELECT json_extract(data, '$.keys') FROM trace_events WHERE type = 'key'")
        ]
    assert stored == [MASK_KEY] * len(SECRET) + ["enter"]
    keys = [e["keys"] for e in shadow.events("s1") if e["type"] == "key"]
    assert keys == [MASK_KEY] * len(SECRET) + ["enter"]
    steps = shadow.understanding("s1")["steps"]
    assert len(steps) == 3 and steps[2]["params"]["text"] == "{{secret:mot_de_passe}}"


def test_the_agent_can_flag_an_input_secret_itself(shadow: ShadowService, db_path: Path) -> None:
    shadow.ingest(
        [
            ev("click", 1.0, x=5, y=5, element={"name": "Code"}),
            ev("type", 2.0, text=CODE, secret=True, element={"name": "Code"}, note=f"was {CODE}"),
        ]
    )
    stored = shadow.events("s1")[1]
    assert stored["text"] == MASK and stored["masked"] is True and "note" not in stored
    assert CODE not in db_text(db_path)
    assert shadow.understanding("s1")["steps"][0]["params"]["text"] == "{{secret:code}}"


def test_leaving_the_password_field_ends_the_masking(shadow: ShadowService) -> None:
    events = login_demo()
    events.append(ev("type", 20.0, text="Dupont", session="s1", machine=MACHINE, window_title="MédiDossier - Accueil"))
    shadow.ingest(events)
    assert shadow.events("s1")[-1]["text"] == "Dupont"


def test_a_restart_in_the_middle_of_a_password_keeps_masking(make_service: Any, db_path: Path) -> None:
    events = login_demo()
    make_service().ingest(events[:4])  # the focus is now in the password field
    make_service().ingest(events[4:])  # a new service over the same database
    assert SECRET not in db_text(db_path)


# --- end to end: the LLM's tools, the competence file, the replay ------------------------------
@pytest.fixture
def services(settings: Any, clock: Any) -> Services:
    return build_services(
        settings,
        clock=clock,
        ocr=FakeOcr(lines=[]),
        replay_validator=FakeValidator(),  # the screens are not what these tests are about
        replay_dialogs=FakeDialogs(),
    )


def run(registry: Registry, services: Services, name: str, args: dict[str, Any], caller: Caller = OPERATOR) -> Any:
    surface = "rest" if caller is AGENT else "mcp"
    return anyio.run(lambda: dispatch(registry, services, name, args, caller, surface=surface))


def test_a_login_is_learnt_and_replayed_without_the_password_reaching_the_llm_or_the_disk(
    services: Services, settings: Any
) -> None:
    registry = build_registry()
    db = settings.data_dir / "rpa.sqlite3"
    run(registry, services, "ingest_events", {"events": login_demo()}, AGENT)
    seen: list[Any] = [
        run(registry, services, "get_understanding", {"session_id": "s1"}),
        anyio.run(ops.events_resource, services, "s1"),
        anyio.run(ops.understanding_resource, services, "s1"),
    ]
    built = run(registry, services, "shadow_build", {"session_id": "s1", "name": "Connexion MédiDossier"})
    step = built["workflow_ir"]["steps"][2]
    assert step["intent"] == "Saisir le mot de passe dans 'Mot de passe'" and step["action_type"] == "type_text"
    assert step["params"]["text"] == "{{secret:mot_de_passe}}"
    proposal = run(registry, services, "propose_persist_competence", {"session_id": "s1", "name": "Connexion"})
    saved = run(registry, services, "apply_persist_competence", {"token": proposal["token"]})
    yaml_text = (settings.data_dir / saved["path"]).read_text(encoding="utf-8")
    assert "{{secret:mot_de_passe}}" in yaml_text and "secret: true" in yaml_text
    seen += [built, proposal, saved, yaml_text]
    assert all(SECRET not in (s if isinstance(s, str) else json.dumps(s, ensure_ascii=False)) for s in seen)
    assert SECRET not in db_text(db)  # events, observer, audit, proposals: every table

    # a replay without the password is refused, naming the parameter to give
    with pytest.raises(InvalidInput) as err:
        run(registry, services, "propose_start_replay", {"competence": "Connexion"})
    assert "secret:mot_de_passe" in err.value.message
    assert err.value.details["missing_params"] == ["secret:mot_de_passe"]

    args = {"competence": "Connexion", "params": {"secret:mot_de_passe": SECRET}}
    proposal = run(registry, services, "propose_start_replay", args)
    assert SECRET not in json.dumps(proposal, ensure_ascii=False)
    services.confirmations.decide(proposal["approval_url"].rsplit("/", 1)[1], APPROVER, True)
    started = run(registry, services, "apply_start_replay", {"token": proposal["token"]})
    assert SECRET not in json.dumps(started, ensure_ascii=False)

    # only the agent gets the value, with the action that types it
    sent: list[Any] = []
    next_action = services.replay.next_action

    async def spy(*args: Any, **kwargs: Any) -> Any:
        action = await next_action(*args, **kwargs)
        sent.append(action)
        return action

    services.replay.next_action = spy
    agent = FakeAgent(services.replay, MACHINE, clock=services.clock)
    while anyio.run(agent.step) == "done":
        pass
    # the look at the screen after the last step shares its index: it types nothing
    typed = {a.step_index: a.params for a in sent if a is not None and a.action_type != "screenshot_evidence"}
    assert typed[3] == {"text": SECRET, "secret": True, "submit_key": "enter"}  # step 3: the password
    assert typed[2] == {"text": USER}
    status = run(registry, services, "get_replay_status", {"replay_id": started["replay_id"]})
    assert status["state"] == "completed" and SECRET not in json.dumps(status, ensure_ascii=False)
    assert SECRET not in db_text(db, "audit", "trace_events", "shadow_observers", "shadow_segments")
    # once the replay is over, the value is gone from the replay and proposal rows too
    assert SECRET not in db_text(db, "replay_runs", "replay_actions", "proposals")


def test_the_audit_view_of_an_ingestion_keeps_no_typed_text() -> None:
    event = ev("type", 1.0, text=SECRET, element=PASSWORD_FIELD)
    assert ops.audit_view(event) == {
        "events": [{k: event[k] for k in ("session_id", "machine_id", "ts", "type")}],
        "count": 1,
    }
    batch = ops.audit_view({"events": login_demo()})
    assert batch["count"] == 7 and SECRET not in json.dumps(batch) and USER not in json.dumps(batch)


def test_a_password_streamed_alone_does_not_reach_the_audit_table(services: Services, settings: Any) -> None:
    registry = build_registry()
    events = login_demo()
    run(registry, services, "ingest_events", {"events": events[:4]}, AGENT)
    run(registry, services, "ingest_events", events[4], AGENT)  # one event per POST, as agents stream
    assert SECRET not in db_text(settings.data_dir / "rpa.sqlite3", "trace_events")
    assert SECRET not in db_text(settings.data_dir / "rpa.sqlite3", "audit")
