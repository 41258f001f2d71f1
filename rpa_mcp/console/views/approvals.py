"""Approvals: pending proposals, each with what it will do, and the decision.

For a replay the page lists the workflow's steps with each step's recorded target crop and
parameters (what will be clicked and typed); for a deletion the steps that go; for a new
version or a promotion the difference with what it replaces. The person who proposed a
request (under this identity or one linked to it) may read it but never decide it
(ConfirmationService.decide refuses it too, and audits every decision).
"""

from __future__ import annotations

import re
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from rpa_mcp.confirmation.service import APPROVALS_URI
from rpa_mcp.console.base import APPROVER_ROLES, ConsoleBase, Person, guard
from rpa_mcp.console.compare import compare_steps
from rpa_mcp.console.live import ChangeFeed, Patch, sse_stream
from rpa_mcp.errors import RpaError
from rpa_mcp.ops.redaction import redact
from rpa_mcp.shadow.classes import step_class_of
from rpa_mcp.store.console import ProposalTokens

JTI_RE = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def flagged_steps(steps: list[dict[str, Any]] | None) -> dict[str, list[dict[str, Any]]]:
    """The steps an approver reads first: the irreversible ones, then those whose outcome cannot be checked."""
    steps = steps or []
    return {
        "irreversible_steps": [s for s in steps if step_class_of(s) == "irreversible"],
        "uncheckable_steps": [s for s in steps if s.get("uncheckable")],
    }


