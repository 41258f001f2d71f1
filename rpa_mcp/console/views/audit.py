"""Audit: filter the log by who, what and when; verify the chain from the page."""

from __future__ import annotations

import datetime as dt

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from rpa_mcp.console.base import APPROVER_ROLES, ConsoleBase, guard

MAX_ROWS = 500


def parse_when(value: str | None, *, end: bool = False) -> float | None:
    """`YYYY-MM-DD` or `YYYY-MM-DDTHH:MM` (UTC) -> epoch seconds; a bare date's end is its last second."""
    if not value or len(value) > 32:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    if end and len(value) <= 10:
        parsed += dt.timedelta(days=1, seconds=-1)
    return parsed.timestamp()


class Audit:
    def __init__(self, base: ConsoleBase) -> None:
        self.base = base

    async def index(self, request: Request, *, check: object | None = None) -> Response:
        person = guard(self.base, request, APPROVER_ROLES)
        if isinstance(person, Response):
            return person
        q = request.query_params
        who, what = (q.get("who") or "")[:200], (q.get("what") or "")[:200]
        since, until = parse_when(q.get("from")), parse_when(q.get("to"), end=True)
        audit = self.base.services.audit
        rows = await anyio.to_thread.run_sync(
            lambda: audit.search(actor=who or None, operation=what or None, since=since, until=until, limit=MAX_ROWS)
        )
        return self.base.page(
            request,
            "audit.html",
            person=person,
            rows=rows,
            who=who,
            what=what,
            since=q.get("from") or "",
            until=q.get("to") or "",
            check=check,
            max_rows=MAX_ROWS,
        )

    async def verify(self, request: Request) -> Response:
        person = guard(self.base, request, APPROVER_ROLES)
        if isinstance(person, Response):
            return person
        form = await self.base.checked_form(request, person, "audit-verify")
        if isinstance(form, Response):
            return form
        check = await anyio.to_thread.run_sync(self.base.services.audit.verify)
        self.base.services.audit.record(
            actor=person.subject, operation="audit_verify", args={}, outcome="ok" if check.ok else "broken", via="web"
        )
        return await self.index(request, check=check)
