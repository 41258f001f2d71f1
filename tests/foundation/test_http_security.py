"""Auth, roles, Host/Origin, body size, rate limits and lockout on every HTTP route."""

from __future__ import annotations

import time

import jwt
import pytest

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import StartupRefused, create_app
from rpa_mcp.settings import Settings
from tests.conftest import SECRET, token_for
from tests.foundation.helpers import asgi_client, test_registry

pytestmark = pytest.mark.anyio
CALL = "/api/v1/tools/get_catalog"
BODY = {"name": "dialogs"}


def _jwt(payload: dict, key: str = SECRET, alg: str = "HS256", **headers: str) -> str:
    return jwt.encode(payload, key, algorithm=alg, headers=headers or None)


def _claims(**overrides: object) -> dict:
    now = int(time.time())
    claims = {"sub": "alice", "roles": ["operator"], "iss": "rpa-mcp", "aud": "rpa-mcp", "iat": now, "exp": now + 600}
    claims.update(overrides)
    return {k: v for k, v in claims.items() if v is not None}


def _alg_none_token() -> str:
    import base64
    import json

    def b64(d: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()

    return f"{b64({'alg': 'none', 'typ': 'JWT'})}.{b64(_claims())}."


BAD_TOKENS = {
    "no token": None,
    "garbage": "not-a-jwt",
    "bad signature": _jwt(_claims(), key="another-secret-another-secret-another-secret"),
    "wrong audience": _jwt(_claims(aud="someone-else")),
    "wrong issuer": _jwt(_claims(iss="evil")),
    "expired": _jwt(_claims(exp=int(time.time()) - 3600)),
    "missing exp": _jwt(_claims(exp=None)),
    "alg none": _alg_none_token(),
    "HS512": _jwt(_claims(), key=SECRET * 2, alg="HS512"),
}


@pytest.mark.parametrize("case", list(BAD_TOKENS))
@pytest.mark.parametrize("path", [CALL, "/mcp"])
async def test_bad_or_missing_token_is_401_without_oauth_discovery_when_no_provider_is_configured(services, case, path):
    app = create_app(services=services, registry=test_registry())
    token = BAD_TOKENS[case]
    async with asgi_client(app, token) as client:
        r = await client.post(path, json=BODY, headers={"accept": "application/json, text/event-stream"})
    assert r.status_code == 401
    challenge = r.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and "resource_metadata=" not in challenge
    assert r.json()["code"] == "unauthenticated" and "rpa-mcp token" in r.json()["detail"]


async def test_resource_metadata_is_public_and_names_the_resource(services):
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app) as client:
        r = await client.get("/.well-known/oauth-protected-resource/mcp")
    assert r.status_code == 200 and r.json()["resource"].endswith("/mcp")


async def test_a_token_without_the_needed_role_is_403(services):
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app, token_for(services, "vic", "viewer")) as client:
        r = await client.post("/api/v1/tools/draft_note", json={"key": "k", "text": "t"})
        ok = await client.post("/api/v1/tools/read_note", json={"key": "missing"})
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert ok.status_code == 404  # the viewer may read: it got past auth


async def test_the_static_agent_token_has_the_agent_role_only(services):
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app, "agent-static-token-0123456789") as client:
        read = await client.post(CALL, json=BODY)
        write = await client.post("/api/v1/tools/propose_save_note", json={"key": "k", "text": "t"})
    assert read.status_code in (200, 404)
    assert write.status_code == 403


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "evil.example.com"}, 421),
        ({"origin": "http://evil.example.com"}, 403),
        ({"host": "localhost:8765"}, 200),
        ({"host": "localhost"}, 421),  # no port: port 80, not this server's
        ({"host": "127.0.0.1:9999"}, 421),
        ({"origin": "http://127.0.0.1:3000"}, 403),  # another program on this machine is another origin
    ],
)
async def test_host_and_origin_allow_lists_apply_to_every_route(services, headers, status):
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app, token_for(services, "alice", "operator")) as client:
        r = await client.get("/healthz", headers=headers)
        api = await client.post(CALL, json=BODY, headers=headers)
    assert r.status_code == status
    if status != 200:
        assert api.status_code == status


