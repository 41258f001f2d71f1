"""The approval page, in memory: sign-in, list, preview, approve/reject, and every refusal."""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.entrypoints.web import web_routes
from rpa_mcp.ops.registry import Caller
from rpa_mcp.settings import Settings
from rpa_mcp.store.web_sessions import WebSessionStore
from rpa_mcp.testing import FakeClock

ORIGIN = "http://testserver"
CALLERS = {
    "tok-carol": Caller("carol", frozenset({"approver"})),
    "tok-olivia": Caller("olivia", frozenset({"operator"})),
    "tok-claude": Caller("agent:claude", frozenset({"agent", "operator"})),
    "tok-victor": Caller("victor", frozenset({"viewer"})),
    "tok-bot": Caller("agent:api-token", frozenset({"agent"}), auth="api-token"),
}


@pytest.fixture
def services(tmp_path: Path) -> Services:
    settings = Settings(data_dir=tmp_path / "data", jwt_secret="k" * 64)
    return build_services(settings, clock=FakeClock(start=1_800_000_000.0))


def make_client(services: Services, base_url: str = ORIGIN) -> TestClient:
    app = Starlette(routes=web_routes(services, CALLERS.get))
    return TestClient(app, base_url=base_url)


@pytest.fixture
def client(services: Services) -> TestClient:
    return make_client(services)


def propose(
    services: Services, proposer: str = "agent:claude", summary: str = "Move competence 'A' to the trash"
) -> str:
    proposal = services.confirmations.propose(
        operation="delete_competence",
        risk="dangerous",
        proposer=proposer,
        args={"name": "A"},
        summary=summary,
        details={"files": ["competences/candidate/a.yaml"], "steps": 4},
        diff="-  intent: Ouvrir\n+  intent: Fermer",
        binding={"x": 1},
    )
    return str(proposal.jti)


def login(client: TestClient, token: str, *, origin: str | None = ORIGIN, next_: str = "/approvals") -> Any:
    page = client.get("/approvals/login")
    nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
    assert nonce is not None
    headers = {"origin": origin} if origin else {}
    return client.post(
        "/approvals/login",
        data={"token": token, "login_csrf": nonce[1], "next": next_},
        headers=headers,
        follow_redirects=False,
    )


def csrf_on(page_text: str) -> str:
    match = re.search(
        r'action="/approvals/[^"]+/approve"[^>]*><input type="hidden" name="csrf" value="([0-9a-f]+)"', page_text
    )
    assert match is not None, page_text
    return match[1]


def decide(client: TestClient, jti: str, verb: str, csrf: str | None, origin: str | None = ORIGIN) -> Any:
    data = {"csrf": csrf} if csrf is not None else {}
    headers = {"origin": origin} if origin else {}
    return client.post(f"/approvals/{jti}/{verb}", data=data, headers=headers, follow_redirects=False)


def status_of(services: Services, jti: str) -> str:
    return str(services.confirmations.get_approval(jti).status)


# --- sign-in ------------------------------------------------------------------------------------
def test_sign_in_sets_a_strict_httponly_session_cookie_that_is_not_the_token(
    services: Services, client: TestClient
) -> None:
    response = login(client, "tok-carol")
    assert response.status_code == 303 and response.headers["location"] == "/approvals"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("rpa_approval="))
    flags = [f.strip().lower() for f in cookie.split(";")]
    assert "httponly" in flags and "samesite=strict" in flags and "path=/" in flags
    assert "secure" not in flags  # plain http (loopback); https below
    session_id = cookie.split(";")[0].split("=", 1)[1]
    assert session_id and "tok-carol" not in cookie
    rows = services.db.query("SELECT * FROM web_sessions")
    assert len(rows) == 1 and session_id not in str(dict(rows[0])) and "tok-carol" not in str(dict(rows[0]))
    assert response.headers["x-frame-options"] == "DENY"


def test_over_https_the_cookie_is_secure_and_host_prefixed(services: Services) -> None:
    client = make_client(services, "https://testserver")
    response = login(client, "tok-carol", origin="https://testserver")
    cookie = next(c for c in response.headers.get_list("set-cookie") if "rpa_approval=" in c)
    assert cookie.startswith("__Host-rpa_approval=") and "secure" in cookie.lower()
    assert client.get("/approvals").status_code == 200


@pytest.mark.parametrize(("token", "status"), [("wrong", 401), ("", 401), ("tok-victor", 403), ("tok-bot", 403)])
def test_only_valid_approver_or_operator_tokens_sign_in(client: TestClient, token: str, status: int) -> None:
    response = login(client, token)
    assert response.status_code == status
    assert "rpa_approval=" not in " ".join(response.headers.get_list("set-cookie"))
    assert client.get("/approvals").status_code == 401


