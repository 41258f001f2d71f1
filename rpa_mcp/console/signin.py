"""Signing in and out of the console.

- Through the hospital's identity provider (OpenID Connect, authorization code + PKCE):
  `/console/login/oidc` keeps the verifier and nonce server-side under the `state` and
  sends the browser to the provider; `/console/oidc/callback` takes that record exactly
  once (it must match the state cookie set on this browser), exchanges the code and starts
  a console session with the roles the provider's claim gives.
- With a pasted console credential, for development (`rpa-mcp token --console`): it is
  checked once and never stored. Access tokens (for `/mcp` and `/api/v1`: an LLM client's,
  an agent's, the identity provider's) are refused with a message that says so: whoever holds
  one must never act here as a person.

Every sign-in gets a fresh session id (no fixation). Sign-in attempts are rate limited per
client address.
"""

from __future__ import annotations

import hmac
import inspect
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from rpa_mcp.auth.console_credentials import ConsoleCredentials
from rpa_mcp.auth.provider import ProviderUnavailable
from rpa_mcp.auth.throttle import count_failure
from rpa_mcp.console.base import CONSOLE_ROLES, SECURITY_HEADERS, SESSION_COOKIE, ConsoleBase, FormError, safe_next
from rpa_mcp.console.oidc import OidcSignIn, SignInFailed
from rpa_mcp.errors import RpaError
from rpa_mcp.ops.registry import Caller
from rpa_mcp.store.console import PendingLogin, PendingLogins

