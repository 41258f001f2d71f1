"""Machines and their shadow sessions; a session's steps appear live while a person is observed."""

from __future__ import annotations

import re
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from rpa_mcp.console.base import ConsoleBase, guard
from rpa_mcp.console.live import ChangeFeed, Patch, sse_stream
from rpa_mcp.errors import RpaError

ID_RE = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")
MAX_SCANNED = 200  # competences read to find the ones a session became


def step_value(step: dict[str, Any]) -> str | None:
    """What the step enters: its value, else the typed text (never a secret)."""
    params = step.get("params") or {}
    if step.get("value") is not None:
        return str(step["value"])
    if params.get("secret"):
        return "(secret)"
    for key in ("text", "keys", "key", "url"):
        if params.get(key):
            return str(params[key])
    return None


class Machines:
    def __init__(self, base: ConsoleBase, feed: ChangeFeed) -> None:
        self.base, self.feed = base, feed

    async def index(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        try:
            machines = (await self.base.call(person, "list_machines", {}))["machines"]
            sessions = (await self.base.call(person, "list_sessions", {"active_only": False}))["sessions"]
        except RpaError as exc:
            return self.base.error_page(request, exc, person)
        by_machine: dict[str, list[dict[str, Any]]] = {}
        for s in sessions:
            by_machine.setdefault(s["machine_id"], []).append(s)
        return self.base.page(request, "machines.html", person=person, machines=machines, sessions=by_machine)

    async def _understanding(self, session_id: str) -> dict[str, Any] | None:
        shadow = self.base.services.shadow
        if shadow is None or not ID_RE.match(session_id):
            return None
        try:
            data: dict[str, Any] = await anyio.to_thread.run_sync(shadow.understanding, session_id, None)
        except RpaError:
            return None
        return data

    async def session(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        session_id = request.path_params["session_id"]
        if not ID_RE.match(session_id):
            return self.base.refused(request, 404, "No such session.", person)
        try:
            data = await self.base.call(person, "get_understanding", {"session_id": session_id})
        except RpaError as exc:
            return self.base.error_page(request, exc, person)
        became = await anyio.to_thread.run_sync(self._became, session_id)
        return self.base.page(
            request,
            "session.html",
            person=person,
            u=data,
            session_id=session_id,
            step_value=step_value,
            became=became,
        )

    def _became(self, session_id: str) -> list[dict[str, Any]]:
        """The competences whose current version was built from this session (their source says so)."""
        store = self.base.services.competences
        found = []
        for c in store.list().competences[:MAX_SCANNED]:
            try:
                workflow = store.get(c.name, status=c.status).workflow
            except (RpaError, ValueError, OSError):
                continue
            if (workflow.get("source") or {}).get("session_id") == session_id:
                found.append({"name": c.name, "slug": c.slug, "status": c.status, "version": c.version})
        return found

    async def live(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        session_id = request.path_params["session_id"]
        if await self._understanding(session_id) is None:
            return Response(status_code=404)

        async def render() -> Patch:
            data = await self._understanding(session_id)
            if data is None:
                return []
            html = self.base.html(request, "_session_steps.html", person=person, u=data, step_value=step_value)
            return [{"op": "replace", "id": "session-steps", "html": html}]

        return sse_stream(
            request,
            self.feed,
            (f"rpa://sessions/{session_id}/",),
            render,
            still_allowed=lambda: self.base.sessions.get(person.session_id) is not None,
        )
