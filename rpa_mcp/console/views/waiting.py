"""What waits, told on every console page: the menu's counts and a notice per new approval.

Every signed-in page opens this stream (`base.html`'s `#alerts`): when a request starts waiting
for a person, the approvers see a notice linking to it (and, if they allowed it, a desktop
notification from `console.js`) and the menu's counts change, whatever page they are on. The
person who proposed a request is not told of it. Webhooks and e-mail are `approval_alerts.py`.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from rpa_mcp.confirmation.service import APPROVALS_URI
from rpa_mcp.console.base import APPROVER_ROLES, ConsoleBase, Person, guard
from rpa_mcp.console.live import ChangeFeed, Patch, sse_stream

REPLAYS_URI = "rpa://replays"  # (a prefix: every replay's changes, pauses among them)


class Waiting:
    def __init__(self, base: ConsoleBase, feed: ChangeFeed) -> None:
        self.base, self.feed = base, feed
        self.confirmations = base.services.confirmations

    def _state(self, person: Person) -> tuple[dict[str, int], list[Any]]:
        views = self.confirmations.list_pending() if person.may(APPROVER_ROLES) else []
        caller = person.caller()
        others = [v for v in views if not self.confirmations.proposed_by(v, caller)]
        return self.base.waiting(person), others

    async def live(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        counts, views = await anyio.to_thread.run_sync(self._state, person)
        told = {v.jti for v in views}  # what the page showed already
        last = [counts]

        async def render() -> Patch:
            counts, views = await anyio.to_thread.run_sync(self._state, person)
            patch: Patch = []
            for name, key in (("approvals", "approvals"), ("replays", "paused")):
                if counts[key] != last[0][key]:
                    html = self.base.html(request, "_count.html", person=person, name=name, count=counts[key])
                    patch.append({"op": "replace", "id": f"count-{name}", "html": html})
            last[0] = counts
            for view in views:
                if view.jti not in told:
                    told.add(view.jti)
                    html = self.base.html(request, "_alert.html", person=person, v=view)
                    patch.append({"op": "append", "parent": "alerts", "id": f"alert-{view.jti}", "html": html})
            return patch

        return sse_stream(
            request,
            self.feed,
            (APPROVALS_URI, REPLAYS_URI),
            render,
            still_allowed=lambda: self.base.sessions.get(person.session_id) is not None,
        )
