"""Console sign-in through the hospital's identity provider: OpenID Connect authorization code + PKCE.

Authlib builds the authorization request (S256 code challenge, state, nonce) and exchanges
the code at the token endpoint (client secret); the ID token is verified here against the
provider's published keys with a pinned algorithm, then its claims (issuer, audience = our
client id, expiry, nonce, at_hash) by Authlib's `CodeIDToken`. Roles come from the claim
named in settings, read from the ID token or, when absent there, from the access token when
it is a JWT this server accepts.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.oidc.core import CodeIDToken
from joserfc.errors import JoseError

from rpa_mcp.auth.provider import ProviderAccessTokens, ProviderKeys, ProviderUnavailable, roles_from

ID_TOKEN_LEEWAY_S = 60


class SignInFailed(Exception):
    """The identity provider's answer could not be trusted (the reason is for the log, not the page)."""


@dataclass(frozen=True)
class LoginStart:
    url: str
    state: str
    code_verifier: str
    nonce: str


@dataclass(frozen=True)
class Identity:
    subject: str
    roles: frozenset[str]
    name: str


class OidcSignIn:
    def __init__(
        self,
        keys: ProviderKeys,
        *,
        client_id: str,
        client_secret: str,
        scopes: str,
        roles_claim: str,
        algorithms: list[str],
        access_tokens: ProviderAccessTokens | None = None,
    ) -> None:
        self.keys, self.client_id, self._secret = keys, client_id, client_secret
        self.scopes, self.roles_claim, self.algorithms = scopes, roles_claim, algorithms
        self.access_tokens = access_tokens

    @property
    def issuer(self) -> str:
        return self.keys.issuer

    def _client(self, redirect_uri: str) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=self.client_id,
            client_secret=self._secret,
            scope=self.scopes,
            redirect_uri=redirect_uri,
            code_challenge_method="S256",
            token_endpoint_auth_method="client_secret_basic",
            timeout=15.0,
        )

    async def begin(self, redirect_uri: str) -> LoginStart:
        """The provider's authorization URL for a fresh state, nonce and PKCE verifier."""
        metadata = await self.keys.metadata()
        endpoint = metadata.get("authorization_endpoint")
        if not isinstance(endpoint, str):
            raise ProviderUnavailable("the discovery document has no authorization_endpoint")
        state, nonce, verifier = secrets.token_urlsafe(24), secrets.token_urlsafe(24), secrets.token_urlsafe(48)
        async with self._client(redirect_uri) as client:
            url, _ = client.create_authorization_url(endpoint, state=state, code_verifier=verifier, nonce=nonce)
        return LoginStart(url=str(url), state=state, code_verifier=verifier, nonce=nonce)

    async def finish(self, *, code: str, redirect_uri: str, code_verifier: str, nonce: str) -> Identity:
        """Exchange the code (with the PKCE verifier), verify the ID token, return who signed in."""
        metadata = await self.keys.metadata()
        endpoint = metadata.get("token_endpoint")
        if not isinstance(endpoint, str):
            raise ProviderUnavailable("the discovery document has no token_endpoint")
        try:
            async with self._client(redirect_uri) as client:
                token = await client.fetch_token(
                    endpoint, grant_type="authorization_code", code=code, code_verifier=code_verifier
                )
        except Exception as exc:  # Authlib raises OAuthError; transport errors come from httpx2
            raise SignInFailed(f"the token endpoint refused the code: {exc}") from exc
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise SignInFailed("the provider sent no ID token (is the 'openid' scope granted?)")
        try:
            decoded = await self.keys.decode(id_token, self.algorithms)
            claims = CodeIDToken(
                decoded.claims,
                decoded.header,
                {"iss": {"essential": True, "values": [self.issuer, self.issuer + "/"]}},
                {"nonce": nonce, "client_id": self.client_id, "access_token": token.get("access_token")},
            )
            claims.validate(now=int(self.keys.clock.now()), leeway=ID_TOKEN_LEEWAY_S)
        except (JoseError, ValueError) as exc:
            raise SignInFailed(f"the ID token is not valid: {exc}") from exc
        subject = str(claims.get("sub") or "")
        if not subject:
            raise SignInFailed("the ID token has no subject")
        roles = roles_from(dict(claims), self.roles_claim)
        if not roles and self.access_tokens is not None and isinstance(token.get("access_token"), str):
            caller = await self.access_tokens.verify(token["access_token"])
            if caller is not None and caller.subject == subject:
                roles = caller.roles
        name = str(claims.get("name") or claims.get("preferred_username") or subject)
        return Identity(subject=subject, roles=roles, name=name)


def build_sign_in(settings: Any, access: ProviderAccessTokens | None) -> OidcSignIn | None:
    """The console's OIDC sign-in when the issuer, client id and secret are configured."""
    if access is None or not settings.oidc_client_id or settings.oidc_client_secret is None:
        return None
    return OidcSignIn(
        access.keys,
        client_id=settings.oidc_client_id,
        client_secret=settings.oidc_client_secret.get_secret_value(),
        scopes=settings.oidc_scopes,
        roles_claim=settings.oidc_roles_claim,
        algorithms=list(settings.oidc_algorithms),
        access_tokens=access,
    )


__all__ = ["Identity", "LoginStart", "OidcSignIn", "SignInFailed", "build_sign_in"]