logger = logging.getLogger(__name__)
VerifyToken = Callable[[str], "Caller | Awaitable[Caller | None] | None"]  # an access token's check
LOGIN_CSRF_COOKIE = "rpa_login_csrf"
OIDC_COOKIE = "rpa_oidc"
NO_ROLE = "The console needs the role operator, approver or viewer; this identity has none of them."
API_TOKEN = (
    "That is an access token for /mcp and /api/v1 (held by an assistant or a program), not a console credential: "
    "it never signs in here. Ask an administrator for your own: rpa-mcp token --console --sub YOUR-NAME --role approver"
)
NOT_ACCEPTED = "That console credential was not accepted (unknown, expired or malformed)."


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class SignIn:
    def __init__(
        self,
        base: ConsoleBase,
        credentials: ConsoleCredentials | None,
        oidc: OidcSignIn | None,
        pending: PendingLogins,
        *,
        access_token: VerifyToken | None = None,
        provider_name: str = "",
    ) -> None:
        """`credentials`: the console credentials' check (None: no token sign-in); `access_token`: the
        APIs' check, only to tell a person who pasted an access token what they did."""
        self.base, self.credentials, self.oidc, self.pending = base, credentials, oidc, pending
        self.access_token = access_token
        self.provider_name = provider_name or (oidc.issuer if oidc else "")

    def _limited(self, request: Request) -> Response | None:
        limiter = self.base.services.rate_limiter
        if limiter is None:
            return None
        client = request.client.host if request.client else "?"
        try:
            limiter.check(f"web:{client}", "console-login")
        except RpaError as exc:
            return self.base.refused(request, 429, f"Too many sign-in attempts from this address; {exc.message}.")
        return None

    def _start_session(self, request: Request, caller: Caller, target: str, *, hop: bool = False) -> Response:
        """A new session; `hop` answers with a same-site page that moves on (after a cross-site redirect
        from the provider, a SameSite=Strict cookie is only sent by a navigation that starts here)."""
        old = request.cookies.get(self.base.cookie_name(request, SESSION_COOKIE))
        self.base.sessions.delete(old)  # a fresh id on every sign-in (no session fixation)
        session_id = self.base.sessions.create(
            caller.subject, frozenset(caller.roles), caller.auth, issuer=caller.issuer
        )
        response: Response
        if hop:
            response = self.base.page(request, "hop.html", person=None, target=safe_next(target))
        else:
            response = RedirectResponse(safe_next(target), status_code=303, headers=SECURITY_HEADERS)
        self.base.set_cookie(request, response, SESSION_COOKIE, session_id, max_age=int(self.base.sessions.ttl_s))
        return response

    # --- the page -------------------------------------------------------------------------------
    async def form(self, request: Request) -> Response:
        target = safe_next(request.query_params.get("next"))
        if self.base.person(request) is not None:
            return self.base.redirect(target)
        nonce = secrets.token_urlsafe(24)
        response = self.base.page(
            request,
            "login.html",
            person=None,
            next=target,
            nonce=nonce,
            oidc=self.provider_name if self.oidc else None,
            token_sign_in=self.credentials is not None,
        )
        self.base.set_cookie(request, response, LOGIN_CSRF_COOKIE, nonce, max_age=1800)
        return response

    # --- console credential (development) --------------------------------------------------------
    async def with_token(self, request: Request) -> Response:
        base = self.base
        if self.credentials is None:
            return base.refused(request, 404, "Sign-in with a console credential is not enabled on this server.")
        if not base.origin_ok(request):
            return base.refused(request, 403, "This form must be sent from this server's own page.")
        try:
            form = await base.form(request)
        except FormError as exc:
            return base.refused(request, 400, str(exc))
        expected = request.cookies.get(base.cookie_name(request, LOGIN_CSRF_COOKIE), "")
        if not expected or not hmac.compare_digest(expected, form.get("login_csrf", "")):
            return base.refused(request, 403, "The sign-in form expired or was not sent from this page; open it again.")
        token = form.get("token", "").strip()
        caller = self.credentials.verify(token) if token and len(token) <= 16384 else None
        if caller is None and token and await self._is_access_token(token):
            return base.refused(request, 401, API_TOKEN)  # genuine, of the wrong kind: not a guess, not counted
        if caller is None:  # only failures count: a valid credential is never refused (a proxy shares one address)
            throttle = base.services.sign_in_throttle
            address = request.client.host if request.client else "?"
            retry = await count_failure(throttle, address) if throttle else None  # off the event loop
            if retry is not None:
                return base.refused(
                    request, 429, f"Too many failed sign-ins from this address; try again in {int(retry) + 1} s."
                )
            return base.refused(request, 401, NOT_ACCEPTED)
        if not caller.has_any(CONSOLE_ROLES):
            return base.refused(request, 403, NO_ROLE)
        response = self._start_session(request, caller, form.get("next", "/console"))
        base.clear_cookie(request, response, LOGIN_CSRF_COOKIE)
        return response

    async def _is_access_token(self, token: str) -> bool:
        if self.access_token is None or len(token) > 16384:
            return False
        try:
            return await _maybe_await(self.access_token(token)) is not None
        except RpaError:
            return False

    # --- OpenID Connect -------------------------------------------------------------------------
    def _redirect_uri(self, request: Request) -> str:
        public = self.base.services.settings.public_url
        root = public.rstrip("/") if public else f"{request.url.scheme}://{request.url.netloc}"
        return f"{root}/console/oidc/callback"

    async def oidc_start(self, request: Request) -> Response:
        if self.oidc is None:
            return self.base.refused(request, 404, "Sign-in through an identity provider is not configured.")
        limited = self._limited(request)
        if limited is not None:
            return limited
        try:
            start = await self.oidc.begin(self._redirect_uri(request))
        except ProviderUnavailable as exc:
            logger.warning("identity provider unavailable: %s", exc)
            return self.base.refused(request, 503, "The identity provider cannot be reached; try again later.")
        target = safe_next(request.query_params.get("next"))
        self.pending.add(start.state, PendingLogin(start.code_verifier, start.nonce, target))
        response = RedirectResponse(start.url, status_code=302, headers=SECURITY_HEADERS)
        # Binds the sign-in to this browser: the callback must come back with the same state.
        self.base.set_cookie(request, response, OIDC_COOKIE, start.state, max_age=int(self.pending.ttl_s))
        return response

    async def oidc_callback(self, request: Request) -> Response:
        base = self.base
        if self.oidc is None:
            return base.refused(request, 404, "Sign-in through an identity provider is not configured.")
        state = request.query_params.get("state", "")
        cookie = request.cookies.get(base.cookie_name(request, OIDC_COOKIE), "")
        login = self.pending.take(state) if cookie and hmac.compare_digest(cookie, state) else None
        if login is None:
            return base.refused(request, 400, "The sign-in at the identity provider did not complete; try again.")
        code = request.query_params.get("code", "")
        if not code or len(code) > 4096 or request.query_params.get("error"):
            return base.refused(request, 400, "The sign-in at the identity provider did not complete; try again.")
        try:
            identity = await self.oidc.finish(
                code=code,
                redirect_uri=self._redirect_uri(request),
                code_verifier=login.code_verifier,
                nonce=login.nonce,
            )
        except (SignInFailed, ProviderUnavailable) as exc:
            logger.warning("OIDC sign-in refused: %s", exc)
            return base.refused(request, 401, "The sign-in at the identity provider did not complete; try again.")
        if not identity.roles & CONSOLE_ROLES:
            return base.refused(request, 403, NO_ROLE)
        caller = Caller(identity.subject, identity.roles, via="web", auth="oidc", issuer=self.oidc.issuer)
        response = self._start_session(request, caller, login.next, hop=True)
        base.clear_cookie(request, response, OIDC_COOKIE)
        return response

    # --- sign out -------------------------------------------------------------------------------
    async def logout(self, request: Request) -> Response:
        person = self.base.person(request)
        if person is None:
            return self.base.redirect("/console/login")
        form = await self.base.checked_form(request, person, "logout")
        if isinstance(form, Response):
            return form
        self.base.sessions.delete(person.session_id)
        response = self.base.redirect("/console/login")
        self.base.clear_cookie(request, response, SESSION_COOKIE)
        return response
