"""The human approval page: a person (not the LLM client's identity) approves or rejects a proposal.

Server-rendered HTML, no script. Every value shown is HTML-escaped.

- Sign in by pasting one's own access token; the server checks it once and keeps a web
  session in the database. The cookie holds only the random session id (HttpOnly,
  SameSite=Strict, Secure and `__Host-` prefixed over https); the token is never stored.
- Only the roles approver or operator may use the pages; the identity that proposed a
  request may read it but never approve it (the ConfirmationService enforces it too).
- Every POST checks the Origin (or Referer) against this server and a CSRF token derived
  from the session's secret (HMAC, compared in constant time). Sign-in uses a
  double-submit token. Pages forbid framing and caching.
- Audit of approve/reject happens inside ConfirmationService.decide.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import html
import inspect
import json
import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from rpa_mcp.errors import RpaError
from rpa_mcp.identity import Caller
from rpa_mcp.store.web_sessions import WebSession, WebSessionStore

APPROVER_ROLES = frozenset({"approver", "operator"})
JTI_RE = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
NEXT_RE = re.compile(r"^/approvals(?:/[A-Za-z0-9_-]{1,128})?$")
MAX_FORM_BYTES = 32 * 1024
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",  # keeps Origin on same-origin POSTs ("no-referrer" would send "null")
    "cache-control": "no-store",
}
STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;color:#1b1b1b}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.35rem .5rem;text-align:left;
vertical-align:top}pre{background:#f5f5f5;padding:.6rem;overflow:auto}.add{color:#0a5d00}.del{color:#a00000}
.note{background:#fff4ce;padding:.6rem;border-left:4px solid #c99700}.error{background:#fde7e9;padding:.6rem;
border-left:4px solid #a00000}button{font-size:1rem;padding:.4rem 1.2rem;margin-right:.6rem}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ccc}
"""

VerifyToken = Callable[[str], "Caller | Awaitable[Caller | None] | None"]


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class FormError(Exception):
    pass


