"""A bearer token checked once is remembered by its exact string, never past what the full check allows."""

from __future__ import annotations

import jwt

from rpa_mcp.auth import tokens as tokens_module
from rpa_mcp.auth.tokens import AccessTokens
from rpa_mcp.testing import FakeClock

KEY = b"k" * 32
OTHER = b"o" * 32


def _tokens(clock: FakeClock, keys: list[bytes] | None = None) -> AccessTokens:
    return AccessTokens(keys or [KEY], issuer="rpa-mcp", audience="rpa-mcp", clock=clock, max_ttl_s=3600)


def test_a_remembered_token_is_refused_from_its_exp_on():
    clock = FakeClock()
    tokens = _tokens(clock)
    token = tokens.mint("alice", ["operator"], ttl_s=60)
    assert tokens.verify(token) is not None
    clock.advance(59)
    assert tokens.verify(token) is not None
    clock.advance(1)
    assert tokens.verify(token) is None


def test_a_remembered_token_of_a_retired_key_is_refused():
    clock = FakeClock()
    tokens = _tokens(clock, [OTHER, KEY])
    old = _tokens(clock, [KEY]).mint("alice", ["operator"])
    assert tokens.verify(old) is not None
    tokens.keys = [OTHER]  # rotation done: the old key retired
    assert tokens.verify(old) is None


def test_a_remembered_token_is_refused_when_the_lifetime_cap_is_lowered():
    clock = FakeClock()
    tokens = _tokens(clock)
    token = tokens.mint("alice", ["operator"], ttl_s=3000)
    assert tokens.verify(token) is not None
    tokens.max_ttl_s = 600
    assert tokens.verify(token) is None


def test_a_failed_check_is_not_remembered():
    clock = FakeClock()
    tokens = _tokens(clock)
    now = clock.now()
    early = jwt.encode(
        {"sub": "alice", "roles": ["operator"], "iss": "rpa-mcp", "aud": "rpa-mcp", "iat": int(now) + 60,
         "exp": int(now) + 600},
        KEY,
        algorithm="HS256",
    )  # fmt: skip
    assert tokens.verify(early) is None  # issued in the future
    clock.advance(60)
    assert tokens.verify(early) is not None


def test_only_the_exact_string_is_remembered():
    clock = FakeClock()
    tokens = _tokens(clock)
    token = tokens.mint("alice", ["operator"])
    assert tokens.verify(token) is not None
    header, payload, signature = token.split(".")
    tampered = ".".join([header, payload, signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")])
    assert tokens.verify(tampered) is None
    assert tokens.verify(token + " ") is None


def test_the_memory_of_checked_tokens_is_bounded(monkeypatch):
    monkeypatch.setattr(tokens_module, "VERIFIED_CACHE_SIZE", 3)
    clock = FakeClock()
    tokens = _tokens(clock)
    minted = [tokens.mint(f"user{i}", ["viewer"]) for i in range(5)]
    for token in minted:
        assert tokens.verify(token) is not None
    assert len(tokens._verified) == 3
    assert all(tokens.verify(token) is not None for token in minted)  # forgotten ones are checked in full again