class Approvals:
    def __init__(self, base: ConsoleBase, tokens: ProposalTokens, feed: ChangeFeed) -> None:
        self.base, self.tokens, self.feed = base, tokens, feed
        self.confirmations = base.services.confirmations

    async def pending(self, request: Request) -> Response:
        person = guard(self.base, request, APPROVER_ROLES)
        if isinstance(person, Response):
            return person
        views = await anyio.to_thread.run_sync(self.confirmations.list_pending)
        return self.base.page(request, "approvals.html", person=person, views=views)

    async def live(self, request: Request) -> Response:
        """The pending list, pushed when a request starts or stops waiting for a person."""
        person = guard(self.base, request, APPROVER_ROLES)
        if isinstance(person, Response):
            return person

        def signature(views: list[Any]) -> tuple[Any, ...]:
            return tuple((v.jti, v.status) for v in views)

        last = [signature(await anyio.to_thread.run_sync(self.confirmations.list_pending))]

        async def render() -> Patch:
            views = await anyio.to_thread.run_sync(self.confirmations.list_pending)
            if signature(views) == last[0]:
                return []
            last[0] = signature(views)
            html = self.base.html(request, "_approvals_table.html", person=person, views=views)
            return [{"op": "replace", "id": "approvals-table", "html": html}]

        return sse_stream(
            request,
            self.feed,
            (APPROVALS_URI,),
            render,
            still_allowed=lambda: self.base.sessions.get(person.session_id) is not None,
        )

    def _view(self, jti: str) -> Any:
        if not JTI_RE.match(jti):
            return None
        try:
            return self.confirmations.get_approval(jti)
        except RpaError:
            return None

    async def _workflow(self, person: Person, name: str, version: int | None) -> dict[str, Any] | None:
        try:
            got = await self.base.call(person, "get_competence", {"name": name, "version": version})
        except RpaError:
            return None
        return got

    async def _what_it_does(self, person: Person, view: Any) -> dict[str, Any]:
        """Steps, difference and replay facts for the proposal, read through the registry."""
        args = self.confirmations.repo.get(view.jti).args if view else {}
        details = view.details or {}
        new: list[dict[str, Any]] | None = None
        out: dict[str, Any] = {
            "steps": None,
            "changes": None,
            "steps_title": "Steps of the workflow",
            "replay_params": None,
        }
        if view.operation == "start_replay":
            got = await self._workflow(person, str(args.get("competence")), details.get("version"))
            if got is not None:
                out["steps"] = got["workflow"].get("steps") or []
                out["steps_title"] = "What the replay will do"
            out["replay_params"] = redact(args.get("params") or {})
        elif view.operation == "delete_competence":
            got = await self._workflow(person, str(args.get("name")), args.get("version"))
            if got is not None:
                out["steps"] = got["workflow"].get("steps") or []
                out["steps_title"] = "Steps that will be removed"
        elif view.operation == "persist_competence":
            new = await self._built_steps(args)
            if new is not None and details.get("replaces_version"):
                current = await self._candidate(person, str(args.get("name")), "candidate")
                old = (current or {}).get("workflow", {}).get("steps") or []
                out["changes"] = compare_steps(old, new)
            elif new is not None:
                out["steps"] = new
                out["steps_title"] = "Steps that will be saved"
        elif view.operation == "promote_competence":
            candidate = await self._candidate(person, str(args.get("name")), "candidate")
            validated = await self._candidate(person, str(args.get("name")), "validated")
            if candidate is not None:
                old = (validated or {}).get("workflow", {}).get("steps") or []
                new = candidate["workflow"].get("steps") or []
                out["changes"] = compare_steps(old, new)
        out.update(flagged_steps(out["steps"] if out["steps"] is not None else new))
        return out

    async def _built_steps(self, args: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The steps a persist would save, built from the session now (building saves nothing)."""
        shadow = self.base.services.shadow
        session_id, name, domain = (
            str(args.get("session_id")),
            str(args.get("name")),
            str(args.get("domain", "generic")),
        )
        try:
            built = await anyio.to_thread.run_sync(shadow.build, session_id, name, domain)
        except RpaError:
            return None
        steps = (built.get("workflow_ir") or {}).get("steps")
        return list(steps) if isinstance(steps, list) else None

    async def _candidate(self, person: Person, name: str, status: str) -> dict[str, Any] | None:
        try:
            got = await self.base.call(person, "get_competence", {"name": name, "status": status})
        except RpaError:
            return None
        return got

    async def detail(self, request: Request) -> Response:
        person = guard(self.base, request, APPROVER_ROLES)
        if isinstance(person, Response):
            return person
        view = self._view(request.path_params["jti"])
        if view is None:
            return self.base.refused(request, 404, "No such request (it may have been removed).", person)
        return self.base.page(
            request,
            "approval.html",
            person=person,
            view=view,
            expired=view.expires_at < self.base.services.clock.now(),
            own=self.confirmations.proposed_by(view, person.caller()),
            can_apply=view.status == "approved"
            and not view.consumed
            and self.tokens.token_for(view.jti, person.subject) is not None,
            **await self._what_it_does(person, view),
        )

    async def approve(self, request: Request) -> Response:
        return await self._decide(request, approve=True)

    async def reject(self, request: Request) -> Response:
        return await self._decide(request, approve=False)

    async def _decide(self, request: Request, *, approve: bool) -> Response:
        base = self.base
        person = base.person(request)
        if person is None:
            return base.refused(request, 401, "Your session ended; sign in again, then decide.")
        jti = request.path_params["jti"]
        if not JTI_RE.match(jti):
            return base.refused(request, 404, "No such request (it may have been removed).", person)
        form = await base.checked_form(request, person, f"decide:{jti}")
        if isinstance(form, Response):
            return form
        if not person.may(APPROVER_ROLES):
            return base.refused(request, 403, "Approving needs the approver or operator role.", person)
        view = self._view(jti)
        if view is None:
            return base.refused(request, 404, "No such request (it may have been removed).", person)
        if self.confirmations.proposed_by(view, person.caller()):
            return base.refused(
                request, 403, "You proposed this request, so you cannot approve or reject it yourself.", person
            )
        try:
            await anyio.to_thread.run_sync(self.confirmations.decide, jti, person.caller(), approve)
        except RpaError as exc:
            return base.error_page(request, exc, person)
        return base.redirect(f"/console/approvals/{jti}")
