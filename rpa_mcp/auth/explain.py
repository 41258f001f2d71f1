"""Why a bearer token was refused, in words a person can act on (the 401's detail).

Only a refused token is explained, after the full check failed: the explanation reads the
token's unverified header and claims to say *which* check failed — malformed, expired,
signed by another key (the token's key fingerprint beside the server's), another audience
or issuer — and what to run. Nothing here accepts a token; nothing secret is said (a key's
fingerprint is a truncated hash, the banner prints it too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import jwt

from rpa_mcp.auth.keys import fingerprint
from rpa_mcp.auth.tokens import ALGORITHM, CONFIRM_TYP, CONSOLE_TYP, AccessTokens

MINT = "rpa-mcp token --sub NAME --role ROLE"


@dataclass(frozen=True, slots=True)
class Refusal:
    """`reason` is a stable code (malformed, expired, other-key, wrong-audience, ...); `detail` the words."""

    reason: str
    detail: str


def explain(token: str, tokens: AccessTokens) -> Refusal:
    """Why `tokens.verify(token)` refused `token`."""
    if not token:
        return Refusal("missing", f"no bearer token: send 'Authorization: Bearer <token>' (mint one: {MINT})")
    try:
        header = jwt.get_unverified_header(token)
        claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return Refusal(
            "malformed",
            f"the bearer token is neither a JWT nor RPA_API_TOKEN (copied whole, on one line?); mint one: {MINT}",
        )
    server_key = fingerprint(tokens.keys[0])
    if header.get("typ") == CONFIRM_TYP:
        return Refusal("confirmation-token", "this is a confirmation token, not an access token: send it to apply_*")
    if header.get("typ") == CONSOLE_TYP:
        return Refusal(
            "console-credential",
            f"this is a person's console sign-in credential, never an access token: /mcp and /api/v1 take "
            f"access tokens ({MINT})",
        )
    if header.get("alg") != ALGORITHM:
        return Refusal(
            "other-signer",
            f"the token is signed with {str(header.get('alg'))[:10]}, not by this server (HS256, key {server_key}); "
            "an identity provider's token must match RPA_OIDC_ISSUER and RPA_OIDC_AUDIENCE",
        )
    if not _signed_here(token, tokens):
        kid = str(header.get("kid", ""))[:32]
        theirs = re.sub(r"[^0-9A-Za-z_.-]", "?", kid) or "not named in the token"
        return Refusal(
            "other-key",
            f"the token is signed by another key (token's key {theirs}, this server's {server_key}): mint it "
            f"where the server runs, with its RPA_DATA_DIR or RPA_JWT_SECRET ({MINT})",
        )
    return _claims_refusal(claims, tokens)


def _claims_refusal(claims: dict[str, Any], tokens: AccessTokens) -> Refusal:
    now = tokens.clock.now()
    exp = claims.get("exp")
    if isinstance(exp, int | float) and exp <= now:
        return Refusal("expired", f"the token expired {int(now - exp)} s ago; mint a new one: {MINT} --ttl SECONDS")
    audience = claims.get("aud")
    if audience != tokens.audience and not (isinstance(audience, list) and tokens.audience in audience):
        return Refusal(
            "wrong-audience",
            f"the token's audience is {str(audience)[:60]!r}, this server's is {tokens.audience!r} (RPA_JWT_AUDIENCE)",
        )
    if claims.get("iss") != tokens.issuer:
        return Refusal(
            "wrong-issuer",
            f"the token's issuer is {str(claims.get('iss'))[:60]!r}, this server's is {tokens.issuer!r} "
            "(RPA_JWT_ISSUER)",
        )
    missing = [name for name in ("exp", "iat", "sub") if name not in claims]
    if missing:
        return Refusal("malformed", f"the token lacks {', '.join(missing)}; mint one: {MINT}")
    iat = claims["iat"]
    too_long = isinstance(exp, int | float) and isinstance(iat, int | float) and exp - iat > tokens.max_ttl_s
    if too_long:
        return Refusal(
            "lifetime-too-long",
            f"the token lives longer than {tokens.max_ttl_s} s (RPA_ACCESS_TOKEN_MAX_TTL_S); mint a shorter one",
        )
    subject, iat = claims.get("sub"), claims.get("iat")
    if isinstance(subject, str) and isinstance(iat, int | float) and tokens.is_revoked(subject, iat):
        return Refusal(
            "revoked",
            f"the tokens of {subject[:60]!r} issued until its revocation are refused (rpa-mcp revoke); "
            f"mint a new one: rpa-mcp token --sub {subject[:60]} --role ROLE",
        )
    return Refusal("invalid", f"the token is not valid here (not yet valid, or a malformed claim); mint one: {MINT}")


def _signed_here(token: str, tokens: AccessTokens) -> bool:
    """Whether one of the server's keys made the signature (the claims are not checked here)."""
    unchecked: Any = {
        "verify_exp": False,
        "verify_nbf": False,
        "verify_iat": False,
        "verify_aud": False,
        "verify_iss": False,
    }
    for key in tokens.keys:
        try:
            jwt.decode(token, key, algorithms=[ALGORITHM], options=unchecked)
        except jwt.InvalidSignatureError:
            continue
        except jwt.PyJWTError:
            return True  # past the signature: a claim is at fault
        return True
    return False
