"""The hospital's identity provider: console sign-in (authorization code + PKCE) and its access tokens
accepted on /mcp and /api/v1 as an OAuth resource server, against a local provider built on Authlib."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from joserfc import jwt
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeOcr
from tests.conftest import SECRET, token_for
from tests.console.helpers import ADMISSION, MACHINE, workflow
from tests.console.oidc_provider import LocalOidcProvider, User

pytestmark = pytest.mark.anyio
AUDIENCE = "https://rpa.hopital.example/mcp"
USERS = [
    User("u-1001", "Dr Carole Martin", ["approver"]),
    User("u-1002", "Olivier Petit", ["operator"]),
    User("u-1003", "Visiteur", ["patient"]),
]


class Provided:
    def __init__(self, provider: LocalOidcProvider, services: Services, base: str) -> None:
        self.provider, self.services, self.base = provider, services, base


@pytest.fixture
async def provided(
    tmp_path: Path, serve: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Provided]:
    monkeypatch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")  # the test provider speaks http on loopback
    provider = LocalOidcProvider(
        client_id="rpa-console", client_secret="s3cret-console", audience=AUDIENCE, users=USERS
    )
    provider.issuer = await serve(provider.app)
    settings = Settings(
        data_dir=tmp_path / "data",
        jwt_secret=SECRET,
        oidc_issuer=provider.issuer,
        oidc_client_id="rpa-console",
        oidc_client_secret="s3cret-console",
        oidc_audience=AUDIENCE,
        console_token_sign_in=True,
        identity_links=f"alice@rpa-mcp = u-1001@{provider.issuer}",  # Dr Martin's API identity
    )
    services = build_services(settings, ocr=FakeOcr())
    base = await serve(create_app(services=services))
    yield Provided(provider, services, base)


async def test_the_protected_resource_metadata_names_the_provider(provided: Provided) -> None:
    async with httpx2.AsyncClient(base_url=provided.base) as http:
        for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
            document = (await http.get(path)).json()
            assert document["authorization_servers"] == [provided.provider.issuer]
        challenge = (await http.post("/api/v1/tools/list_machines", json={})).headers["www-authenticate"]
        assert 'resource_metadata="' in challenge


async def test_a_provider_access_token_works_on_mcp_and_rest_with_the_roles_of_its_claim(provided: Provided) -> None:
    token = provided.provider.mint_access_token("u-1002", ["operator"])
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(base_url=provided.base, headers=headers) as http:
        rest = await http.post("/api/v1/tools/list_machines", json={})
        assert rest.status_code == 200, rest.text
        async with Client(streamable_http_client(f"{provided.base}/mcp", http_client=http)) as client:
            result = await client.call_tool("list_competences", {})
            assert not result.is_error
    assert ("u-1002", "list_machines") in [(r["actor"], r["operation"]) for r in provided.services.audit.rows()]
    assert provided.provider.jwks_requests == 1  # the keys are cached


async def test_roles_come_only_from_the_claim(provided: Provided) -> None:
    viewer = provided.provider.mint_access_token("u-1003", ["viewer"])
    async with httpx2.AsyncClient(base_url=provided.base, headers={"Authorization": f"Bearer {viewer}"}) as http:
        refused = await http.post("/api/v1/tools/propose_delete_competence", json={"name": "x"})
        assert refused.status_code == 403 and refused.json()["code"] == "forbidden"


@pytest.mark.parametrize(
    "case", ["other-audience", "other-issuer", "expired", "hs256", "unsigned-kid", "tampered", "no-sub"]
)
async def test_a_token_the_provider_did_not_issue_for_this_server_is_refused(provided: Provided, case: str) -> None:
    p = provided.provider
    if case == "other-audience":
        token = p.mint_access_token("u-1002", ["operator"], audience="https://other.example/api")
    elif case == "other-issuer":
        token = p.mint_access_token("u-1002", ["operator"], issuer="https://evil.example")
    elif case == "expired":
        token = p.mint_access_token("u-1002", ["operator"], ttl_s=-120)
    elif case == "hs256":  # algorithm confusion: an HMAC token with the provider's issuer
        from joserfc.jwk import OctKey

        token = jwt.encode(
            {"alg": "HS256"},
            {"iss": p.issuer, "aud": AUDIENCE, "sub": "u-1002", "roles": ["operator"], "exp": 4102444800},
            OctKey.import_key(b"k" * 64),
        )
    elif case == "unsigned-kid":
        from joserfc.jwk import RSAKey

        other = RSAKey.generate_key(2048, parameters={"kid": "attacker"})
        token = jwt.encode(
            {"alg": "RS256", "kid": "attacker"},
            {"iss": p.issuer, "aud": AUDIENCE, "sub": "u-1002", "roles": ["operator"], "exp": 4102444800},
            other,
        )
    elif case == "tampered":
        head, _, sig = p.mint_access_token("u-1002", ["viewer"]).split(".")
        forged = p.mint_access_token("u-1002", ["operator"]).split(".")[1]
        token = f"{head}.{forged}.{sig[::-1]}"
    else:
        token = jwt.encode(
            {"alg": "RS256", "kid": "test-key-1"}, {"iss": p.issuer, "aud": AUDIENCE, "exp": 4102444800}, p.key
        )
    async with httpx2.AsyncClient(base_url=provided.base, headers={"Authorization": f"Bearer {token}"}) as http:
        response = await http.post("/api/v1/tools/list_machines", json={})
    assert response.status_code == 401


async def test_the_servers_own_tokens_keep_working_beside_the_provider(provided: Provided) -> None:
    token = token_for(provided.services, "alice", "operator")
    async with httpx2.AsyncClient(base_url=provided.base, headers={"Authorization": f"Bearer {token}"}) as http:
        assert (await http.post("/api/v1/tools/list_machines", json={})).status_code == 200


async def _sign_in(provided: Provided, user: str, web: httpx2.AsyncClient) -> httpx2.Response:
    """The browser's path: console -> provider (pick the user) -> callback, following each redirect by hand."""
    start = await web.get("/console/login/oidc?next=/console/approvals")
    assert start.status_code == 302
    authorize = start.headers["location"]
    query = parse_qs(urlsplit(authorize).query)
    assert query["code_challenge_method"] == ["S256"] and query["code_challenge"] and query["nonce"]
    assert query["client_id"] == ["rpa-console"] and "code_verifier" not in query
    async with httpx2.AsyncClient() as idp:
        page = await idp.get(authorize)
        fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', page.text))
        back = await idp.post(f"{provided.provider.issuer}/authorize", data={**fields, "user": user})
    assert back.status_code == 302, back.text
    return await web.get(back.headers["location"])


