"""Token lifetimes are exact and capped; loopback is parsed, not prefix-matched; Host/Origin include the port."""

from __future__ import annotations

import time

import jwt
import pytest
from pydantic import ValidationError

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import StartupRefused, create_app
from rpa_mcp.errors import TokenExpired
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.settings import Settings, is_loopback_host
from rpa_mcp.testing import FakeClock, FakeOcr
from tests.conftest import SECRET
from tests.foundation.helpers import test_registry
from tests.security.conftest import client_for, make_services

pytestmark = pytest.mark.anyio
ALICE = Caller("alice", frozenset({"operator"}), via="rest")
CALL = "/api/v1/tools/get_catalog"


def _access(**claims: object) -> str:
    now = int(time.time())
    body = {"sub": "mallory", "roles": ["operator"], "iss": "rpa-mcp", "aud": "rpa-mcp", "iat": now, "exp": now + 600}
    body.update(claims)
    return jwt.encode({k: v for k, v in body.items() if v is not None}, SECRET, algorithm="HS256")


async def test_a_confirmation_token_is_refused_from_its_exp_on_with_no_grace(tmp_path):
    clock = FakeClock()
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, mcp_confirmation_ttl=60)
    services = build_services(settings, clock=clock, ocr=FakeOcr())
    registry = test_registry()

    async def propose() -> str:
        answer = await dispatch(
            registry, services, "propose_save_note", {"key": "k", "text": "t"}, ALICE, surface="rest"
        )
        return str(answer["token"])

    late, on_time = await propose(), await propose()
    clock.advance(59)
    assert (await dispatch(registry, services, "apply_save_note", {"token": on_time}, ALICE, surface="rest"))["key"]
    clock.advance(1)  # exactly exp: the old 5 s leeway accepted it
    with pytest.raises(TokenExpired) as refused:
        await dispatch(registry, services, "apply_save_note", {"token": late}, ALICE, surface="rest")
    assert refused.value.code == "confirmation-expired"


def test_the_minimum_confirmation_ttl_is_enforced_and_documented():
    with pytest.raises(ValidationError):
        Settings(mcp_confirmation_ttl=5)
    description = Settings.model_fields["mcp_confirmation_ttl"].description or ""
    assert "at least 10" in description


@pytest.mark.parametrize(
    "case",
    ["iat far in the future", "exp in 9999", "lifetime over the cap", "no iat"],
)
async def test_access_tokens_with_impossible_lifetimes_are_refused(services, case):
    now = int(time.time())
    token = {
        "iat far in the future": _access(iat=now + 86400 * 365, exp=now + 86400 * 366),
        "exp in 9999": _access(exp=253402300799),
        "lifetime over the cap": _access(iat=now - 60, exp=now + 31 * 86400),
        "no iat": _access(iat=None),
    }[case]
    async with client_for(services, token) as client:
        r = await client.post(CALL, json={"name": "dialogs"})
        ok = await client.post(CALL, json={"name": "dialogs"}, headers={"authorization": f"Bearer {_access()}"})
    assert r.status_code == 401
    assert ok.status_code == 200


def test_the_lifetime_cap_is_a_setting_and_minting_over_it_is_refused(tmp_path):
    services = make_services(tmp_path, access_token_max_ttl_s=3600)
    with pytest.raises(ValueError, match="RPA_ACCESS_TOKEN_MAX_TTL_S"):
        services.access_tokens.mint("alice", ["operator"], ttl_s=3601)
    assert services.access_tokens.verify(services.access_tokens.mint("alice", ["operator"], ttl_s=3600))


def test_the_cli_refuses_a_token_lifetime_over_the_cap(tmp_path, monkeypatch, capsys):
    from rpa_mcp.cli import main

    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    assert main(["token", "--sub", "alice", "--role", "operator", "--ttl", str(400 * 86400)]) == 2
    assert "RPA_ACCESS_TOKEN_MAX_TTL_S" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("127.attacker.example", False),
        ("127.0.0.1.nip.io", False),
        ("0.0.0.0", False),
        ("10.0.0.5", False),
    ],
)
def test_loopback_is_decided_by_parsing_the_address(host, loopback):
    assert is_loopback_host(host) is loopback
    assert Settings(host=host).is_loopback is loopback


def test_auth_disabled_is_refused_on_a_name_that_only_starts_like_a_loopback_address(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, auth_disabled=True, host="127.attacker.example")
    with pytest.raises(StartupRefused):
        create_app(settings)


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "127.0.0.1:8765"}, 200),
        ({"host": "[::1]:8765"}, 200),
        ({"host": "127.0.0.1:8766"}, 421),
        ({"host": "localhost"}, 421),
        ({"host": "127.attacker.example:8765"}, 421),
        ({"origin": "http://localhost:8765"}, 200),
        ({"origin": "http://localhost:8080"}, 403),
        ({"origin": "http://localhost"}, 403),
        ({"origin": "http://127.attacker.example:8765"}, 403),
        ({"origin": "null"}, 403),
    ],
)
async def test_host_and_origin_must_name_this_servers_port(services, headers, status):
    async with client_for(services, None) as client:  # the in-memory server answers on 127.0.0.1:8765
        r = await client.get("/healthz", headers=headers)
    assert r.status_code == status, r.text


async def test_configured_names_are_exact_unless_written_with_a_wildcard_port(tmp_path):
    services = make_services(tmp_path, allowed_hosts=["rpa.internal", "gateway.internal:*"])
    async with client_for(services, None) as client:
        exact = await client.get("/healthz", headers={"host": "rpa.internal"})
        other_port = await client.get("/healthz", headers={"host": "rpa.internal:9000"})
        wildcard = await client.get("/healthz", headers={"host": "gateway.internal:9000"})
    assert (exact.status_code, other_port.status_code, wildcard.status_code) == (200, 421, 200)


def test_host_and_origin_verdicts_are_remembered_within_a_bound():
    from rpa_mcp.entrypoints.host_guard import HostOriginGuard

    async def app(scope: object, receive: object, send: object) -> None:
        return None

    guard = HostOriginGuard(app, hosts=[], origins=[], default_port=8765)
    guard.MEMORY = 4
    for port in range(8000, 8010):
        assert guard._host_verdict(f"127.0.0.1:{port}", "http", 8765) == (port == 8765)
        assert guard._origin_verdict(f"http://localhost:{port}", 8765) == (port == 8765)
    assert len(guard._hosts_seen) == 4 and len(guard._origins_seen) == 4
    assert guard._host_verdict("127.0.0.1:8765", "http", 8765) and not guard._host_verdict("evil:8765", "http", 8765)
