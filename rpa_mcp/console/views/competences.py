"""Competences: versions, the difference between two versions, promotion and deletion.

Promotion and deletion are the registry's `propose_*` / `apply_*` operations run as the
person, so the approval rules hold: in `token` mode the person's click is their agreement
and the change is applied at once; in `human` mode the proposal waits for another person's
approval, and its proposer applies it from the approval page once approved.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from rpa_mcp.console.base import ConsoleBase, Person, guard
from rpa_mcp.console.compare import compare_steps, counts
from rpa_mcp.errors import RpaError
from rpa_mcp.store.console import ProposalTokens

NAME_RE = re.compile(r"^[^\x00-\x1f/\\]{1,200}$")
STATUSES = ("candidate", "validated")


class Competences:
    def __init__(self, base: ConsoleBase, tokens: ProposalTokens) -> None:
        self.base, self.tokens = base, tokens

    async def index(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        try:
            listed = await self.base.call(person, "list_competences", {})
        except RpaError as exc:
            return self.base.error_page(request, exc, person)
        return self.base.page(request, "competences.html", person=person, listed=listed)

    async def detail(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        status, name = request.path_params["status"], request.path_params["name"]
        if status not in STATUSES or not NAME_RE.match(name):
            return self.base.refused(request, 404, "No such competence.", person)
        version = _int(request.query_params.get("version"))
        against = _int(request.query_params.get("compare"))
        try:
            shown = await self.base.call(person, "get_competence", {"name": name, "status": status, "version": version})
            listed = await self.base.call(person, "list_competences", {})
            other = None
            if against is not None:
                other = await self.base.call(person, "get_competence", {"name": name, "version": against})
        except RpaError as exc:
            return self.base.error_page(request, exc, person)
        changes = None
        if other is not None:
            old, new = sorted((other, shown), key=lambda c: c["version"])
            changes = compare_steps(old["workflow"].get("steps") or [], new["workflow"].get("steps") or [])
            pair = (old["version"], new["version"])
        else:
            pair = None
        return self.base.page(
            request,
            "competence.html",
            person=person,
            c=shown,
            changes=changes,
            totals=counts(changes) if changes is not None else None,
            all_versions=sorted(
                {v for c in listed["competences"] if c["slug"] == shown["slug"] for v in c["versions"]}
            ),
            pair=pair,
            message=request.query_params.get("done"),
        )

    async def act(self, request: Request) -> Response:
        """POST promote | delete | replay: propose as the person; apply now (token mode) or wait for an approval."""
        base = self.base
        person = base.person(request)
        if person is None:
            return base.refused(request, 401, "Your session ended; sign in again.")
        status, name, verb = (request.path_params[k] for k in ("status", "name", "verb"))
        if status not in STATUSES or not NAME_RE.match(name) or verb not in ("promote", "delete", "replay"):
            return Response(status_code=404)
        form = await base.checked_form(request, person, f"competence:{status}:{name}")
        if isinstance(form, Response):
            return form
        operation = {"promote": "promote_competence", "delete": "delete_competence", "replay": "start_replay"}[verb]
        args: dict[str, Any] = {"name": name}
        if verb == "delete":
            args |= {"status": status, "version": _int(form.get("version"))}
        if verb == "replay":
            params = {k[6:]: v for k, v in form.items() if k.startswith("param.") and v.strip()}
            machine = form.get("machine_id", "").strip()[:128] or None
            args = {"competence": name, "version": _int(form.get("version")), "machine_id": machine, "params": params}
        try:
            return await self._propose_then_apply(person, operation, args)
        except RpaError as exc:
            return base.error_page(request, exc, person)

    async def _propose_then_apply(self, person: Person, operation: str, args: dict[str, Any]) -> Response:
        proposal = await self.base.call(person, f"propose_{operation}", args)
        if proposal["approval_status"] == "pending":
            jti = str(proposal["approval_url"]).rstrip("/").rsplit("/", 1)[-1]
            self.tokens.keep(
                jti,
                subject=person.subject,
                operation=operation,
                token=proposal["token"],
                expires_at=float(proposal["expires_at"]),
            )
            return self.base.redirect(f"/console/approvals/{jti}")
        applied = await self.base.call(person, f"apply_{operation}", {"token": proposal["token"]})
        if operation == "start_replay":
            return self.base.redirect(f"/console/replays/{quote(str(applied['replay_id']), safe='')}")
        if operation == "delete_competence":
            return self.base.redirect("/console/competences")
        return self.base.redirect(f"/console/competences/validated/{quote(str(args['name']), safe='')}?done=1")

    async def apply_kept(self, request: Request) -> Response:
        """POST /console/approvals/{jti}/apply: the proposer applies their approved console proposal."""
        base = self.base
        person = base.person(request)
        if person is None:
            return base.refused(request, 401, "Your session ended; sign in again.")
        jti = request.path_params["jti"]
        form = await base.checked_form(request, person, f"apply:{jti}")
        if isinstance(form, Response):
            return form
        kept = self.tokens.token_for(jti, person.subject)
        if kept is None:
            return base.refused(request, 404, "No such request (it may have been removed).", person)
        operation, token = kept
        try:
            applied = await base.call(person, f"apply_{operation}", {"token": token})
        except RpaError as exc:
            return base.error_page(request, exc, person)
        self.tokens.forget(jti)
        if operation == "start_replay" and applied.get("replay_id"):
            return base.redirect(f"/console/replays/{quote(str(applied['replay_id']), safe='')}")
        return base.redirect(f"/console/approvals/{jti}")


def _int(value: str | None) -> int | None:
    if value is None or not value.strip():
        return None
    return int(value) if value.strip().isdigit() and len(value) < 9 else None
