"""A refused bearer token says why: malformed, expired, signed by another key (both fingerprints),
another audience or issuer, and what to run."""

from __future__ import annotations

import time

import jwt
import pytest

from rpa_mcp.auth.keys import fingerprint
from tests.conftest import SECRET
from tests.security.conftest import client_for, make_services, operator

pytestmark = pytest.mark.anyio
CALL = "/api/v1/tools/get_catalog"
OTHER = "another-key-that-is-long-enough-0123456789abcdef"


def _token(key: str = SECRET, headers: dict[str, str] | None = None, **claims: object) -> str:
    now = int(time.time())
    body = {"sub": "alice", "roles": ["operator"], "iss": "rpa-mcp", "aud": "rpa-mcp", "iat": now, "exp": now + 600}
    body.update(claims)
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm="HS256", headers=headers)


async def _refused(tmp_path, token: str) -> dict[str, object]:
    services = make_services(tmp_path)
    async with client_for(services, token) as client:
        answer = await client.post(CALL, json={})
    assert answer.status_code == 401
    body = answer.json()
    assert body["code"] == "unauthenticated"
    assert str(body["detail"])[:40] in answer.headers["www-authenticate"].replace("?", "'")
    return dict(body)


@pytest.mark.parametrize(
    ("make", "reason"),
    [  # made when the test runs (a token made at collection could expire before a long suite reaches it)
        (lambda: "not-a-jwt", "malformed"),
        (lambda: _token(exp=int(time.time()) - 30), "expired"),
        (lambda: _token(aud="another-server"), "wrong-audience"),
        (lambda: _token(iss="someone-else"), "wrong-issuer"),
        (lambda: _token(exp=None), "malformed"),
    ],
    ids=["malformed", "expired", "wrong-audience", "wrong-issuer", "no-exp"],
)
async def test_a_refused_token_says_which_check_failed(tmp_path, make, reason):
    body = await _refused(tmp_path, make())
    assert body["reason"] == reason
    assert "rpa-mcp token" in str(body["detail"]) or reason.startswith("wrong-")


async def test_a_token_from_another_key_names_both_fingerprints(tmp_path):
    other = _token(OTHER, headers={"kid": fingerprint(OTHER.encode())})
    body = await _refused(tmp_path, other)
    assert body["reason"] == "other-key"
    assert fingerprint(OTHER.encode()) in str(body["detail"]) and fingerprint(SECRET.encode()) in str(body["detail"])
    assert SECRET not in str(body) and OTHER not in str(body)


async def test_a_minted_token_names_its_key(tmp_path):
    services = make_services(tmp_path)
    assert jwt.get_unverified_header(operator(services))["kid"] == fingerprint(SECRET.encode())


async def test_a_header_injection_through_the_key_id_is_defused(tmp_path):
    body = await _refused(tmp_path, _token(OTHER, headers={"kid": 'x"\r\nset-cookie: a=b'}))
    assert body["reason"] == "other-key" and "\r" not in str(body["detail"])


async def test_no_token_at_all_is_not_explained_as_a_failure(tmp_path):
    services = make_services(tmp_path)
    async with client_for(services, None) as client:
        answer = await client.post(CALL, json={})
    assert answer.status_code == 401 and "reason" not in answer.json()
    assert 'error="invalid_request"' in answer.headers["www-authenticate"]


async def test_a_valid_token_still_passes(tmp_path):
    services = make_services(tmp_path)
    async with client_for(services, operator(services)) as client:
        assert (await client.post(CALL, json={})).status_code != 401