class ApprovalPages:
    def __init__(self, services: Any, verify: VerifyToken, sessions: WebSessionStore) -> None:
        self.services, self.verify, self.sessions = services, verify, sessions
        self.confirmations = services.confirmations

    # --- plumbing -----------------------------------------------------------------------
    def _secure(self, request: Request) -> bool:
        public = self.services.settings.public_url or ""
        return request.url.scheme == "https" or public.startswith("https://")

    def _cookie(self, request: Request, base: str) -> str:
        return f"__Host-{base}" if self._secure(request) else base

    def _set_cookie(self, request: Request, response: Response, base: str, value: str, max_age: int) -> None:
        response.set_cookie(
            self._cookie(request, base),
            value,
            max_age=max_age,
            path="/",
            secure=self._secure(request),
            httponly=True,
            samesite="strict",
        )

    def _clear_cookie(self, request: Request, response: Response, base: str) -> None:
        response.delete_cookie(
            self._cookie(request, base), path="/", secure=self._secure(request), httponly=True, samesite="strict"
        )

    def _session(self, request: Request) -> tuple[str, WebSession] | None:
        session_id = request.cookies.get(self._cookie(request, "rpa_approval"))
        session = self.sessions.get(session_id)
        return (session_id, session) if session_id and session else None

    def _origin_ok(self, request: Request) -> bool:
        allowed = {f"{request.url.scheme}://{request.url.netloc}".lower()}
        settings = self.services.settings
        allowed.update(o.rstrip("/").lower() for o in settings.allowed_origins)
        if settings.public_url:
            parts = urlsplit(settings.public_url)
            allowed.add(f"{parts.scheme}://{parts.netloc}".lower())
        origin = request.headers.get("origin")
        if origin is None:
            referer = request.headers.get("referer")
            if not referer:
                return False
            parts = urlsplit(referer)
            origin = f"{parts.scheme}://{parts.netloc}"
        return origin.lower() in allowed

    @staticmethod
    def _csrf(session: WebSession, purpose: str) -> str:
        return hmac.new(session.csrf_secret, purpose.encode("utf-8"), hashlib.sha256).hexdigest()

    def _csrf_ok(self, session: WebSession, purpose: str, submitted: str | None) -> bool:
        return bool(submitted) and hmac.compare_digest(self._csrf(session, purpose), str(submitted))

    @staticmethod
    async def _form(request: Request) -> dict[str, str]:
        """An urlencoded form, size-capped (no multipart: nothing here uploads files)."""
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                raise FormError("the form is too large")
        if not body:
            return {}
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            raise FormError("the form must be sent as application/x-www-form-urlencoded")
        try:
            fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=10, strict_parsing=False)
        except (UnicodeDecodeError, ValueError) as exc:
            raise FormError("the form could not be read") from exc
        return {k: v[0] for k, v in fields.items()}

    def _when(self, ts: float) -> str:
        stamp = dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        delta = int(ts - self.services.clock.now())
        rel = f"in {delta // 60} min {delta % 60} s" if delta >= 0 else f"{-delta // 60} min {-delta % 60} s ago"
        return f"{stamp} ({rel})"

    def _page(
        self, title: str, body: str, *, who: tuple[str, WebSession] | None = None, status: int = 200, head: str = ""
    ) -> HTMLResponse:
        bar = ""
        if who is not None:
            _, session = who
            bar = (
                f"<span>Signed in as <b>{esc(session.subject)}</b> ({esc(', '.join(sorted(session.roles)))})</span>"
                f'<form method="post" action="/approvals/logout"><input type="hidden" name="csrf" '
                f'value="{esc(self._csrf(session, "logout"))}"><button type="submit">Sign out</button></form>'
            )
        document = (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)} - rpa-mcp approvals'
            f'</title><meta name="viewport" content="width=device-width, initial-scale=1">{head}'
            f"<style>{STYLE}</style></head><body><header><h1>{esc(title)}</h1>{bar}</header>{body}</body></html>"
        )
        return HTMLResponse(document, status_code=status, headers=SECURITY_HEADERS)

    def _refused(self, status: int, message: str, who: tuple[str, WebSession] | None = None) -> HTMLResponse:
        titles = {400: "Bad request", 401: "Please sign in", 403: "Not allowed", 404: "Not found", 409: "Conflict"}
        body = f'<p class="error" role="alert">{esc(message)}</p><p><a href="/approvals">Pending approvals</a></p>'
        return self._page(titles.get(status, "Refused"), body, who=who, status=status)

    def _to_login(self, request: Request) -> HTMLResponse:
        """Not signed in: a same-site hop to the sign-in page (a meta refresh rather than a 3xx, so a
        SameSite=Strict cookie is sent if the person arrived from a link on another site)."""
        target = "/approvals/login?next=" + quote(request.url.path if NEXT_RE.match(request.url.path) else "/approvals")
        head = f'<meta http-equiv="refresh" content="0;url={esc(target)}">'
        body = f'<p>You need to sign in to see approvals. <a href="{esc(target)}">Sign in</a></p>'
        return self._page("Please sign in", body, status=401, head=head)

    def _may_approve(self, session: WebSession) -> bool:
        return bool(session.roles & APPROVER_ROLES)

    def _no_role(self, who: tuple[str, WebSession]) -> HTMLResponse:
        return self._refused(403, "Approving needs the approver or operator role; your identity has neither.", who)

    # --- sign in / out ------------------------------------------------------------------
    async def login_form(self, request: Request) -> Response:
        target = request.query_params.get("next", "/approvals")
        target = target if NEXT_RE.match(target) else "/approvals"
        if self._session(request) is not None:
            return RedirectResponse(target, status_code=303, headers=SECURITY_HEADERS)
        nonce = secrets.token_urlsafe(24)
        body = (
            "<p>Paste <b>your own</b> access token (the one issued to you as an approver or operator, "
            "never the token of the assistant that asked for approval).</p>"
            '<form method="post" action="/approvals/login">'
            f'<input type="hidden" name="login_csrf" value="{esc(nonce)}">'
            f'<input type="hidden" name="next" value="{esc(target)}">'
            '<p><label for="token">Access token</label><br><textarea id="token" name="token" rows="4" cols="70" '
            'autocomplete="off" spellcheck="false" required></textarea></p>'
            '<p><button type="submit">Sign in</button></p></form>'
            "<p>No token yet? Whoever runs this server mints one for you, on the server, in its data folder: "
            "<code>rpa-mcp token --sub YOUR-NAME --role approver</code> (it prints the token alone; "
            "add <code>--ttl 28800</code> for a whole shift). A token is personal: it records your name "
            "on every approval you give.</p>"
        )
        response = self._page("Sign in to approve", body)
        self._set_cookie(request, response, "rpa_login_csrf", nonce, max_age=1800)
        return response

    async def login(self, request: Request) -> Response:
        if not self._origin_ok(request):
            return self._refused(403, "This form must be sent from this server's own page.")
        try:
            form = await self._form(request)
        except FormError as exc:
            return self._refused(400, str(exc))
        expected = request.cookies.get(self._cookie(request, "rpa_login_csrf"), "")
        if not expected or not hmac.compare_digest(expected, form.get("login_csrf", "")):
            return self._refused(403, "The sign-in form expired or was not sent from this page; open it again.")
        client = request.client.host if request.client else "?"
        try:
            self.services.rate_limiter.check(f"web:{client}", "approvals-login")
        except RpaError as exc:
            return self._refused(429, f"Too many sign-in attempts from this address; {exc.message}.")
        token = form.get("token", "").strip()
        caller = None
        if token and len(token) <= 8192:
            try:
                caller = await _maybe_await(self.verify(token))
            except RpaError:
                caller = None
        if caller is None:
            return self._refused(401, "That token was not accepted (unknown, expired or malformed).")
        if not caller.has_any(APPROVER_ROLES):
            return self._refused(403, "Approving needs the approver or operator role; this token has neither.")
        old = request.cookies.get(self._cookie(request, "rpa_approval"))
        self.sessions.delete(old)  # a fresh id on every sign-in (no session fixation)
        session_id = self.sessions.create(caller.subject, frozenset(caller.roles), caller.auth)
        target = form.get("next", "/approvals")
        response = RedirectResponse(
            target if NEXT_RE.match(target) else "/approvals", status_code=303, headers=SECURITY_HEADERS
        )
        self._set_cookie(request, response, "rpa_approval", session_id, max_age=int(self.sessions.ttl_s))
        self._clear_cookie(request, response, "rpa_login_csrf")
        return response

    async def logout(self, request: Request) -> Response:
        who = self._session(request)
        if who is None:
            return RedirectResponse("/approvals/login", status_code=303, headers=SECURITY_HEADERS)
        try:
            form = await self._form(request)
        except FormError as exc:
            return self._refused(400, str(exc), who)
        if not self._origin_ok(request) or not self._csrf_ok(who[1], "logout", form.get("csrf")):
            return self._refused(403, "This form must be sent from this server's own page.", who)
        self.sessions.delete(who[0])
        response = RedirectResponse("/approvals/login", status_code=303, headers=SECURITY_HEADERS)
        self._clear_cookie(request, response, "rpa_approval")
        return response

    # --- pages ----------------------------------------------------------------------------
    async def pending(self, request: Request) -> Response:
        who = self._session(request)
        if who is None:
            return self._to_login(request)
        if not self._may_approve(who[1]):
            return self._no_role(who)
        views = await _maybe_await(self.confirmations.list_pending())
        if not views:
            return self._page("Pending approvals", "<p>Nothing is waiting for approval.</p>", who=who)
        rows = "".join(
            f'<tr><td><a href="/approvals/{esc(quote(v.jti))}">{esc(v.operation)}</a></td><td>{esc(v.summary)}</td>'
            f"<td>{esc(v.proposer)}{' (you)' if v.proposer == who[1].subject else ''}</td>"
            f"<td>{esc(self._when(v.expires_at))}</td></tr>"
            for v in views
        )
        table = (
            "<table><thead><tr><th>Operation</th><th>What will happen</th><th>Proposed by</th><th>Expires</th>"
            f"</tr></thead><tbody>{rows}</tbody></table>"
        )
        return self._page("Pending approvals", table, who=who)

    async def _view(self, request: Request) -> Any:
        jti = request.path_params["jti"]
        if not JTI_RE.match(jti):
            return None
        try:
            return await _maybe_await(self.confirmations.get_approval(jti))
        except RpaError:
            return None

    async def detail(self, request: Request) -> Response:
        who = self._session(request)
        if who is None:
            return self._to_login(request)
        if not self._may_approve(who[1]):
            return self._no_role(who)
        view = await self._view(request)
        if view is None:
            return self._refused(404, "No such request (it may have been removed).", who)
        return self._page(f"Request: {view.operation}", self._render(view, who[1]), who=who)

    def _render(self, view: Any, session: WebSession) -> str:
        facts = [
            ("Operation", view.operation),
            ("Risk", getattr(view, "risk", "")),
            ("Proposed by", view.proposer),
            ("Proposed at", self._when(view.created_at)),
            ("Expires", self._when(view.expires_at)),
            ("Status", view.status),
        ]
        if getattr(view, "approver", None):
            facts.append(("Decided by", view.approver))
        facts_html = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in facts)
        details = view.details or {}
        details_html = "".join(
            f"<tr><th>{esc(k)}</th><td>{esc(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))}</td></tr>"
            for k, v in details.items()
        )
        parts = [
            f'<p id="summary"><b>{esc(view.summary)}</b></p>',
            f"<h2>Request</h2><table>{facts_html}</table>",
        ]
        if details_html:
            parts.append(f'<h2>Details</h2><table id="details">{details_html}</table>')
        if view.diff:
            lines = []
            for line in str(view.diff).splitlines():
                cls = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
                lines.append(f'<span class="{cls}">{esc(line)}</span>' if cls else esc(line))
            parts.append('<h2>What changes</h2><pre id="diff">' + "\n".join(lines) + "</pre>")
        expired = view.expires_at < self.services.clock.now()
        if view.status != "pending":
            parts.append(f'<p class="note" id="decision">This request is {esc(view.status)}.</p>')
        elif expired:
            parts.append('<p class="note">This request expired; it must be proposed again.</p>')
        elif view.proposer == session.subject:
            parts.append(
                '<p class="note" id="own-request">You proposed this request, so you cannot approve it: '
                "another person with the approver or operator role must decide.</p>"
            )
        else:
            token = esc(self._csrf(session, f"decide:{view.jti}"))
            jti = esc(quote(view.jti))
            parts.append(
                f'<form method="post" action="/approvals/{jti}/approve" style="display:inline">'
                f'<input type="hidden" name="csrf" value="{token}"><button type="submit" id="approve">Approve</button>'
                f'</form><form method="post" action="/approvals/{jti}/reject" style="display:inline">'
                f'<input type="hidden" name="csrf" value="{token}"><button type="submit" id="reject">Reject</button>'
                "</form>"
            )
        parts.append('<p><a href="/approvals">All pending approvals</a></p>')
        return "".join(parts)

    async def approve(self, request: Request) -> Response:
        return await self._decide(request, approve=True)

    async def reject(self, request: Request) -> Response:
        return await self._decide(request, approve=False)

    async def _decide(self, request: Request, *, approve: bool) -> Response:
        who = self._session(request)
        if who is None:
            return self._refused(401, "Your session ended; sign in again, then decide.")
        session = who[1]
        try:
            form = await self._form(request)
        except FormError as exc:
            return self._refused(400, str(exc), who)
        jti = request.path_params["jti"]
        if not self._origin_ok(request):
            return self._refused(403, "This form must be sent from this server's own page.", who)
        if not JTI_RE.match(jti) or not self._csrf_ok(session, f"decide:{jti}", form.get("csrf")):
            return self._refused(403, "The form is missing its security token or it does not match; reload it.", who)
        if not self._may_approve(session):
            return self._no_role(who)
        view = await self._view(request)
        if view is None:
            return self._refused(404, "No such request (it may have been removed).", who)
        if view.proposer == session.subject:
            return self._refused(403, "You proposed this request, so you cannot approve or reject it yourself.", who)
        caller = Caller(session.subject, session.roles, via="web", auth=session.auth)
        try:
            await _maybe_await(self.confirmations.decide(jti, caller, approve))
        except RpaError as exc:
            return self._refused(exc.http_status if 400 <= exc.http_status < 500 else 409, exc.message, who)
        return RedirectResponse(f"/approvals/{quote(jti)}", status_code=303, headers=SECURITY_HEADERS)


def web_routes(
    services: Any,
    verify_access_token: VerifyToken,
    *,
    session_ttl_s: float = 3600,
    session_idle_s: float = 15 * 60,
) -> list[Route]:
    """Routes of the approval pages (mounted at the root of the app, under /approvals)."""
    sessions = WebSessionStore(services.db, services.clock, ttl_s=session_ttl_s, idle_s=session_idle_s)
    pages = ApprovalPages(services, verify_access_token, sessions)
    return [
        Route("/approvals/login", pages.login_form, methods=["GET"]),
        Route("/approvals/login", pages.login, methods=["POST"]),
        Route("/approvals/logout", pages.logout, methods=["POST"]),
        Route("/approvals", pages.pending, methods=["GET"]),
        Route("/approvals/{jti}", pages.detail, methods=["GET"]),
        Route("/approvals/{jti}/approve", pages.approve, methods=["POST"]),
        Route("/approvals/{jti}/reject", pages.reject, methods=["POST"]),
    ]