async def test_a_person_signs_in_through_the_provider_with_code_and_pkce(provided: Provided) -> None:
    async with httpx2.AsyncClient(base_url=provided.base) as web:
        landed = await _sign_in(provided, "u-1001", web)
        assert landed.status_code == 200 and 'url=/console/approvals"' in landed.text
        page = await web.get("/console/approvals")
        assert page.status_code == 200 and "<b>u-1001</b> (approver)" in page.text
    session = provided.services.db.query("SELECT subject, auth, roles_json FROM web_sessions")[0]
    assert (session["subject"], session["auth"], session["roles_json"]) == ("u-1001", "oidc", '["approver"]')
    assert provided.provider.token_requests == 1


async def test_a_provider_user_without_a_console_role_is_refused(provided: Provided) -> None:
    async with httpx2.AsyncClient(base_url=provided.base) as web:
        assert (await _sign_in(provided, "u-1003", web)).status_code == 403
        assert (await web.get("/console/replays")).status_code == 401


async def test_a_callback_is_used_once_and_only_by_the_browser_that_started_it(provided: Provided) -> None:
    async with httpx2.AsyncClient(base_url=provided.base) as web:
        start = await web.get("/console/login/oidc")
        async with httpx2.AsyncClient() as idp:
            page = await idp.get(start.headers["location"])
            fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', page.text))
            back = (await idp.post(f"{provided.provider.issuer}/authorize", data={**fields, "user": "u-1002"})).headers[
                "location"
            ]
        async with httpx2.AsyncClient() as stranger:  # no state cookie: another browser
            assert (await stranger.get(back)).status_code == 400
        assert (await web.get(back)).status_code == 200
        assert (await web.get(back)).status_code == 400  # taken once
        forged = re.sub(r"state=[^&]+", "state=forged", back)
        assert (await web.get(forged)).status_code == 400


