"""Access tokens (who calls) and confirmation tokens (what was proposed), PyJWT with HS256 pinned.

A bearer token is presented again with every request of a client, so `AccessTokens` keeps
the outcome of a successful check by the exact token string (a bounded cache of
`VERIFIED_CACHE_SIZE`, least recently used first out): a token seen before costs a lookup
and its time checks (expiry with no grace, `nbf`/`iat` not ahead, the lifetime cap), all
against the clock at every call, instead of a signature check. Only tokens that passed
the full check are kept; a failure is checked in full every time; changing the key ring
empties the cache.
"""

from __future__ import annotations

import hmac
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jwt

from rpa_mcp.auth.keys import fingerprint
from rpa_mcp.clock import Clock, SystemClock
from rpa_mcp.errors import ConfirmationError, TokenExpired
from rpa_mcp.identity import ROLES, Caller

ALGORITHM = "HS256"
CONFIRM_TYP = "rpa-confirm+jwt"
CONSOLE_TYP = "rpa-console+jwt"  # a person's console credential (auth/console_credentials.py): never an access token
ACCESS_TYP = "JWT"
SKEW_S = 5  # clock skew between replicas, allowed on `nbf` and `iat` only: no token is valid past its `exp`
DEFAULT_MAX_TTL_S = 30 * 86400
VERIFIED_CACHE_SIZE = 4096


def _decode_any_key(token: str, keys: Sequence[bytes], clock: Clock, **kwargs: Any) -> dict[str, Any]:
    """Try each key (rotation); signature errors fall through, every other error is final.

    Time claims are checked against the injected clock (not PyJWT's own): a token is refused from
    its `exp` on (no grace), and when its `nbf` or `iat` lies more than a few seconds ahead.
    """
    options: Any = {**kwargs.pop("options", {}), "verify_exp": False, "verify_nbf": False, "verify_iat": False}
    last: Exception | None = None
    for key in keys:
        try:
            claims: dict[str, Any] = jwt.decode(token, key, algorithms=[ALGORITHM], options=options, **kwargs)
            break
        except jwt.InvalidSignatureError as exc:
            last = exc
    else:
        raise last or jwt.InvalidSignatureError("no key")
    for claim in ("exp", "nbf", "iat"):
        if claim in claims and not isinstance(claims[claim], int | float):
            raise jwt.InvalidTokenError(f"{claim} must be a number")
    _check_times(claims.get("exp"), claims.get("nbf"), claims.get("iat"), clock.now())
    return claims


def decode_signed(token: str, keys: Sequence[bytes], clock: Clock, **kwargs: Any) -> dict[str, Any]:
    """The claims of a token signed by one of `keys` (PyJWT's `audience`, `issuer`, `options` apply)."""
    return _decode_any_key(token, keys, clock, **kwargs)


def _check_times(exp: float | None, nbf: float | None, iat: float | None, now: float) -> None:
    if exp is not None and exp <= now:
        raise jwt.ExpiredSignatureError("expired")
    if nbf is not None and nbf > now + SKEW_S:
        raise jwt.ImmatureSignatureError("not yet valid")
    if iat is not None and iat > now + SKEW_S:
        raise jwt.ImmatureSignatureError("issued in the future")


@dataclass(frozen=True, slots=True)
class _Verified:
    """A token that passed the full check: who it is, and the time claims checked again at each use."""

    caller: Caller
    exp: float
    iat: float
    nbf: float | None


