"""The operator console at `/console`: a web application for the people who supervise.

Machines and their sessions (steps appearing live), competences (versions, differences,
promotion and deletion), replays (a live timeline of every action and the answers to a
pause), approvals (with the workflow's steps and recorded target crops), the audit log and
the dialog catalog. Server-rendered Jinja2 templates, live updates over server-sent events,
CSRF on every form, a strict Content-Security-Policy, English and French.

Every action goes through the registry's `dispatch()` as the signed-in person; reads come
from operations or from the area services. `console_routes()` is the only entry point.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from rpa_mcp.auth.console_credentials import ConsoleCredentials
from rpa_mcp.console.base import APPROVER_ROLES, LANG_COOKIE, ConsoleBase, guard, safe_next
from rpa_mcp.console.i18n import LANGUAGES
from rpa_mcp.console.live import ChangeFeed
from rpa_mcp.console.oidc import OidcSignIn
from rpa_mcp.console.signin import SignIn, VerifyToken
from rpa_mcp.console.views.approvals import Approvals
from rpa_mcp.console.views.audit import Audit
from rpa_mcp.console.views.competences import Competences
from rpa_mcp.console.views.dialogs import Dialogs
from rpa_mcp.console.views.machines import Machines
from rpa_mcp.console.views.replays import Replays
from rpa_mcp.console.views.waiting import Waiting
from rpa_mcp.errors import RpaError
from rpa_mcp.ops.registry import Registry
from rpa_mcp.store.console import PendingLogins, ProposalTokens
from rpa_mcp.store.web_sessions import WebSessionStore

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


def _static_files() -> dict[str, tuple[bytes, str]]:
    return {p.name: (p.read_bytes(), STATIC_TYPES[p.suffix]) for p in STATIC_DIR.iterdir() if p.suffix in STATIC_TYPES}


def console_routes(
    services: Any,
    registry: Registry,
    credentials: ConsoleCredentials | None,
    *,
    access_token: VerifyToken | None = None,
    oidc: OidcSignIn | None = None,
    session_ttl_s: float = 8 * 3600,
    session_idle_s: float = 30 * 60,
) -> list[BaseRoute]:
    """Routes of the console (and the old /approvals URLs, redirected to it).

    People sign in with OIDC, or with a console credential when `credentials` is given; never with
    an access token (`access_token` only tells them apart, to say so).
    """
    files = _static_files()
    version = hashlib.sha256(b"".join(body for body, _ in files.values())).hexdigest()[:12]
    sessions = WebSessionStore(services.db, services.clock, ttl_s=session_ttl_s, idle_s=session_idle_s)
    base = ConsoleBase(services, registry, sessions, static_version=version)
    feed = ChangeFeed(services.notifier)
    tokens = ProposalTokens(services.db, services.clock)
    signin = SignIn(base, credentials, oidc, PendingLogins(services.db, services.clock), access_token=access_token)
    approvals, competences = Approvals(base, tokens, feed), Competences(base, tokens)
    machines, replays, audit, dialogs = Machines(base, feed), Replays(base, feed), Audit(base), Dialogs(base)
    waiting = Waiting(base, feed)

    async def home(request: Request) -> Response:
        """What waits for the person: the approvals they may decide, the replays paused for an answer."""
        person = guard(base, request)
        if isinstance(person, Response):
            return person
        approvals = services.confirmations.list_pending() if person.may(APPROVER_ROLES) else None
        paused = services.replay.store.list_replays(states=["paused"], limit=200) if services.replay else []
        ttl = int(services.settings.mcp_confirmation_ttl)
        return base.page(
            request, "home.html", person=person, approvals=approvals, paused=paused, ttl_minutes=max(1, ttl // 60)
        )

    async def not_found(request: Request) -> Response:
        return base.refused(request, 404, "This console address does not exist.", base.person(request))

    async def static(request: Request) -> Response:
        found = files.get(request.path_params["name"])
        if found is None:
            return Response(status_code=404)
        body, media = found
        return Response(body, media_type=media, headers={"cache-control": "public, max-age=31536000, immutable"})

    async def screenshot(request: Request) -> Response:
        person = guard(base, request)
        if isinstance(person, Response):
            return person
        shot_id = request.path_params["shot_id"]
        if services.traces is None or not shot_id.replace("-", "").replace("_", "").isalnum() or len(shot_id) > 100:
            return Response(status_code=404)
        try:
            info = services.traces.screenshot_info(shot_id) or {}
            data = services.traces.get_screenshot(shot_id)
        except RpaError:
            return Response(status_code=404)
        mime = str(info.get("mime") or "image/png")
        if mime not in ("image/png", "image/jpeg"):
            return Response(status_code=404)
        return Response(data, media_type=mime, headers={"cache-control": "private, max-age=3600"})

    async def language(request: Request) -> Response:
        code = request.path_params["code"]
        response = RedirectResponse(safe_next(request.query_params.get("next")), status_code=303)
        if code in LANGUAGES:
            response.set_cookie(LANG_COOKIE, code, max_age=365 * 86400, path="/", samesite="lax", httponly=True)
        return response

    def legacy(target: str) -> Any:
        async def endpoint(request: Request) -> Response:
            jti = request.path_params.get("jti")
            return RedirectResponse(target.format(jti=quote(jti or "", safe="")), status_code=308)

        return endpoint

    return [
        Route("/console", home, methods=["GET"]),
        Route("/console/static/{name}", static, methods=["GET"]),
        Route("/console/lang/{code}", language, methods=["GET"]),
        Route("/console/login", signin.form, methods=["GET"]),
        Route("/console/login", signin.with_token, methods=["POST"]),
        Route("/console/login/oidc", signin.oidc_start, methods=["GET"]),
        Route("/console/oidc/callback", signin.oidc_callback, methods=["GET"]),
        Route("/console/logout", signin.logout, methods=["POST"]),
        Route("/console/machines", machines.index, methods=["GET"]),
        Route("/console/sessions/{session_id}", machines.session, methods=["GET"]),
        Route("/console/live/sessions/{session_id}", machines.live, methods=["GET"]),
        Route("/console/screenshots/{shot_id}", screenshot, methods=["GET"]),
        Route("/console/competences", competences.index, methods=["GET"]),
        Route("/console/competences/{status}/{name}", competences.detail, methods=["GET"]),
        Route("/console/competences/{status}/{name}/{verb}", competences.act, methods=["POST"]),
        Route("/console/replays", replays.index, methods=["GET"]),
        Route("/console/replays/{replay_id}", replays.detail, methods=["GET"]),
        Route("/console/replays/{replay_id}/crops/{action_id}/{n:int}", replays.crop, methods=["GET"]),
        Route("/console/replays/{replay_id}/evidence.json", replays.evidence_bundle, methods=["GET"]),
        Route("/console/replays/{replay_id}/{verb}", replays.act, methods=["POST"]),
        Route("/console/live/replays/{replay_id}", replays.live, methods=["GET"]),
        Route("/console/approvals", approvals.pending, methods=["GET"]),
        Route("/console/live/approvals", approvals.live, methods=["GET"]),
        Route("/console/live/waiting", waiting.live, methods=["GET"]),
        Route("/console/approvals/{jti}", approvals.detail, methods=["GET"]),
        Route("/console/approvals/{jti}/approve", approvals.approve, methods=["POST"]),
        Route("/console/approvals/{jti}/reject", approvals.reject, methods=["POST"]),
        Route("/console/approvals/{jti}/apply", competences.apply_kept, methods=["POST"]),
        Route("/console/audit", audit.index, methods=["GET"]),
        Route("/console/audit/verify", audit.verify, methods=["POST"]),
        Route("/console/dialogs", dialogs.index, methods=["GET"]),
        # The approval URLs handed out before the console existed.
        Route("/approvals", legacy("/console/approvals"), methods=["GET"]),
        Route("/approvals/login", legacy("/console/login"), methods=["GET"]),
        Route("/approvals/{jti}", legacy("/console/approvals/{jti}"), methods=["GET"]),
        # Last: any other console address is a styled, translated 404.
        Route("/console/{rest:path}", not_found, methods=["GET", "POST"]),
    ]


__all__ = ["console_routes"]