def test_sign_in_from_another_origin_or_without_its_form_token_is_refused(client: TestClient) -> None:
    assert login(client, "tok-carol", origin="https://evil.example").status_code == 403
    assert login(client, "tok-carol", origin=None).status_code == 403
    forged = client.post(
        "/approvals/login",
        data={"token": "tok-carol", "login_csrf": "guess"},
        headers={"origin": ORIGIN},
        follow_redirects=False,
    )
    assert forged.status_code == 403


def test_without_a_session_pages_send_the_person_to_sign_in(client: TestClient, services: Services) -> None:
    jti = propose(services)
    page = client.get(f"/approvals/{jti}")
    assert page.status_code == 401
    assert f"url=/approvals/login?next=/approvals/{jti}" in page.text
    assert decide(client, jti, "approve", "x").status_code == 401
    assert status_of(services, jti) == "pending"


def test_sign_in_returns_to_the_approval_it_was_opened_for(client: TestClient, services: Services) -> None:
    jti = propose(services)
    assert login(client, "tok-carol", next_=f"/approvals/{jti}").headers["location"] == f"/approvals/{jti}"
    client.cookies.clear()
    assert login(client, "tok-carol", next_="https://evil.example/").headers["location"] == "/approvals"


# --- list and preview ----------------------------------------------------------------------------
def test_the_list_shows_pending_requests_with_everything_escaped(client: TestClient, services: Services) -> None:
    jti = propose(services, summary="Delete <script>alert(1)</script> & co")
    login(client, "tok-carol")
    page = client.get("/approvals")
    assert page.status_code == 200
    assert "<script>alert(1)</script>" not in page.text
    assert "Delete &lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in page.text
    assert f'href="/approvals/{jti}"' in page.text and "agent:claude" in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["cache-control"] == "no-store"


def test_the_preview_shows_summary_details_diff_proposer_operation_and_expiry(
    client: TestClient, services: Services
) -> None:
    jti = propose(services)
    login(client, "tok-carol")
    page = client.get(f"/approvals/{jti}")
    assert page.status_code == 200
    text = page.text
    for expected in (
        "Move competence &#x27;A&#x27; to the trash",
        "delete_competence",
        "agent:claude",
        "competences/candidate/a.yaml",
        '<span class="add">+  intent: Fermer</span>',
        "2027-01-15 08:05:00 UTC",
        "pending",
    ):
        assert expected in text, expected
    assert 'id="approve"' in text and 'id="reject"' in text


def test_an_unknown_request_is_not_found(client: TestClient) -> None:
    login(client, "tok-carol")
    assert client.get("/approvals/nope").status_code == 404
    assert client.get("/approvals/bad%20id").status_code == 404


# --- deciding -------------------------------------------------------------------------------------
def test_an_approver_approves_and_the_service_records_it(client: TestClient, services: Services) -> None:
    jti = propose(services)
    login(client, "tok-carol")
    response = decide(client, jti, "approve", csrf_on(client.get(f"/approvals/{jti}").text))
    assert response.status_code == 303 and response.headers["location"] == f"/approvals/{jti}"
    view = services.confirmations.get_approval(jti)
    assert (view.status, view.approver) == ("approved", "carol")
    after = client.get(f"/approvals/{jti}").text
    assert "This request is approved." in after and 'id="approve"' not in after
    assert client.get("/approvals").text.count(jti) == 0


def test_deciding_twice_is_a_conflict(client: TestClient, services: Services) -> None:
    jti = propose(services)
    login(client, "tok-olivia")
    csrf = csrf_on(client.get(f"/approvals/{jti}").text)
    assert decide(client, jti, "reject", csrf).status_code == 303
    assert status_of(services, jti) == "rejected"
    assert decide(client, jti, "approve", csrf).status_code == 409
    assert status_of(services, jti) == "rejected"


@pytest.mark.parametrize("csrf", [None, "", "0" * 64, "not-hex"])
def test_a_missing_or_wrong_csrf_token_is_refused(client: TestClient, services: Services, csrf: str | None) -> None:
    jti = propose(services)
    login(client, "tok-carol")
    assert decide(client, jti, "approve", csrf).status_code == 403
    assert status_of(services, jti) == "pending"


def test_the_csrf_token_of_another_request_does_not_work(client: TestClient, services: Services) -> None:
    first, second = propose(services), propose(services)
    login(client, "tok-carol")
    csrf = csrf_on(client.get(f"/approvals/{first}").text)
    assert decide(client, second, "approve", csrf).status_code == 403
    assert status_of(services, second) == "pending"


