"""The dialog catalog: entries, their policies, and which ones a workflow may override."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rpa_mcp.console.base import ConsoleBase, guard
from rpa_mcp.errors import RpaError


class Dialogs:
    def __init__(self, base: ConsoleBase) -> None:
        self.base = base

    async def index(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        try:
            got = await self.base.call(person, "get_catalog", {"name": "dialogs"})
        except RpaError as exc:
            return self.base.error_page(request, exc, person)
        entries = got["catalog"].get("dialogs") or []
        return self.base.page(
            request, "dialogs.html", person=person, entries=entries, lang_key=self.base.language(request)
        )
