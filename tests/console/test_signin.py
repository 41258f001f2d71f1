"""Signing in to the console with a console credential (development), sessions, sign-out, refusals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock
from tests.conftest import SECRET, console_credential_for, token_for
from tests.console.conftest import BASE, Browser


def test_sign_in_sets_a_strict_httponly_session_cookie_that_is_not_the_token(
    browser: Browser, services: Services
) -> None:
    token = console_credential_for(services, "carol", "approver")
    response = browser.sign_in("carol", token=token)
    assert response.status_code == 303 and response.headers["location"] == "/console"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("rpa_console="))
    flags = [f.strip().lower() for f in cookie.split(";")]
    assert "httponly" in flags and "samesite=strict" in flags and "path=/" in flags and "secure" not in flags
    session_id = cookie.split(";")[0].split("=", 1)[1]
    rows = services.db.query("SELECT * FROM web_sessions")
    assert len(rows) == 1 and session_id not in str(dict(rows[0])) and token not in str(dict(rows[0]))
    assert response.headers["x-frame-options"] == "DENY"


def test_over_https_the_cookie_is_secure_and_host_prefixed(services: Services) -> None:
    with TestClient(create_app(services=services), base_url="https://127.0.0.1:8765") as client:
        page = client.get("/console/login")
        nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
        assert nonce is not None
        response = client.post(
            "/console/login",
            data={"token": console_credential_for(services, "carol", "approver"), "login_csrf": nonce[1]},
            headers={"origin": "https://127.0.0.1:8765"},
            follow_redirects=False,
        )
        cookie = next(c for c in response.headers.get_list("set-cookie") if "rpa_console=" in c)
        assert cookie.startswith("__Host-rpa_console=") and "secure" in cookie.lower()
        assert client.get("/console/approvals").status_code == 200


def _credential_with_roles(services: Services, roles: list[str]) -> str:
    """A console credential signed with the server's key but carrying roles `mint` never writes."""
    import jwt

    from rpa_mcp.auth.tokens import CONSOLE_TYP

    now = int(services.clock.now())
    claims = {"sub": "someone", "roles": roles, "iss": "rpa-mcp", "aud": "rpa-mcp/console", "iat": now, "exp": now + 60}
    return jwt.encode(claims, SECRET.encode(), algorithm="HS256", headers={"typ": CONSOLE_TYP})


@pytest.mark.parametrize(("roles", "status"), [([], 403), (["agent"], 403), (["viewer"], 303), (["operator"], 303)])
def test_people_roles_sign_in_and_agent_roles_do_not(browser: Browser, roles: list[str], status: int) -> None:
    response = browser.sign_in("someone", token=_credential_with_roles(browser.services, roles))
    assert response.status_code == status
    signed_in = "rpa_console=" in " ".join(response.headers.get_list("set-cookie"))
    assert signed_in == (status == 303)


def test_a_bad_credential_an_access_token_or_the_static_agent_token_is_refused(
    browser: Browser, services: Services
) -> None:
    assert browser.sign_in("x", token="not-a-token").status_code == 401
    assert browser.sign_in("x", token="agent-static-token-0123456789").status_code == 401
    assert browser.sign_in("x", token=token_for(services, "carol", "approver")).status_code == 401
    assert browser.get("/console/replays", follow_redirects=False).status_code == 401


def test_sign_in_from_another_origin_or_without_its_form_token_is_refused(browser: Browser, services: Services) -> None:
    token = console_credential_for(services, "carol", "approver")
    browser.get("/console/login")
    assert browser.post("/console/login", {"token": token, "login_csrf": "guess"}).status_code == 403
    nonce = re.search(r'name="login_csrf" value="([^"]+)"', browser.get("/console/login").text)
    assert nonce is not None
    form = {"token": token, "login_csrf": nonce[1]}
    assert browser.post("/console/login", form, origin="https://evil.example").status_code == 403
    assert browser.post("/console/login", form, origin=None).status_code == 403


def test_without_a_session_pages_send_the_person_to_sign_in_and_back(browser: Browser) -> None:
    page = browser.get("/console/replays?state=paused", follow_redirects=False)
    assert page.status_code == 401
    assert 'url=/console/login?next=/console/replays%3Fstate%3Dpaused"' in page.text
    response = browser.sign_in("olivia", "operator", next_="/console/replays?state=paused")
    assert response.headers["location"] == "/console/replays?state=paused"