@pytest.mark.parametrize("origin", ["https://evil.example", "null", None])
def test_a_decision_posted_from_another_origin_is_refused(
    client: TestClient, services: Services, origin: str | None
) -> None:
    jti = propose(services)
    login(client, "tok-carol")
    csrf = csrf_on(client.get(f"/approvals/{jti}").text)
    assert decide(client, jti, "approve", csrf, origin=origin).status_code == 403
    assert status_of(services, jti) == "pending"


def test_the_proposer_cannot_approve_its_own_request(client: TestClient, services: Services) -> None:
    jti = propose(services, proposer="agent:claude")
    assert login(client, "tok-claude").status_code == 303  # it has the operator role, and may read
    page = client.get(f"/approvals/{jti}")
    assert 'id="own-request"' in page.text and 'id="approve"' not in page.text
    session_id = client.cookies["rpa_approval"]
    secret = WebSessionStore(services.db, services.clock).get(session_id).csrf_secret  # type: ignore[union-attr]
    csrf = hmac.new(secret, f"decide:{jti}".encode(), hashlib.sha256).hexdigest()
    response = decide(client, jti, "approve", csrf)
    assert response.status_code == 403 and "You proposed this request" in response.text
    assert decide(client, jti, "reject", csrf).status_code == 403
    assert status_of(services, jti) == "pending"


def test_a_viewer_cannot_see_or_approve_even_with_a_session(client: TestClient, services: Services) -> None:
    jti = propose(services)
    sessions = WebSessionStore(services.db, services.clock)
    session_id = sessions.create("victor", frozenset({"viewer"}), "jwt")
    client.cookies.set("rpa_approval", session_id)
    assert client.get("/approvals").status_code == 403
    assert client.get(f"/approvals/{jti}").status_code == 403
    secret = sessions.get(session_id).csrf_secret  # type: ignore[union-attr]
    csrf = hmac.new(secret, f"decide:{jti}".encode(), hashlib.sha256).hexdigest()
    assert decide(client, jti, "approve", csrf).status_code == 403
    assert status_of(services, jti) == "pending"


def test_an_expired_request_offers_no_decision(client: TestClient, services: Services) -> None:
    jti = propose(services)
    login(client, "tok-carol")
    csrf = csrf_on(client.get(f"/approvals/{jti}").text)
    services.clock.advance(services.settings.mcp_confirmation_ttl + 1)  # type: ignore[attr-defined]
    client.get("/approvals")  # keeps the web session alive
    assert 'id="approve"' not in client.get(f"/approvals/{jti}").text
    assert decide(client, jti, "approve", csrf).status_code == 403
    assert status_of(services, jti) == "pending"


# --- session lifetime ------------------------------------------------------------------------------
def test_an_idle_session_ends(client: TestClient, services: Services) -> None:
    login(client, "tok-carol")
    assert client.get("/approvals").status_code == 200
    services.clock.advance(15 * 60 + 1)  # type: ignore[attr-defined]
    assert client.get("/approvals").status_code == 401


def test_sign_out_ends_the_session(client: TestClient, services: Services) -> None:
    login(client, "tok-carol")
    page = client.get("/approvals").text
    csrf = re.search(r'action="/approvals/logout"><input type="hidden" name="csrf" value="([0-9a-f]+)"', page)
    assert csrf is not None
    session_id = client.cookies["rpa_approval"]
    response = client.post(
        "/approvals/logout", data={"csrf": csrf[1]}, headers={"origin": ORIGIN}, follow_redirects=False
    )
    assert response.status_code == 303
    assert WebSessionStore(services.db, services.clock).get(session_id) is None


def test_real_access_tokens_sign_in(services: Services) -> None:
    app = Starlette(routes=web_routes(services, services.access_tokens.verify))
    client = TestClient(app, base_url=ORIGIN)
    token = services.access_tokens.mint("carol", ["approver"])
    assert login(client, token).status_code == 303
    client.cookies.clear()
    assert login(client, services.access_tokens.mint("victor", ["viewer"])).status_code == 403


def test_repeated_sign_in_attempts_are_rate_limited(tmp_path: Path) -> None:
    from rpa_mcp.testing import FakeClock as _Clock

    services = build_services(
        Settings(data_dir=tmp_path / "d", jwt_secret="k" * 64, rate_limit_per_minute=6), clock=_Clock()
    )
    client = make_client(services)
    statuses = [login(client, "wrong-token").status_code for _ in range(3)]
    assert statuses[0] == 401 and statuses[-1] == 429


def test_the_sign_in_page_says_how_a_person_gets_a_token(client: TestClient) -> None:
    page = client.get("/approvals/login")
    assert page.status_code == 200
    assert "rpa-mcp token --sub YOUR-NAME --role approver" in page.text
