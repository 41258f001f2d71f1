"""The hospital's identity provider (OpenID Connect): its metadata and keys, and its access tokens.

- `ProviderKeys` reads the provider's discovery document and its published keys (JWKS) over
  HTTPS and caches both for `ttl_s`; a token signed with a key id it does not know triggers
  one refresh at most every `MIN_REFRESH_S` (key rotation), never one per request.
- `ProviderAccessTokens` makes this server an OAuth resource server (the MCP authorization
  specification): a bearer token from the provider is accepted on `/mcp` and `/api/v1` when
  its signature verifies against the provider's keys with a pinned algorithm, and its issuer,
  audience (this server), expiry and subject check out. Roles come from a configurable claim
  (dotted path, e.g. `realm_access.roles`); unknown role names are dropped.

Both use joserfc (the JOSE library Authlib builds on). An issuer must be https, except on a
loopback address (development and tests).
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from rpa_mcp.clock import Clock
from rpa_mcp.errors import ConfigurationError
from rpa_mcp.identity import ROLES, Caller
from rpa_mcp.settings import is_loopback_host

logger = logging.getLogger(__name__)
MIN_REFRESH_S = 30.0
MAX_DOCUMENT_BYTES = 256 * 1024
MAX_TOKEN_CHARS = 16 * 1024
LEEWAY_S = 30


class ProviderUnavailable(Exception):
    """The identity provider could not be reached or sent something unreadable."""


def check_issuer(issuer: str) -> str:
    """The issuer URL without a trailing slash; https unless it is a loopback address."""
    parts = urlsplit(issuer)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("https", "http") or not host:
        raise ConfigurationError(f"RPA_OIDC_ISSUER {issuer!r} is not an http(s) URL")
    if parts.scheme == "http" and not is_loopback_host(host):
        raise ConfigurationError(f"RPA_OIDC_ISSUER {issuer!r} must use https (http is accepted on loopback only)")
    return issuer.rstrip("/")


def claim_at(claims: dict[str, Any], path: str) -> Any:
    """The value at a dotted path of the claims (`realm_access.roles`), or None."""
    value: Any = claims
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def roles_from(claims: dict[str, Any], path: str) -> frozenset[str]:
    value = claim_at(claims, path)
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list):
        return frozenset()
    return frozenset(str(r) for r in value if str(r) in ROLES)


class ProviderKeys:
    def __init__(
        self,
        issuer: str,
        *,
        clock: Clock,
        ttl_s: float = 300.0,
        http: httpx2.AsyncClient | None = None,
    ) -> None:
        self.issuer = check_issuer(issuer)
        self.clock, self.ttl_s = clock, ttl_s
        self._http = http
        self._metadata: tuple[float, dict[str, Any]] | None = None
        self._keys: tuple[float, KeySet] | None = None
        self._last_forced = -MIN_REFRESH_S  # forced re-reads (unknown key id) are rate limited
        self._lock = anyio.Lock()

    async def _get_json(self, url: str) -> dict[str, Any]:
        client = self._http or httpx2.AsyncClient(timeout=10.0, follow_redirects=False)
        try:
            response = await client.get(url, headers={"accept": "application/json"})
        except httpx2.HTTPError as exc:
            raise ProviderUnavailable(f"{url}: {exc.__class__.__name__}") from exc
        finally:
            if self._http is None:
                await client.aclose()
        if response.status_code != 200 or len(response.content) > MAX_DOCUMENT_BYTES:
            raise ProviderUnavailable(f"{url}: HTTP {response.status_code}, {len(response.content)} bytes")
        try:
            data = json.loads(response.content)
        except ValueError as exc:
            raise ProviderUnavailable(f"{url}: not JSON") from exc
        if not isinstance(data, dict):
            raise ProviderUnavailable(f"{url}: not a JSON object")
        return data

    async def metadata(self) -> dict[str, Any]:
        """The discovery document (`/.well-known/openid-configuration`), cached."""
        now = self.clock.monotonic()
        if self._metadata and now - self._metadata[0] < self.ttl_s:
            return self._metadata[1]
        async with self._lock:
            if self._metadata and now - self._metadata[0] < self.ttl_s:
                return self._metadata[1]
            data = await self._get_json(f"{self.issuer}/.well-known/openid-configuration")
            if str(data.get("issuer", "")).rstrip("/") != self.issuer:
                raise ProviderUnavailable(f"the discovery document names issuer {data.get('issuer')!r}, not ours")
            self._metadata = (now, data)
            return data

    async def key_set(self, *, refresh: bool = False) -> KeySet:
        """The provider's public keys; `refresh=True` re-reads them (at most every MIN_REFRESH_S)."""
        now = self.clock.monotonic()
        fresh = self._keys is not None and now - self._keys[0] < self.ttl_s
        if fresh and not refresh:
            assert self._keys is not None
            return self._keys[1]
        async with self._lock:
            if self._keys is not None and refresh and now - self._last_forced < MIN_REFRESH_S:
                return self._keys[1]
            if self._keys is not None and not refresh and now - self._keys[0] < self.ttl_s:
                return self._keys[1]
        uri = (await self.metadata()).get("jwks_uri")
        if not isinstance(uri, str) or not uri:
            raise ProviderUnavailable("the discovery document has no jwks_uri")
        async with self._lock:
            try:
                keys = KeySet.import_key_set(await self._get_json(uri))  # type: ignore[arg-type]  # a JWKS dict
            except (JoseError, ValueError, TypeError, KeyError) as exc:
                raise ProviderUnavailable(f"the provider's keys could not be read: {exc}") from exc
            self._keys = (now, keys)
            if refresh:
                self._last_forced = now
            return keys

    async def decode(self, token: str, algorithms: Iterable[str]) -> jwt.Token:
        """Verify the signature with a pinned algorithm; one key refresh when the key id is unknown."""
        allowed = list(algorithms)
        keys = await self.key_set()
        try:
            return jwt.decode(token, keys, algorithms=allowed)
        except JoseError as exc:
            if exc.error not in ("invalid_key_id", "bad_signature"):
                raise
        return jwt.decode(token, await self.key_set(refresh=True), algorithms=allowed)