class AccessTokens:
    """Bearer tokens for people, LLM clients and agents: `roles` claim, iss/aud/exp required."""

    def __init__(
        self,
        keys: Sequence[bytes],
        *,
        issuer: str,
        audience: str,
        api_token: str | None = None,
        clock: Clock | None = None,
        max_ttl_s: int = DEFAULT_MAX_TTL_S,
        revoked_at: Callable[[str], float | None] | None = None,
    ) -> None:
        self._verified: OrderedDict[str, _Verified] = OrderedDict()
        # when a subject's tokens were revoked (`rpa-mcp revoke`): those issued until then are refused
        self.revoked_at = revoked_at
        self._lock = threading.Lock()
        self.keys = keys
        self.issuer, self.audience, self.api_token = issuer, audience, api_token
        self.clock = clock or SystemClock()
        self.max_ttl_s = max_ttl_s  # RPA_ACCESS_TOKEN_MAX_TTL_S: no token lives longer, whoever minted it

    @property
    def keys(self) -> tuple[bytes, ...]:
        """The key ring: the first signs, all verify."""
        return self._keys

    @keys.setter
    def keys(self, keys: Sequence[bytes]) -> None:
        with self._lock:
            self._keys = tuple(keys)
            self._verified.clear()  # a retired key's tokens must fail from now on

    def mint(
        self,
        subject: str,
        roles: list[str],
        *,
        ttl_s: int = 3600,
        now: float | None = None,
        machines: list[str] | None = None,
    ) -> str:
        """An access token; `machines` binds an agent token to those workstations (and no others)."""
        unknown = sorted(set(roles) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown role(s) {unknown}; roles are {', '.join(ROLES)}")
        if not 0 < ttl_s <= self.max_ttl_s:
            raise ValueError(
                f"a token lifetime must be 1..{self.max_ttl_s} s (RPA_ACCESS_TOKEN_MAX_TTL_S); {ttl_s} was asked"
            )
        if machines is not None and (not machines or not all(isinstance(m, str) and m.strip() for m in machines)):
            raise ValueError("machines must be a non-empty list of machine ids")
        now = self.clock.now() if now is None else now
        claims: dict[str, Any] = {
            "sub": subject,
            "roles": sorted(set(roles)),
            "iss": self.issuer,
            "aud": self.audience,
            "iat": int(now),
            "exp": int(now + ttl_s),
        }
        if machines is not None:
            claims["machines"] = sorted({m.strip() for m in machines})
        # `kid`: the signing key's public fingerprint, so that a refusal can say which key signed it
        headers = {"typ": ACCESS_TYP, "kid": fingerprint(self.keys[0])}
        return jwt.encode(claims, self.keys[0], algorithm=ALGORITHM, headers=headers)

    def verify(self, token: str) -> Caller | None:
        """A Caller, or None for anything invalid (no reason leaks to the client)."""
        if self.api_token and hmac.compare_digest(token.encode(), self.api_token.encode()):
            return Caller(subject="agent:api-token", roles=frozenset({"agent"}), auth="api-token", issuer=self.issuer)
        with self._lock:
            seen = self._verified.get(token)
            if seen is not None:
                self._verified.move_to_end(token)
        if seen is not None:
            if self._still_valid(seen) and not self.is_revoked(seen.caller.subject, seen.iat):
                return seen.caller
            with self._lock:
                self._verified.pop(token, None)
            return None
        keys = self._keys
        caller, times = self._verify_in_full(token, keys)
        if caller is None or times is None or self.is_revoked(caller.subject, times.iat):
            return None
        with self._lock:
            if self._keys is keys:  # not if the key ring changed meanwhile
                self._verified[token] = times
                while len(self._verified) > VERIFIED_CACHE_SIZE:
                    self._verified.popitem(last=False)
        return caller

    def is_revoked(self, subject: str, issued_at: float) -> bool:
        """Whether `subject`'s tokens issued at `issued_at` were revoked since."""
        revoked = self.revoked_at(subject) if self.revoked_at is not None else None
        return revoked is not None and issued_at <= revoked

    def _still_valid(self, seen: _Verified) -> bool:
        now = self.clock.now()
        try:
            _check_times(seen.exp, seen.nbf, seen.iat, now)
        except jwt.PyJWTError:
            return False
        return seen.exp - now <= self.max_ttl_s + SKEW_S and seen.exp - seen.iat <= self.max_ttl_s

    def _verify_in_full(self, token: str, keys: Sequence[bytes]) -> tuple[Caller | None, _Verified | None]:
        try:
            header = jwt.get_unverified_header(token)
            if header.get("typ") in (CONFIRM_TYP, CONSOLE_TYP):
                return None, None  # a confirmation token or a console credential is never an access token
            claims = _decode_any_key(
                token,
                keys,
                self.clock,
                audience=self.audience,
                issuer=self.issuer,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError:
            return None, None
        if claims["exp"] - claims["iat"] > self.max_ttl_s or claims["exp"] - self.clock.now() > self.max_ttl_s + SKEW_S:
            return None, None  # a lifetime over the cap: minted elsewhere or with a stolen key, refused either way
        machines = claims.get("machines")
        if machines is not None and not (
            isinstance(machines, list) and machines and all(isinstance(m, str) and m for m in machines)
        ):
            return None, None
        roles = claims.get("roles", [])
        if isinstance(roles, str):
            roles = roles.split()
        if not isinstance(roles, list):
            return None, None
        caller = Caller(
            subject=str(claims["sub"]),
            roles=frozenset(r for r in roles if r in ROLES),
            auth="jwt",
            machines=None if machines is None else frozenset(machines),
            issuer=str(claims["iss"]),
        )
        return caller, _Verified(caller, exp=claims["exp"], iat=claims["iat"], nbf=claims.get("nbf"))


class ConfirmationCodec:
    """The confirmation domain's TokenCodec port."""

    def __init__(self, keys: Sequence[bytes], *, issuer: str, audience: str, clock: Clock | None = None) -> None:
        self.keys, self.issuer, self.audience = keys, issuer, audience + "/confirm"
        self.clock = clock or SystemClock()

    def encode(self, claims: dict[str, Any]) -> str:
        body = {**claims, "iss": self.issuer, "aud": self.audience}
        return jwt.encode(body, self.keys[0], algorithm=ALGORITHM, headers={"typ": CONFIRM_TYP})

    def decode(self, token: str) -> dict[str, Any]:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise ConfirmationError(f"not a confirmation token ({exc})") from exc
        if header.get("alg") != ALGORITHM:
            raise ConfirmationError(f"algorithm {header.get('alg')!r} is not accepted (only {ALGORITHM})")
        if header.get("typ") != CONFIRM_TYP:
            raise ConfirmationError(f"token type {header.get('typ')!r} is not {CONFIRM_TYP!r}")
        try:
            return _decode_any_key(
                token,
                self.keys,
                self.clock,
                audience=self.audience,
                issuer=self.issuer,
                options={"require": ["exp", "iat", "nbf", "iss", "aud", "sub", "jti", "op", "args_sha256"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise TokenExpired("the confirmation expired; propose again") from exc
        except jwt.MissingRequiredClaimError as exc:
            raise ConfirmationError(f"the token lacks a required claim: {exc.claim}") from exc
        except jwt.InvalidSignatureError as exc:
            raise ConfirmationError("the token signature is not valid (unknown or retired key)") from exc
        except jwt.PyJWTError as exc:
            raise ConfirmationError(f"the token is not valid: {exc}") from exc
