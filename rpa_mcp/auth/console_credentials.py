"""Console credentials: what a person pastes to sign in to the console when there is no identity provider.

An access token (for `/mcp` and `/api/v1`) is held by programs: the LLM client, an agent, a
script. If it could open a console session, whoever holds it could approve in a person's name.
So the console takes its own credentials, minted with `rpa-mcp token --console`: the same
signing keys and issuer (a person is `alice@<RPA_JWT_ISSUER>` whichever way they come), but
their own token type (`rpa-console+jwt`) and audience (`<RPA_JWT_AUDIENCE>/console`). Access
tokens refuse them (type and audience), and they refuse access tokens. They carry the roles of
people only (operator, approver, viewer).
"""

from __future__ import annotations

import json
from base64 import urlsafe_b64decode
from collections.abc import Callable, Sequence
from typing import Any

import jwt

from rpa_mcp.auth.tokens import ALGORITHM, CONSOLE_TYP, DEFAULT_MAX_TTL_S, SKEW_S, decode_signed
from rpa_mcp.clock import Clock, SystemClock
from rpa_mcp.identity import Caller

PEOPLE_ROLES = ("operator", "approver", "viewer")


def console_audience(audience: str) -> str:
    return f"{audience}/console"


def is_console_credential(token: str) -> bool:
    """Cheap look at the unverified header: does this token claim to be a console credential?"""
    head = token.split(".", 1)[0]
    if not head or len(head) > 1024:
        return False
    try:
        header = json.loads(urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (ValueError, TypeError):
        return False
    return isinstance(header, dict) and header.get("typ") == CONSOLE_TYP


class ConsoleCredentials:
    """Mint and check console credentials (HS256, the server's key ring, iss/aud/exp/iat/sub required)."""

    def __init__(
        self,
        keys: Sequence[bytes],
        *,
        issuer: str,
        audience: str,
        clock: Clock | None = None,
        max_ttl_s: int = DEFAULT_MAX_TTL_S,
        revoked_at: Callable[[str], float | None] | None = None,
    ) -> None:
        self.keys, self.issuer, self.audience = tuple(keys), issuer, console_audience(audience)
        self.clock = clock or SystemClock()
        self.max_ttl_s = max_ttl_s
        self.revoked_at = revoked_at  # `rpa-mcp revoke`: a subject's credentials issued until then are refused

    def mint(self, subject: str, roles: list[str], *, ttl_s: int = 3600, now: float | None = None) -> str:
        """A credential for one person; only the roles of people."""
        wrong = sorted(set(roles) - set(PEOPLE_ROLES))
        if wrong or not roles:
            raise ValueError(
                f"a console credential carries the roles of people ({', '.join(PEOPLE_ROLES)}); "
                f"{wrong or 'none'} was asked"
            )
        if not subject.strip():
            raise ValueError("a console credential names a person: --sub must not be empty")
        if not 0 < ttl_s <= self.max_ttl_s:
            raise ValueError(
                f"a credential lifetime must be 1..{self.max_ttl_s} s (RPA_ACCESS_TOKEN_MAX_TTL_S); {ttl_s} was asked"
            )
        now = self.clock.now() if now is None else now
        claims: dict[str, Any] = {
            "sub": subject,
            "roles": sorted(set(roles)),
            "iss": self.issuer,
            "aud": self.audience,
            "iat": int(now),
            "exp": int(now + ttl_s),
        }
        return jwt.encode(claims, self.keys[0], algorithm=ALGORITHM, headers={"typ": CONSOLE_TYP})

    def verify(self, token: str) -> Caller | None:
        """The person (via the console), or None for anything that is not a valid console credential."""
        if not is_console_credential(token):
            return None
        try:
            claims = decode_signed(
                token,
                self.keys,
                self.clock,
                audience=self.audience,
                issuer=self.issuer,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError:
            return None
        if claims["exp"] - claims["iat"] > self.max_ttl_s or claims["exp"] - self.clock.now() > self.max_ttl_s + SKEW_S:
            return None
        roles = claims.get("roles")
        if not isinstance(roles, list) or not str(claims["sub"]).strip():
            return None
        revoked = self.revoked_at(str(claims["sub"])) if self.revoked_at is not None else None
        if revoked is not None and claims["iat"] <= revoked:
            return None
        return Caller(
            subject=str(claims["sub"]),
            roles=frozenset(r for r in roles if r in PEOPLE_ROLES),
            via="web",
            auth="console",
            issuer=self.issuer,
        )


__all__ = ["CONSOLE_TYP", "ConsoleCredentials", "console_audience", "is_console_credential"]
