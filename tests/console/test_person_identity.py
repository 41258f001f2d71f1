"""A person's approval is a person's act: API tokens never sign in to the console, console credentials
never reach the APIs, and an approval needs a console identity that is not the proposer's (linked
identities count as one person)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx2
import pytest

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.errors import RpaError
from rpa_mcp.identity import Caller, Identity
from rpa_mcp.replay import model as m
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeOcr
from tests.conftest import SECRET, console_credential_for, token_for
from tests.console.conftest import BASE
from tests.console.helpers import call, jti_of
from tests.console.test_replays import agent_for, start
from tests.integration.test_replay_http import BACK_TO_DOSSIER, IMAGERIE, IMAGERIE_BEHIND_PACS, MACHINE
from tests.integration.test_replay_http import workflow as replay_workflow

pytestmark = pytest.mark.anyio
LLM_TOKEN_SUBJECT = "agent:claude"


def _client(app: Any, token: str | None = None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url=BASE, headers=headers, timeout=60)


async def _sign_in(web: httpx2.AsyncClient, credential: str) -> httpx2.Response:
    page = await web.get("/console/login")
    nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
    assert nonce is not None, page.text
    return await web.post(
        "/console/login", data={"token": credential, "login_csrf": nonce[1]}, headers={"origin": BASE}
    )


async def test_the_llm_clients_token_cannot_resume_a_paused_replay_in_person(services: Services) -> None:
    """The attack: propose over the API, wait for a person... then sign in to the console with the same token."""
    app = create_app(services=services)
    replay_id = await start(services, IMAGERIE)
    llm_token = token_for(services, LLM_TOKEN_SUBJECT, "operator")
    async with app.router.lifespan_context(app), _client(app, llm_token) as api, _client(app) as web:
        assert (await api.post("/api/v1/tools/pause_replay", json={"replay_id": replay_id})).status_code == 200
        proposal = (await api.post("/api/v1/tools/propose_resume_replay", json={"replay_id": replay_id})).json()
        assert proposal["approval_status"] == "pending"
        applied = await api.post("/api/v1/tools/apply_resume_replay", json={"token": proposal["token"]})
        assert applied.status_code == 409 and applied.json()["code"] == "approval-pending"

        signed = await _sign_in(web, llm_token)
        assert signed.status_code == 401 and "rpa_console" not in signed.cookies
        assert (await web.get(f"/console/replays/{replay_id}")).status_code == 401  # no session
        assert services.replay.store.get_replay(replay_id)["state"] == m.PAUSED


@pytest.mark.parametrize("decision", ["retry", "skip", "abort"])
async def test_the_llm_clients_token_cannot_answer_a_pause_in_person(services: Services, decision: str) -> None:
    app = create_app(services=services)
    replay_id = await start(services, IMAGERIE_BEHIND_PACS, BACK_TO_DOSSIER)
    agent, agent_http = agent_for(app, start_screen="pacs")
    llm_token = token_for(services, LLM_TOKEN_SUBJECT, "operator")
    async with app.router.lifespan_context(app), agent_http, _client(app, llm_token) as api, _client(app) as web:
        assert await agent.poll_once() is not None
        assert services.replay.store.get_replay(replay_id)["state"] == m.PAUSED
        args = {"replay_id": replay_id, "decision": decision}
        proposal = (await api.post("/api/v1/tools/propose_answer_pause", json=args)).json()
        assert proposal["approval_status"] == "pending", proposal

        signed = await _sign_in(web, llm_token)
        assert signed.status_code == 401 and "rpa_console" not in signed.cookies
        assert services.replay.store.get_replay(replay_id)["state"] == m.PAUSED


# --- the two kinds of credential never cross ----------------------------------------------------------
async def test_an_api_token_is_refused_at_the_console_sign_in_with_a_message_that_says_why(
    services: Services,
) -> None:
    app = create_app(services=services)
    async with app.router.lifespan_context(app), _client(app) as web:
        for token in (token_for(services, "olivia", "operator"), "agent-static-token-0123456789"):
            refused = await _sign_in(web, token)
            assert refused.status_code == 401 and "rpa_console" not in refused.cookies
            assert "rpa-mcp token --console" in refused.text  # what to ask for instead
        assert services.db.query("SELECT * FROM web_sessions") == []


async def test_a_console_credential_signs_in_as_an_identity_of_this_server(services: Services) -> None:
    app = create_app(services=services)
    async with app.router.lifespan_context(app), _client(app) as web:
        signed = await _sign_in(web, console_credential_for(services, "olivia", "operator"))
        assert signed.status_code == 303
        assert (await web.get("/console/replays")).status_code == 200
    session = services.db.query_one("SELECT subject, issuer, auth FROM web_sessions")
    assert dict(session) == {"subject": "olivia", "issuer": "rpa-mcp", "auth": "console"}


async def test_a_console_credential_is_refused_on_mcp_and_the_rest_api_with_its_own_code(
    services: Services,
) -> None:
    app = create_app(services=services)
    credential = console_credential_for(services, "olivia", "operator")
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    async with app.router.lifespan_context(app), _client(app, credential) as api:
        rest = await api.post("/api/v1/tools/list_machines", json={})
        mcp = await api.post("/mcp", json=initialize, headers={"accept": "application/json, text/event-stream"})
    for response in (rest, mcp):
        assert response.status_code == 401
        assert (response.json()["code"], response.json()["reason"]) == ("unauthenticated", "console-credential")
        assert 'error="invalid_token"' in response.headers["www-authenticate"]
    assert services.access_tokens.verify(credential) is None


def test_a_console_credential_carries_the_roles_of_people_only(services: Services) -> None:
    with pytest.raises(ValueError, match="roles of people"):
        services.console_credentials.mint("agent-m1", ["agent"])
    access = token_for(services, "olivia", "operator")
    assert services.console_credentials.verify(access) is None


def test_the_cli_mints_a_console_credential_the_console_accepts_and_the_apis_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rpa_mcp.cli import main

    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    assert main(["token", "--console", "--sub", "alice", "--role", "approver"]) == 0
    credential = capsys.readouterr().out.strip()
    services = build_services(Settings(data_dir=tmp_path, jwt_secret=SECRET), ocr=FakeOcr())
    person = services.console_credentials.verify(credential)
    assert person is not None and person.identity == Identity("rpa-mcp", "alice") and person.via == "web"
    assert services.access_tokens.verify(credential) is None
    assert main(["token", "--console", "--sub", "bot", "--role", "agent"]) == 2


# --- who approves -----------------------------------------------------------------------------------
LLM_ALICE = Caller("alice", frozenset({"operator"}), via="rest", issuer="rpa-mcp")
IDP = "https://idp.hopital.example/realms/soins"


def _linked_services(tmp_path: Path, links: str) -> Services:
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET, identity_links=links)
    return build_services(settings, ocr=FakeOcr())


async def _proposal_by(services: Services, caller: Caller) -> str:
    services.competences.save("X", replay_workflow("X", IMAGERIE), machine_id=MACHINE)
    proposal = await call(services, "propose_delete_competence", {"name": "X"}, caller)
    assert proposal["approval_status"] == "pending"
    return jti_of(proposal)


async def test_the_proposer_cannot_approve_under_an_identity_linked_to_theirs(tmp_path: Path) -> None:
    services = _linked_services(tmp_path, f"alice@rpa-mcp = u-1001@{IDP}")
    jti = await _proposal_by(services, LLM_ALICE)
    alice_at_the_idp = Caller("u-1001", frozenset({"approver"}), via="web", auth="oidc", issuer=IDP)
    with pytest.raises(RpaError) as refused:
        services.confirmations.decide(jti, alice_at_the_idp, True)
    assert refused.value.code == "forbidden"
    assert services.confirmations.get_approval(jti).status == "pending"


async def test_another_person_approves_and_the_record_names_them_by_issuer_and_subject(tmp_path: Path) -> None:
    services = _linked_services(tmp_path, f"alice@rpa-mcp = u-1001@{IDP}")
    jti = await _proposal_by(services, LLM_ALICE)
    bob = Caller("u-1002", frozenset({"approver"}), via="web", auth="oidc", issuer=IDP)
    view = services.confirmations.decide(jti, bob, True)
    assert view.status == "approved" and view.approver == f"u-1002@{IDP}" and str(view.proposer) == "alice@rpa-mcp"
    services.audit.flush()
    rows = [r for r in services.audit.rows() if r["operation"] == "approve:delete_competence"]
    assert [r["actor"] for r in rows] == [f"u-1002@{IDP}"] and "alice@rpa-mcp" in rows[0]["args_summary"]


async def test_the_same_subject_from_another_issuer_is_another_person_unless_linked(tmp_path: Path) -> None:
    services = _linked_services(tmp_path, "")
    jti = await _proposal_by(services, LLM_ALICE)
    namesake = Caller("alice", frozenset({"approver"}), via="web", auth="oidc", issuer=IDP)
    assert services.confirmations.decide(jti, namesake, True).status == "approved"


async def test_the_same_identity_signed_in_to_the_console_cannot_approve_its_apis_request(
    services: Services,
) -> None:
    jti = await _proposal_by(services, LLM_ALICE)
    alice_in_the_console = Caller("alice", frozenset({"approver"}), via="web", auth="console", issuer="rpa-mcp")
    with pytest.raises(RpaError) as refused:
        services.confirmations.decide(jti, alice_in_the_console, True)
    assert refused.value.code == "forbidden"


async def test_an_approval_from_outside_the_console_is_refused(services: Services) -> None:
    jti = await _proposal_by(services, LLM_ALICE)
    over_the_api = Caller("carol", frozenset({"approver"}), via="rest", issuer="rpa-mcp")
    with pytest.raises(RpaError) as refused:
        services.confirmations.decide(jti, over_the_api, True)
    assert refused.value.code == "forbidden"


@pytest.mark.parametrize("decision", ["retry", "skip", "abort", "click:Fermer"])
def test_an_answer_proposed_over_an_api_is_never_approved_in_person(services: Services, decision: str) -> None:
    """Even by a console session of the very identity that proposed it: that needs another person."""
    proposal = services.confirmations.propose(
        operation="answer_pause",
        risk="act",
        proposer="alice",
        issuer="rpa-mcp",
        via="rest",
        args={"replay_id": "r-1", "decision": decision},
        summary="s",
        details={},
        diff=None,
        binding={},
    )
    alice_in_the_console = Caller("alice", frozenset({"operator"}), via="web", auth="console", issuer="rpa-mcp")
    for person in (alice_in_the_console, LLM_ALICE):
        with pytest.raises(RpaError) as refused:
            services.confirmations.approve_in_person(proposal.jti, person)
        assert refused.value.code == "forbidden"
    assert services.confirmations.get_approval(proposal.jti).status == "pending"


def test_identity_links_are_checked_when_the_server_starts() -> None:
    for wrong in ("alice", "alice@rpa-mcp", "alice@rpa-mcp = bob@rpa-mcp; alice@rpa-mcp = carol@rpa-mcp"):
        with pytest.raises(ValueError, match="RPA_IDENTITY_LINKS"):
            Settings(identity_links=wrong)
    links = Settings(identity_links=f"chef@hopital.fr@rpa-mcp = u-1@{IDP}/").linked_identities
    assert links.same_person(Identity("rpa-mcp", "chef@hopital.fr"), Identity(IDP, "u-1"))
    assert not links.same_person(Identity("rpa-mcp", "chef@hopital.fr"), Identity(IDP, "u-2"))


def test_console_sessions_opened_before_the_upgrade_end(tmp_path: Path) -> None:
    """They may have been opened with an access token: the schema step that adds the issuer ends them."""
    from rpa_mcp.store.db import Database, Migrations
    from rpa_mcp.store.web_sessions import MIGRATIONS, WebSessionStore
    from rpa_mcp.testing import FakeClock

    db = Database(str(tmp_path / "old.sqlite3"))
    db.migrate("web", Migrations(sqlite=MIGRATIONS.sqlite[:1], postgres=MIGRATIONS.postgres[:1]))
    db.execute(
        "INSERT INTO web_sessions VALUES (?,?,?,?,?,?,?,?)",
        ("h" * 64, "agent:claude", '["operator"]', "jwt", "00" * 32, 0.0, 0.0, 1e12),
    )
    WebSessionStore(db, FakeClock())
    assert db.query("SELECT * FROM web_sessions") == []


def test_a_revoked_persons_console_credential_no_longer_signs_in(services: Services) -> None:
    from rpa_mcp.store.revocations import TokenRevocations

    credential = console_credential_for(services, "olivia", "operator")
    assert services.console_credentials.verify(credential) is not None
    TokenRevocations(services.db, services.clock).revoke("olivia")
    services.clock.advance(10)  # type: ignore[attr-defined]  # FakeClock; past the revocations' cache
    assert services.console_credentials.verify(credential) is None
    assert services.console_credentials.verify(console_credential_for(services, "olivia", "operator")) is not None
