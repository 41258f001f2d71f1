"""What every console page shares: templates, security headers, the sign-in session, CSRF, forms.

- Pages are Jinja2 templates with autoescaping on (every value is HTML-escaped unless a
  template says otherwise, and none does with data).
- The Content-Security-Policy allows nothing inline: scripts and styles come from
  `/console/static/` only, images from this server, live updates from this server.
- The session cookie holds only a random id (HttpOnly, SameSite=Strict; Secure and
  `__Host-` prefixed over https); the database keeps its sha256 (store/web_sessions.py).
- Every POST checks the Origin (or Referer) against this server and a CSRF token derived
  from the session's secret and the form's purpose (HMAC, compared in constant time).
- Every action goes through the registry's `dispatch()`, as the signed-in person.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from rpa_mcp.console import words
from rpa_mcp.console.i18n import LANGUAGES, translator
from rpa_mcp.errors import RpaError
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller, Registry
from rpa_mcp.replay.model import PAUSE_HELP
from rpa_mcp.store.web_sessions import WebSession, WebSessionStore

MAX_FORM_BYTES = 32 * 1024
SESSION_COOKIE = "rpa_console"
LANG_COOKIE = "rpa_lang"
CONSOLE_ROLES = frozenset({"operator", "approver", "viewer"})
APPROVER_ROLES = frozenset({"approver", "operator"})
NEXT_RE = re.compile(r"^/console(?:/[A-Za-z0-9_.~%/-]{0,300})?(?:\?[A-Za-z0-9_.~%=&+-]{0,300})?$")


def security_headers(form_targets: str = "") -> dict[str, str]:
    csp = (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        f"form-action 'self'{form_targets}; frame-ancestors 'none'; base-uri 'none'"
    )
    return {
        "content-security-policy": csp,
        "x-frame-options": "DENY",
        "x-content-type-options": "nosniff",
        "referrer-policy": "same-origin",  # keeps Origin on same-origin POSTs
        "cache-control": "no-store",
    }


SECURITY_HEADERS = security_headers()


class FormError(Exception):
    pass


@dataclass(frozen=True)
class Person:
    """The signed-in person of a request."""

    session_id: str
    session: WebSession

    @property
    def subject(self) -> str:
        return self.session.subject

    @property
    def roles(self) -> frozenset[str]:
        return self.session.roles

    def may(self, roles: frozenset[str]) -> bool:
        return bool(self.session.roles & roles)

    def caller(self) -> Caller:
        session = self.session
        return Caller(session.subject, session.roles, via="web", auth=session.auth, issuer=session.issuer)


def safe_next(target: str | None, default: str = "/console") -> str:
    return target if target and NEXT_RE.match(target) and "//" not in target else default


class ConsoleBase:
    """Plumbing shared by the console's views (composed, not inherited by the views)."""

    def __init__(self, services: Any, registry: Registry, sessions: WebSessionStore, *, static_version: str) -> None:
        self.services, self.registry, self.sessions = services, registry, sessions
        self.static_version = static_version
        self.env = Environment(
            loader=PackageLoader("rpa_mcp.console", "templates"),
            autoescape=select_autoescape(["html"], default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters["when"] = self._when
        self.env.filters["ago"] = self._ago
        self.env.filters["json"] = lambda value: json.dumps(value, ensure_ascii=False, default=str)
        self.env.filters.update(words.filters())
        self.env.globals.update(
            checker_summary=words.checker_summary,
            handled_dialog=words.handled_dialog,
            workflow_steps=words.workflow_steps,
            live_states=words.LIVE_STATES,
            approver_roles=APPROVER_ROLES,
        )

    # --- language --------------------------------------------------------------------------
    @staticmethod
    def language(request: Request) -> str:
        chosen = request.cookies.get(LANG_COOKIE)
        if chosen in LANGUAGES:
            return chosen
        for part in request.headers.get("accept-language", "").split(","):
            code = part.split(";")[0].strip().lower()[:2]
            if code in LANGUAGES:
                return code
        return "en"

    # --- cookies and the session ---------------------------------------------------------------
    def secure(self, request: Request) -> bool:
        public = self.services.settings.public_url or ""
        return request.url.scheme == "https" or public.startswith("https://")

    def cookie_name(self, request: Request, base: str) -> str:
        return f"__Host-{base}" if self.secure(request) else base

    def set_cookie(self, request: Request, response: Response, base: str, value: str, max_age: int) -> None:
        response.set_cookie(
            self.cookie_name(request, base),
            value,
            max_age=max_age,
            path="/",
            secure=self.secure(request),
            httponly=True,
            samesite="strict" if base != "rpa_oidc" else "lax",  # the provider's redirect back is cross-site
        )

    def clear_cookie(self, request: Request, response: Response, base: str) -> None:
        response.delete_cookie(
            self.cookie_name(request, base),
            path="/",
            secure=self.secure(request),
            httponly=True,
            samesite="strict" if base != "rpa_oidc" else "lax",
        )

    def person(self, request: Request) -> Person | None:
        session_id = request.cookies.get(self.cookie_name(request, SESSION_COOKIE))
        session = self.sessions.get(session_id)
        return Person(session_id, session) if session_id and session else None

    # --- CSRF and forms ------------------------------------------------------------------------
    def origin_ok(self, request: Request) -> bool:
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
    def csrf(session: WebSession, purpose: str) -> str:
        return hmac.new(session.csrf_secret, purpose.encode("utf-8"), hashlib.sha256).hexdigest()

    def csrf_ok(self, session: WebSession, purpose: str, submitted: str | None) -> bool:
        return bool(submitted) and hmac.compare_digest(self.csrf(session, purpose), str(submitted))

    @staticmethod
    async def form(request: Request) -> dict[str, str]:
        """An urlencoded form, size-capped (nothing in the console uploads files)."""
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
            fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20, strict_parsing=False)
        except (UnicodeDecodeError, ValueError) as exc:
            raise FormError("the form could not be read") from exc
        return {k: v[0] for k, v in fields.items()}

    async def checked_form(self, request: Request, person: Person, purpose: str) -> dict[str, str] | Response:
        """The form of a POST, or the refusal page (bad origin, bad or missing CSRF token, unreadable form)."""
        try:
            form = await self.form(request)
        except FormError as exc:
            return self.refused(request, 400, str(exc), person)
        if not self.origin_ok(request):
            return self.refused(request, 403, "This form must be sent from this server's own page.", person)
        if not self.csrf_ok(person.session, purpose, form.get("csrf")):
            return self.refused(
                request, 403, "The form is missing its security token or it does not match; reload the page.", person
            )
        return form

    # --- dispatch as the person ------------------------------------------------------------------
    async def call(self, person: Person, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run a registry operation as the signed-in person (same policy as MCP and REST)."""
        return await dispatch(self.registry, self.services, name, arguments, person.caller(), surface="rest")

    # --- rendering -------------------------------------------------------------------------------
    @staticmethod
    def _when(ts: float | None) -> Markup | str:
        """A `<time>` in UTC; console.js rewrites it in the browser's own time zone (no inline script)."""
        if ts is None:
            return "-"
        moment = dt.datetime.fromtimestamp(float(ts), dt.UTC)
        iso, text = moment.isoformat(timespec="seconds"), moment.strftime("%Y-%m-%d %H:%M:%S UTC")
        return Markup('<time datetime="{}" data-local="1">{}</time>').format(escape(iso), escape(text))

    def waiting(self, person: Person | None) -> dict[str, int]:
        """What waits for this person (the menu's counts): pending approvals, paused replays."""
        if person is None:
            return {"approvals": 0, "paused": 0}
        approvals = len(self.services.confirmations.list_pending()) if person.may(APPROVER_ROLES) else 0
        replay = self.services.replay
        paused = len(replay.store.list_replays(states=["paused"], limit=500)) if replay is not None else 0
        return {"approvals": approvals, "paused": paused}

    def _ago(self, ts: float | None) -> str:
        if ts is None:
            return "-"
        delta = int(self.services.clock.now() - float(ts))
        sign = "" if delta >= 0 else "-"
        delta = abs(delta)
        if delta < 120:
            return f"{sign}{delta} s"
        if delta < 7200:
            return f"{sign}{delta // 60} min"
        return f"{sign}{delta // 3600} h"

    def html(self, request: Request, template: str, *, person: Person | None, status: int = 200, **context: Any) -> str:
        lang = self.language(request)
        tr = translator(lang)
        csrf: Callable[[str], str] = (lambda purpose: self.csrf(person.session, purpose)) if person else (lambda p: "")
        return self.env.get_template(template).render(
            _=tr,
            lang=lang,
            person=person,
            csrf=csrf,
            static=f"/console/static/{{}}?v={self.static_version}",
            path=request.url.path,
            quote=quote,
            pause_help=lambda reason: tr(reason) if lang == "fr" else PAUSE_HELP.get(str(reason), str(reason)),
            now=self.services.clock.now(),
            **context,
        )

    def page(
        self,
        request: Request,
        template: str,
        *,
        person: Person | None,
        status: int = 200,
        headers: dict[str, str] | None = None,
        **context: Any,
    ) -> HTMLResponse:
        body = self.html(request, template, person=person, waiting=self.waiting(person), **context)
        return HTMLResponse(body, status_code=status, headers={**SECURITY_HEADERS, **(headers or {})})

    def refused(self, request: Request, status: int, message: str, person: Person | None = None) -> HTMLResponse:
        return self.page(request, "refused.html", person=person, status=status, status_code=status, message=message)

    def error_page(self, request: Request, exc: RpaError, person: Person | None) -> HTMLResponse:
        status = exc.http_status if 400 <= exc.http_status < 500 else 409
        return self.refused(request, status, exc.message, person)

    def to_login(self, request: Request) -> HTMLResponse:
        """Not signed in: a same-site hop to the sign-in page (a meta refresh rather than a 3xx, so a
        SameSite=Strict cookie is sent if the person arrived from a link on another site)."""
        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        target = "/console/login?next=" + quote(safe_next(here), safe="/")
        return self.page(request, "to_login.html", person=None, status=401, target=target)

    def redirect(self, url: str) -> RedirectResponse:
        return RedirectResponse(url, status_code=303, headers=SECURITY_HEADERS)


def guard(base: ConsoleBase, request: Request, roles: frozenset[str] = CONSOLE_ROLES) -> Person | Response:
    """The signed-in person with one of `roles`, or the response that sends them away."""
    person = base.person(request)
    if person is None:
        return base.to_login(request)
    if not person.may(roles):
        needed = " or ".join(sorted(roles))
        return base.refused(request, 403, f"This page needs the role {needed}; your identity has none of them.", person)
    return person