def test_next_never_leaves_the_console(browser: Browser, client: TestClient) -> None:
    for target in ("https://evil.example/", "//evil.example/console", "/api/v1/tools/x", "/console//evil"):
        client.cookies.clear()
        assert browser.sign_in("olivia", "operator", next_=target).headers["location"] == "/console"


def test_signing_in_over_a_planted_session_id_replaces_it(browser: Browser, client: TestClient) -> None:
    first = browser.sign_in("olivia", "operator")
    old = next(c for c in first.headers.get_list("set-cookie") if c.startswith("rpa_console="))
    old_id = old.split(";")[0].split("=", 1)[1]
    client.cookies.clear()
    nonce = re.search(r'name="login_csrf" value="([^"]+)"', client.get("/console/login").text)
    assert nonce is not None
    client.cookies.set("rpa_console", old_id)
    second = browser.post(
        "/console/login",
        {"token": console_credential_for(browser.services, "olivia", "operator"), "login_csrf": nonce[1]},
    )
    new = next(c for c in second.headers.get_list("set-cookie") if c.startswith("rpa_console="))
    assert old_id not in new
    client.cookies.clear()
    client.cookies.set("rpa_console", old_id)
    assert client.get("/console/replays", follow_redirects=False).status_code == 401


def test_an_idle_session_ends(browser: Browser, services: Services) -> None:
    browser.sign_in("olivia", "operator")
    assert browser.get("/console/replays").status_code == 200
    services.clock.advance(31 * 60)  # type: ignore[attr-defined]  # FakeClock
    assert browser.get("/console/replays", follow_redirects=False).status_code == 401


def test_sign_out_ends_the_session_and_needs_its_csrf_token(browser: Browser, client: TestClient) -> None:
    browser.sign_in("olivia", "operator")
    assert browser.post("/console/logout", {"csrf": "0" * 64}).status_code == 403
    assert browser.get("/console/replays").status_code == 200
    response = browser.submit("/console/replays", "/console/logout")
    assert response.status_code == 303 and response.headers["location"] == "/console/login"
    assert browser.get("/console/replays", follow_redirects=False).status_code == 401


def test_repeated_failed_sign_ins_are_throttled_but_a_valid_token_still_signs_in(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET, auth_lockout_failures=3)
    services = build_services(settings, clock=FakeClock())
    with TestClient(create_app(services=services), base_url=BASE) as client:
        browser = Browser(client, services)
        statuses = [browser.sign_in("x", token="wrong").status_code for _ in range(5)]
        valid = browser.sign_in("carol", "approver")
    assert statuses == [401, 401, 401, 429, 429]
    assert valid.status_code == 303  # the same address, behind the same proxy: never locked out


def test_token_sign_in_can_be_switched_off(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET, console_token_sign_in=False)
    services = build_services(settings)
    with TestClient(create_app(services=services), base_url=BASE) as client:
        assert 'name="token"' not in client.get("/console/login").text
        assert client.post("/console/login", data={"token": "x"}, headers={"origin": BASE}).status_code == 404


def test_the_language_follows_the_browser_then_the_choice(browser: Browser) -> None:
    assert "Connexion à la console" in browser.get("/console/login", headers={"accept-language": "fr-FR,fr"}).text
    browser.get("/console/lang/en?next=/console/login")
    assert "Sign in to the console" in browser.get("/console/login", headers={"accept-language": "fr"}).text
    browser.get("/console/lang/fr?next=https://evil.example")
    assert "Connexion à la console" in browser.get("/console/login").text


def _how_to_get_a_token(page: str) -> str:
    found = re.search(r'<p class="hint" id="token-how">(.*?)</p>', page, re.S)
    assert found is not None, "the sign-in page does not say how to get a console credential"
    return " ".join(found.group(1).split())


def test_the_sign_in_page_says_how_a_person_gets_a_console_credential(browser: Browser) -> None:
    approval = browser.get("/console/approvals/some-approval", follow_redirects=False)  # an approval link
    target = re.search(r'id="to-login" data-go href="([^"]+)"', approval.text)
    assert approval.status_code == 401 and target is not None and target.group(1).startswith("/console/login")
    english = _how_to_get_a_token(browser.get(target.group(1)).text)
    assert "rpa-mcp token --console --sub YOUR-NAME --role approver" in english
    assert "single sign-on" in english and "RPA_OIDC_ISSUER" in english  # none configured here: say it can be
    french = _how_to_get_a_token(browser.get("/console/login", headers={"accept-language": "fr"}).text)
    assert "rpa-mcp token --console --sub VOTRE-NOM --role approver" in french and "connexion unique" in french
