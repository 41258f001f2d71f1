"""A small OpenID Connect provider for the tests, built from Authlib's server components.

Authorization code grant with PKCE (S256, required) and the OpenID Connect `code` flow:
discovery, JWKS, an authorize page where a test user is picked (the person "signs in"),
a token endpoint (client_secret_basic) that returns an RS256 ID token and an RFC 9068 JWT
access token whose audience is the resource server and which carries a `roles` claim.
Tokens are signed with a key generated per provider; `mint_access_token` gives a test an
access token directly (as an MCP client that did OAuth would hold).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import parse_qsl

from authlib.oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin, OAuth2Request
from authlib.oauth2.rfc6749.grants import AuthorizationCodeGrant
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc9068 import JWTBearerTokenGenerator
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from markupsafe import escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route


@dataclass
class User:
    sub: str
    name: str
    roles: list[str]

    def get_user_id(self) -> str:
        return self.sub


@dataclass
class Client(ClientMixin):  # type: ignore[misc]
    client_id: str
    client_secret: str
    redirect_uris: list[str] = field(default_factory=list)

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str | None:
        return self.redirect_uris[0] if self.redirect_uris else None

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(s for s in (scope or "").split() if s in ("openid", "profile", "email"))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return not self.redirect_uris or redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret: str) -> bool:
        return secrets.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "client_secret_basic" if endpoint == "token" else True

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == "authorization_code"


@dataclass
class Code:
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    user: User
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    auth_time: int

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> str | None:
        return self.nonce

    def get_auth_time(self) -> int:
        return self.auth_time

    def get_acr(self) -> str | None:
        return None

    def get_amr(self) -> list[str] | None:
        return None


class StarletteRequest(OAuth2Request):  # type: ignore[misc]
    """An OAuth2Request over a Starlette request whose query and form were read already."""

    def __init__(self, method: str, uri: str, headers: Any, query: dict[str, str], form: dict[str, str]):
        super().__init__(method=method, uri=uri, headers=headers)
        self._query, self._form = query, form
        self.payload = BasicOAuth2Payload({**query, **form})

    @property
    def args(self) -> dict[str, str]:
        return self._query

    @property
    def form(self) -> dict[str, str]:
        return self._form


class LocalOidcProvider:
    """Run `app` under uvicorn, then set `issuer` to its base URL before the first request."""

    def __init__(self, *, client_id: str, client_secret: str, audience: str, users: list[User]) -> None:
        self.client = Client(client_id, client_secret)
        self.audience = audience
        self.users = {u.sub: u for u in users}
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key-1", "use": "sig", "alg": "RS256"})
        self.issuer = ""
        self.codes: dict[str, Code] = {}
        self.token_requests = 0
        self.jwks_requests = 0
        self.app = Starlette(
            routes=[
                Route("/.well-known/openid-configuration", self.discovery),
                Route("/jwks", self.jwks),
                Route("/authorize", self.authorize, methods=["GET", "POST"]),
                Route("/token", self.token, methods=["POST"]),
            ]
        )
        self.server = self._server()

    # --- Authlib's authorization server, wired to this provider's memory -----------------------
    def _server(self) -> AuthorizationServer:
        provider = self

        class Server(AuthorizationServer):  # type: ignore[misc]
            def query_client(self, client_id: str) -> Client | None:
                return provider.client if client_id == provider.client.client_id else None

            def save_token(self, token: dict[str, Any], request: OAuth2Request) -> None:
                pass

            def create_oauth2_request(self, request: OAuth2Request) -> OAuth2Request:
                return request

            def handle_response(self, status: int, body: Any, headers: Any) -> Response:
                if isinstance(body, dict):
                    return JSONResponse(body, status_code=status, headers=dict(headers))
                return Response(body, status_code=status, headers=dict(headers))

            def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
                pass

        class CodeGrant(AuthorizationCodeGrant):  # type: ignore[misc]
            TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["client_secret_basic"]

            def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
                payload = request.payload.data
                provider.codes[code] = Code(
                    code=code,
                    client_id=request.client.client_id,
                    redirect_uri=payload.get("redirect_uri", ""),
                    scope=request.scope,
                    user=request.user,
                    nonce=payload.get("nonce"),
                    code_challenge=payload.get("code_challenge"),
                    code_challenge_method=payload.get("code_challenge_method"),
                    auth_time=int(time.time()),
                )

            def query_authorization_code(self, code: str, client: Client) -> Code | None:
                found = provider.codes.get(code)
                return found if found and found.client_id == client.client_id else None

            def delete_authorization_code(self, authorization_code: Code) -> None:
                provider.codes.pop(authorization_code.code, None)

            def authenticate_user(self, authorization_code: Code) -> User:
                return authorization_code.user

        class Challenge(CodeChallenge):  # type: ignore[misc]
            SUPPORTED_CODE_CHALLENGE_METHOD: ClassVar[list[str]] = ["S256"]

            def get_authorization_code_challenge(self, authorization_code: Code) -> str | None:
                return authorization_code.code_challenge

            def get_authorization_code_challenge_method(self, authorization_code: Code) -> str | None:
                return authorization_code.code_challenge_method

        class IdToken(OpenIDCode):  # type: ignore[misc]
            def resolve_client_private_key(self, client: Client) -> Any:
                return provider.key

            def get_client_algorithm(self, client: Client) -> str:
                return "RS256"

            def get_client_claims(self, client: Client) -> dict[str, Any]:
                return {"iss": provider.issuer, "aud": [client.client_id], "exp": int(time.time()) + 300}

            def get_encode_header(self, client: Client) -> dict[str, str]:
                return {"alg": "RS256", "kid": "test-key-1"}

            def exists_nonce(self, nonce: str, request: OAuth2Request) -> bool:
                return any(c.nonce == nonce for c in provider.codes.values())

            def generate_user_info(self, user: User, scope: str) -> UserInfo:
                return UserInfo(sub=user.sub, name=user.name, roles=list(user.roles))

        class AccessTokens(JWTBearerTokenGenerator):  # type: ignore[misc]
            def get_jwks(self) -> Any:
                return KeySet([provider.key])

            def get_audiences(self, client: Client, user: User, scope: str) -> str:
                return provider.audience

            def get_extra_claims(self, client: Client, grant_type: str, user: User, scope: str) -> dict[str, Any]:
                return {"roles": list(user.roles)} if user else {}

        server = Server()
        server.register_grant(CodeGrant, [Challenge(required=True), IdToken(require_nonce=True)])
        self._token_generator = lambda: AccessTokens(issuer=provider.issuer)
        server.register_token_generator("default", lambda *a, **k: self._token_generator()(*a, **k))
        return server

    # --- endpoints -------------------------------------------------------------------------------
    async def _request(self, request: Request) -> StarletteRequest:
        form = dict(parse_qsl((await request.body()).decode())) if request.method == "POST" else {}
        return StarletteRequest(request.method, str(request.url), request.headers, dict(request.query_params), form)

    async def discovery(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "jwks_uri": f"{self.issuer}/jwks",
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            }
        )

    async def jwks(self, request: Request) -> JSONResponse:
        self.jwks_requests += 1
        return JSONResponse(KeySet([self.key]).as_dict(private=False))

    async def authorize(self, request: Request) -> Response:
        oauth_request = await self._request(request)
        if request.method == "GET":
            grant = self.server.get_consent_grant(oauth_request)
            hidden = "".join(
                f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in oauth_request.args.items()
            )
            options = "".join(f'<option value="{escape(u.sub)}">{escape(u.name)}</option>' for u in self.users.values())
            body = (
                "<!doctype html><title>Test identity provider</title><h1>Test identity provider</h1>"
                f"<p>{escape(grant.client.client_id)} asks who you are.</p>"
                f'<form method="post" action="/authorize">{hidden}<select id="idp-user" name="user">{options}</select>'
                '<button type="submit" id="idp-login">Sign in</button></form>'
            )
            return HTMLResponse(body)
        user = self.users.get(oauth_request.form.get("user", ""))
        grant = self.server.get_consent_grant(oauth_request, end_user=user)
        response: Response = self.server.create_authorization_response(oauth_request, grant_user=user, grant=grant)
        return response

    async def token(self, request: Request) -> Response:
        self.token_requests += 1
        response: Response = self.server.create_token_response(await self._request(request))
        return response

    # --- for tests -------------------------------------------------------------------------------
    def mint_access_token(
        self, sub: str, roles: list[str], *, audience: str | None = None, issuer: str | None = None, ttl_s: int = 300
    ) -> str:
        now = int(time.time())
        claims = {
            "iss": issuer or self.issuer,
            "aud": audience or self.audience,
            "sub": sub,
            "roles": roles,
            "iat": now,
            "exp": now + ttl_s,
            "client_id": self.client.client_id,
        }
        return jwt.encode({"alg": "RS256", "kid": "test-key-1", "typ": "at+jwt"}, claims, self.key)
