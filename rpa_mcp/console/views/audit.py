"""Audit: filter the log by who, what and when, a page at a time; verify the chain from the page.

The console's own page views (successful reads through the console) are left out of the list
unless asked for: they stay in the log, counted per person, page and hour (one row each, with
the number of views: store/audit/views.py), and do not bury the decisions.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from rpa_mcp.console.base import APPROVER_ROLES, ConsoleBase, guard
from rpa_mcp.store.audit.views import views_of

PAGE_ROWS = 50


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
        before = q.get("before") or ""
        before_id = int(before) if before.isdigit() and len(before) < 16 else None
        views = q.get("views") == "1"
        reads = {op.name for op in self.base.registry.operations.values() if op.risk == "read"}
        audit = self.base.services.audit
        found = await anyio.to_thread.run_sync(
            lambda: audit.search(
                actor=who or None,
                operation=what or None,
                since=since,
                until=until,
                limit=PAGE_ROWS + 1,
                before_id=before_id,
                hide_reads=None if views else ("web", reads),
            )
        )
        rows, more = found[:PAGE_ROWS], len(found) > PAGE_ROWS
        for row in rows:
            row["page_views"] = views_of(row)
        filters = {"who": who, "what": what, "from": q.get("from") or "", "to": q.get("to") or ""}
        filters = {k: v for k, v in filters.items() if v} | ({"views": "1"} if views else {})
        older = urlencode({**filters, "before": rows[-1]["id"]}) if more and rows else None
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
            views=views,
            older=older,
            newest=urlencode(filters) if before_id is not None else None,
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