class ProviderAccessTokens:
    """Bearer tokens issued by the identity provider for this server (resource server)."""

    def __init__(self, keys: ProviderKeys, *, audiences: Iterable[str], roles_claim: str, algorithms: Iterable[str]):
        self.keys, self.audiences = keys, [a for a in audiences if a]
        self.roles_claim, self.algorithms = roles_claim, list(algorithms)
        if not self.audiences:
            raise ConfigurationError("the identity provider's access tokens need an audience (RPA_OIDC_AUDIENCE)")
        if not self.algorithms or any(a.upper().startswith(("HS", "NONE")) for a in self.algorithms):
            raise ConfigurationError("RPA_OIDC_ALGORITHMS must list asymmetric algorithms only (RS256, ES256, ...)")

    @property
    def issuer(self) -> str:
        return self.keys.issuer

    def looks_like_ours(self, token: str) -> bool:
        """Cheap pre-check: a JWT whose unverified `iss` is the provider (no network for other tokens)."""
        parts = token.split(".")
        if len(parts) != 3:
            return False
        try:
            payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        except (ValueError, TypeError):
            return False
        return isinstance(payload, dict) and str(payload.get("iss", "")).rstrip("/") == self.issuer

    async def verify(self, token: str) -> Caller | None:
        """A Caller for a valid provider access token; None for anything else (no reason leaks)."""
        if not token or len(token) > MAX_TOKEN_CHARS or not self.looks_like_ours(token):
            return None
        try:
            decoded = await self.keys.decode(token, self.algorithms)
            jwt.JWTClaimsRegistry(
                now=lambda: int(self.keys.clock.now()),
                leeway=LEEWAY_S,
                iss={"essential": True, "values": [self.issuer, self.issuer + "/"]},
                aud={"essential": True, "values": self.audiences},
                exp={"essential": True},
                sub={"essential": True},
            ).validate(decoded.claims)
        except JoseError:
            return None
        except ProviderUnavailable as exc:
            logger.warning("identity provider unavailable while checking a token: %s", exc)
            return None
        claims = decoded.claims
        return Caller(
            subject=str(claims["sub"]), roles=roles_from(claims, self.roles_claim), auth="oidc", issuer=self.issuer
        )