async def test_a_rotated_provider_key_is_fetched_once_then_cached(provided: Provided) -> None:
    from joserfc.jwk import RSAKey

    p = provided.provider
    first = p.mint_access_token("u-1002", ["operator"])
    async with httpx2.AsyncClient(base_url=provided.base, headers={"Authorization": f"Bearer {first}"}) as http:
        assert (await http.post("/api/v1/tools/list_machines", json={})).status_code == 200
    p.key = RSAKey.generate_key(2048, parameters={"kid": "test-key-2", "use": "sig", "alg": "RS256"})
    rotated = jwt.encode(
        {"alg": "RS256", "kid": "test-key-2"},
        {"iss": p.issuer, "aud": AUDIENCE, "sub": "u-1002", "roles": ["operator"], "exp": 4102444800},
        p.key,
    )
    async with httpx2.AsyncClient(base_url=provided.base, headers={"Authorization": f"Bearer {rotated}"}) as http:
        for _ in range(3):
            assert (await http.post("/api/v1/tools/list_machines", json={})).status_code == 200
    assert p.jwks_requests == 2  # one read at first use, one after the rotation


async def test_with_single_sign_on_the_token_hint_points_to_the_hospital_account(provided: Provided) -> None:
    async with httpx2.AsyncClient(base_url=provided.base) as web:
        page = (await web.get("/console/login")).text
    assert 'id="oidc-login"' in page and "rpa-mcp token --console --sub YOUR-NAME --role approver" in page
    assert "Or sign in with your hospital account above." in page and "RPA_OIDC_ISSUER" not in page


async def _approve(provided: Provided, web: httpx2.AsyncClient, jti: str) -> httpx2.Response:
    page = (await web.get(f"/console/approvals/{jti}")).text
    csrf = re.search(rf'/console/approvals/{jti}/approve"[^>]*><input type="hidden" name="csrf" value="(\w+)"', page)
    return await web.post(
        f"/console/approvals/{jti}/approve", data={"csrf": csrf[1] if csrf else ""}, headers={"origin": provided.base}
    )


async def test_a_request_proposed_under_a_linked_identity_is_approved_by_another_person_only(
    provided: Provided,
) -> None:
    """alice@rpa-mcp (an access token of this server, in her assistant) and u-1001 at the provider are one person."""
    provided.services.competences.save("X", workflow(provided.services, "X", ADMISSION), machine_id=MACHINE)
    headers = {"Authorization": f"Bearer {token_for(provided.services, 'alice', 'operator')}"}
    async with httpx2.AsyncClient(base_url=provided.base, headers=headers) as api:
        proposal = (await api.post("/api/v1/tools/propose_delete_competence", json={"name": "X"})).json()
    jti = proposal["approval_url"].rsplit("/", 1)[1]
    async with httpx2.AsyncClient(base_url=provided.base) as same, httpx2.AsyncClient(base_url=provided.base) as other:
        await _sign_in(provided, "u-1001", same)
        assert 'id="own-request"' in (await same.get(f"/console/approvals/{jti}")).text
        assert (await _approve(provided, same, jti)).status_code == 403
        assert provided.services.confirmations.get_approval(jti).status == "pending"
        await _sign_in(provided, "u-1002", other)
        assert (await _approve(provided, other, jti)).status_code == 303
    view = provided.services.confirmations.get_approval(jti)
    assert (view.status, view.approver) == ("approved", f"u-1002@{provided.provider.issuer}")


async def test_a_provider_access_token_does_not_sign_in_to_the_console(provided: Provided) -> None:
    token = provided.provider.mint_access_token("u-1002", ["operator"])
    async with httpx2.AsyncClient(base_url=provided.base) as web:
        page = await web.get("/console/login")
        nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
        assert nonce is not None
        refused = await web.post(
            "/console/login", data={"token": token, "login_csrf": nonce[1]}, headers={"origin": provided.base}
        )
    assert refused.status_code == 401 and "rpa_console" not in refused.cookies
    assert "rpa-mcp token --console" in refused.text