async def test_an_oversized_body_is_413_before_parsing(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, max_body_bytes=2048)
    services = build_services(settings)
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app, token_for(services, "alice", "operator")) as client:
        r = await client.post(CALL, content=b"{" + b" " * 5000 + b"}", headers={"content-type": "application/json"})
        mcp = await client.post("/mcp", content=b"x" * 5000, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "payload-too-large"
    assert mcp.status_code == 413


async def test_rate_limit_answers_429_with_retry_after(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, rate_limit_per_minute=6)
    services = build_services(settings)
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app, token_for(services, "alice", "operator")) as client:
        statuses = [(await client.post("/api/v1/tools/read_note", json={"key": "x"})) for _ in range(3)]
    assert statuses[-1].status_code == 429
    assert statuses[-1].json()["code"] == "rate-limited"
    assert int(statuses[-1].headers["retry-after"]) >= 1


async def test_repeated_bad_tokens_are_throttled_but_a_valid_token_still_passes(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, auth_lockout_failures=3)
    services = build_services(settings)
    app = create_app(services=services, registry=test_registry())
    good = token_for(services, "alice", "operator")
    async with asgi_client(app) as client:
        for _ in range(3):
            assert (await client.post(CALL, json=BODY, headers={"authorization": "Bearer nope"})).status_code == 401
        throttled = await client.post(CALL, json=BODY, headers={"authorization": "Bearer nope"})
        valid = await client.post(CALL, json=BODY, headers={"authorization": f"Bearer {good}"})
    assert throttled.status_code == 429 and "retry-after" in throttled.headers
    assert valid.status_code == 200


def test_auth_disabled_is_refused_on_a_non_loopback_bind(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, auth_disabled=True, host="0.0.0.0")
    with pytest.raises(StartupRefused):
        create_app(settings)


async def test_auth_disabled_on_loopback_serves_without_a_token(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, auth_disabled=True)
    app = create_app(settings, registry=test_registry())
    async with asgi_client(app) as client:
        r = await client.post("/api/v1/tools/draft_note", json={"key": "k", "text": "t"})
    assert r.status_code == 200


async def test_healthz_reports_store_and_version(services):
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app) as client:
        body = (await client.get("/healthz")).json()
    assert body["store"] == "ok" and body["version"]


async def test_a_confirmation_token_is_not_an_access_token(services):
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app, token_for(services, "alice", "operator")) as client:
        proposal = (await client.post("/api/v1/tools/propose_save_note", json={"key": "k", "text": "t"})).json()
        r = await client.post(CALL, json=BODY, headers={"authorization": f"Bearer {proposal['token']}"})
    assert r.status_code == 401


def test_a_short_signing_key_refuses_to_start(tmp_path):
    from rpa_mcp.errors import ConfigurationError

    with pytest.raises(ConfigurationError):
        build_services(Settings(data_dir=tmp_path, jwt_secret="short"))


def test_a_generated_signing_key_file_is_private(tmp_path):
    settings = Settings(data_dir=tmp_path)
    build_services(settings)
    assert (tmp_path / "signing.key").stat().st_mode & 0o777 == 0o600


async def test_behind_a_proxy_on_0000_only_the_public_host_and_origin_are_accepted(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, host="0.0.0.0", public_url="https://rpa.hopital.example")
    services = build_services(settings)
    app = create_app(services=services, registry=test_registry())
    async with asgi_client(app, token_for(services, "alice", "operator")) as client:
        ok = await client.post(
            CALL, json=BODY, headers={"host": "rpa.hopital.example", "origin": "https://rpa.hopital.example"}
        )
        bad_host = await client.post(CALL, json=BODY, headers={"host": "10.0.0.5:8765"})
        bad_origin = await client.post(
            CALL, json=BODY, headers={"host": "rpa.hopital.example", "origin": "https://evil.example"}
        )
        mcp_bad_host = await client.post("/mcp", json={}, headers={"host": "attacker.example"})
    assert ok.status_code in (200, 404)
    assert bad_host.status_code == 421 and mcp_bad_host.status_code == 421
    assert bad_origin.status_code == 403
