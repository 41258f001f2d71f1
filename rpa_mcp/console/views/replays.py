"""Replays: the list, and each replay's live timeline with the answers to a pause.

Every action shows what was targeted (the recorded crop), where it was clicked (a crop of
the screen after the action, with the point), each checker's verdict and time, and why the
replay paused, in plain words. The buttons that answer a pause go through the same
operations as MCP (`propose_answer_pause` then `apply_answer_pause`, `propose_resume_replay`
then `apply_resume_replay`): the person's answer is the approval, recorded in their name.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from rpa_mcp.console.base import ConsoleBase, Person, guard
from rpa_mcp.console.live import ChangeFeed, Patch, sse_stream
from rpa_mcp.errors import NotFound, RpaError
from rpa_mcp.replay.service.evidence import CLICK_LABEL

ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
DECISION_RE = re.compile(r"^(skip|retry|abort|click:.{1,80})$")


def click_view(action: dict[str, Any]) -> dict[str, Any] | None:
    """The 'where it was clicked' crop and the point inside it, when both are known."""
    point = action.get("point") or None
    for n, crop in enumerate(action.get("evidence") or []):
        if crop.get("label") == CLICK_LABEL and crop.get("bbox"):
            x, y, w, h = (int(v) for v in crop["bbox"][:4])
            px, py = (int(point[0]) - x, int(point[1]) - y) if point else (-1, -1)
            inside = 0 <= px < w and 0 <= py < h
            scale = max(1.0, max(w, h) / 240)  # a widened crop is shown at the usual size: a marker as large
            return {
                "n": n, "w": w, "h": h, "px": px if inside else None, "py": py if inside else None,
                "r": round(9 * scale), "dot": round(2 * scale), "stroke": round(3 * scale),
                "widened": bool(crop.get("widened")),
            }  # fmt: skip
    return None


def other_crops(action: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"n": n, "label": c.get("label", ""), "widened": bool(c.get("widened"))}
        for n, c in enumerate(action.get("evidence") or [])
        if c.get("label") != CLICK_LABEL
    ]


def signature(action: dict[str, Any]) -> tuple[Any, ...]:
    return (action["state"], action["outcome"], action["updated_at"], action["dispatches"], action["verdict"])


def head_signature(timeline: dict[str, Any]) -> tuple[Any, ...]:
    return (
        timeline["state"],
        timeline["pause_reason"],
        timeline["outcome"],
        timeline["steps_done"],
        timeline["current_action_id"],
        timeline["needs_answer"],
    )


class Replays:
    def __init__(self, base: ConsoleBase, feed: ChangeFeed) -> None:
        self.base, self.feed = base, feed

    @property
    def service(self) -> Any:
        return self.base.services.replay

    async def _timeline(self, replay_id: str) -> dict[str, Any] | None:
        if not ID_RE.match(replay_id) or self.service is None:
            return None
        try:
            timeline: dict[str, Any] = await anyio.to_thread.run_sync(self.service.timeline, replay_id)
        except NotFound:
            return None
        return timeline

    async def index(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        state = request.query_params.get("state") or None
        try:
            listed = await self.base.call(person, "list_replays", {"state": state, "limit": 200})
        except RpaError as exc:
            return self.base.error_page(request, exc, person)
        return self.base.page(request, "replays.html", person=person, replays=listed["replays"], state=state)

    def _context(self, timeline: dict[str, Any]) -> dict[str, Any]:
        return {"t": timeline, "click_view": click_view, "other_crops": other_crops}

    async def detail(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        timeline = await self._timeline(request.path_params["replay_id"])
        if timeline is None:
            return self.base.refused(request, 404, "No such replay.", person)
        return self.base.page(request, "replay.html", person=person, **self._context(timeline))

    async def crop(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        replay_id, action_id, n = (request.path_params[k] for k in ("replay_id", "action_id", "n"))
        if not ID_RE.match(replay_id) or not ID_RE.match(action_id) or self.service is None:
            return Response(status_code=404)
        crops = await anyio.to_thread.run_sync(self.service.evidence, replay_id, action_id)
        if not 0 <= n < len(crops) or crops[n].get("mime_type", "image/png") != "image/png":
            return Response(status_code=404)
        data = base64.b64decode(crops[n]["data_base64"])
        return Response(data, media_type="image/png", headers={"cache-control": "private, max-age=3600"})

    async def evidence_bundle(self, request: Request) -> Response:
        """The run's evidence bundle as a JSON download (its digest is in the audit chain)."""
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        replay_id = request.path_params["replay_id"]
        if not ID_RE.match(replay_id) or self.service is None:
            return Response(status_code=404)
        try:
            bundle = await anyio.to_thread.run_sync(self.service.evidence_bundle, replay_id)
        except NotFound:
            return Response(status_code=404)
        body = json.dumps(bundle, ensure_ascii=False, default=str, indent=1).encode()
        return Response(
            body,
            media_type="application/json",
            headers={
                "content-disposition": f'attachment; filename="evidence-{replay_id}.json"',
                "cache-control": "private, no-store",
            },
        )

    # --- live ---------------------------------------------------------------------------------------
    async def live(self, request: Request) -> Response:
        person = guard(self.base, request)
        if isinstance(person, Response):
            return person
        replay_id = request.path_params["replay_id"]
        first = await self._timeline(replay_id)
        if first is None:
            return Response(status_code=404)
        sent = {a["action_id"]: signature(a) for a in first["actions"]}
        head = [head_signature(first)]

        async def render() -> Patch:
            timeline = await self._timeline(replay_id)
            if timeline is None:
                return []
            context = self._context(timeline)
            patch: Patch = []
            if head_signature(timeline) != head[0]:
                head[0] = head_signature(timeline)
                html = self.base.html(request, "_replay_head.html", person=person, **context)
                patch.append({"op": "replace", "id": "replay-head", "html": html})
            for a in timeline["actions"]:
                sig = signature(a)
                if sent.get(a["action_id"]) == sig:
                    continue
                op = "replace" if a["action_id"] in sent else "append"
                sent[a["action_id"]] = sig
                html = self.base.html(request, "_action.html", person=person, a=a, **context)
                patch.append({"op": op, "id": f"action-{a['action_id']}", "parent": "timeline", "html": html})
            return patch

        return sse_stream(
            request,
            self.feed,
            (f"rpa://replays/{replay_id}",),
            render,
            still_allowed=lambda: self.base.sessions.get(person.session_id) is not None,
        )

    # --- answers ------------------------------------------------------------------------------------
    async def _person_form(self, request: Request, purpose: str) -> tuple[Person, dict[str, str]] | Response:
        person = self.base.person(request)
        if person is None:
            return self.base.refused(request, 401, "Your session ended; sign in again, then decide.")
        form = await self.base.checked_form(request, person, purpose)
        if isinstance(form, Response):
            return form
        return person, form

    async def _in_person(self, person: Person, operation: str, args: dict[str, Any]) -> None:
        """propose_X as the person, their answer approves it, apply_X as the person."""
        proposal = await self.base.call(person, f"propose_{operation}", args)
        if proposal["approval_status"] == "pending":
            jti = str(proposal["approval_url"]).rstrip("/").rsplit("/", 1)[-1]
            await anyio.to_thread.run_sync(self.base.services.confirmations.approve_in_person, jti, person.caller())
        await self.base.call(person, f"apply_{operation}", {"token": proposal["token"]})

    async def act(self, request: Request) -> Response:
        replay_id = request.path_params["replay_id"]
        verb = request.path_params["verb"]
        if not ID_RE.match(replay_id) or verb not in ("answer", "resume", "pause", "cancel"):
            return Response(status_code=404)
        got = await self._person_form(request, f"replay:{replay_id}")
        if isinstance(got, Response):
            return got
        person, form = got
        try:
            if verb == "answer":
                decision = form.get("decision", "").strip()
                if not DECISION_RE.match(decision):
                    return self.base.refused(request, 400, "decision must be click:<label>, skip, retry or abort.")
                await self._in_person(person, "answer_pause", {"replay_id": replay_id, "decision": decision})
            elif verb == "resume":
                await self._in_person(person, "resume_replay", {"replay_id": replay_id})
            else:
                await self.base.call(person, f"{verb}_replay", {"replay_id": replay_id})
        except RpaError as exc:
            return self.base.error_page(request, exc, person)
        return self.base.redirect(f"/console/replays/{replay_id}")
