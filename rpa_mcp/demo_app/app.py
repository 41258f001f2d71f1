"""The demo application's server (Starlette): pages, the notes API and the effects log.

    app = create_demo_app(EffectsLog(path))   # then serve it with uvicorn on 127.0.0.1

`GET /effects?since=N` returns the effects after mark N as JSON (for other processes).
`POST /control` changes how the application answers (tests only: `variations`).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rpa_mcp.demo_app.effects import EffectsLog
from rpa_mcp.demo_app.pages import login_page, pacs_page, record_page, search_page
from rpa_mcp.demo_app.patients import patient_by_id, search_patients
from rpa_mcp.demo_app.texts import LABEL_KEYS, TABS, texts
from rpa_mcp.demo_app.variations import BadVariation, Variation, Variations

STATIC_DIR = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024
PAGE_KINDS = frozenset({"click", "typed", "tab", "dialog", "camera", "leave"})
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; style-src 'self'; script-src 'self'",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
}


class _Notes:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_patient: dict[str, list[dict[str, Any]]] = {}
        self._next = 1

    def of(self, patient_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._by_patient.get(patient_id, []))

    def add(self, patient_id: str, text: str) -> dict[str, Any]:
        with self._lock:
            item = {"id": self._next, "text": text}
            self._next += 1
            self._by_patient.setdefault(patient_id, []).append(item)
            return item

    def delete(self, patient_id: str, note_id: int) -> bool:
        with self._lock:
            notes = self._by_patient.get(patient_id, [])
            kept = [n for n in notes if n["id"] != note_id]
            self._by_patient[patient_id] = kept
            return len(kept) != len(notes)


async def _answer_late(seconds: float) -> None:
    """A server under load: the answer comes `seconds` later (the `slow` variation; 0 by default)."""
    if seconds > 0:
        await anyio.sleep(seconds)


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers=SECURITY_HEADERS)


async def _json_body(request: Request) -> dict[str, Any] | None:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        return None
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    return body if isinstance(body, dict) else None


def create_demo_app(effects: EffectsLog | None = None) -> Starlette:
    log = effects or EffectsLog()
    notes = _Notes()
    variations = Variations()

    def words(request: Request) -> tuple[str, dict[str, str]]:
        return texts(request.query_params.get("lang"), variations.now.renamed)

    async def home(request: Request) -> Response:
        lang, t = words(request)
        return _html(search_page(t, lang, "", None))

    async def search(request: Request) -> Response:
        lang, t = words(request)
        query = request.query_params.get("q", "")[:200]
        results = search_patients(query)
        if variations.now.results == "reversed":
            results.reverse()
        log.add("search", q=query, results=len(results))
        return _html(search_page(t, lang, query, results, frozenset(variations.now.unreadable)))

    async def record(request: Request) -> Response:
        lang, t = words(request)
        patient = patient_by_id(request.path_params["patient"])
        tab = request.path_params.get("tab", "synthese")
        if patient is None or tab not in TABS:
            return _html("<h1>404</h1>", 404)
        await _answer_late(variations.now.slow)
        log.add("open_record", patient=patient.id, name=patient.name, tab=tab)
        return _html(record_page(t, lang, patient, tab, notes.of(patient.id)))

    async def pacs(request: Request) -> Response:
        lang, t = words(request)
        return _html(pacs_page(t, lang))

    async def login_form(request: Request) -> Response:
        lang, t = words(request)
        return _html(login_page(t, lang))

    async def login(request: Request) -> Response:
        form = await request.form()
        user, password = str(form.get("user", ""))[:100], str(form.get("password", ""))
        log.add("login", user=user, password_length=len(password))  # never the password itself
        return RedirectResponse("/?lang=en" if form.get("lang") == "en" else "/", status_code=303)

    async def add_note(request: Request) -> Response:
        body = await _json_body(request)
        patient = patient_by_id(str((body or {}).get("patient", "")))
        text = (body or {}).get("text")
        if patient is None or not isinstance(text, str) or len(text) > 5000:
            return JSONResponse({"error": "patient (known id) and text (at most 5000 characters) are required"}, 422)
        answer = variations.now.save
        await _answer_late(variations.now.slow)
        _, t = texts((body or {}).get("lang"))
        if answer == "error":  # the application's own refusal: nothing is kept
            log.add("refused", patient=patient.id, text=text, message=t["save_error"])
            return JSONResponse({"error": t["save_error"]}, 422)
        if answer == "confirm" and (body or {}).get("confirmed") is not True:  # its own box asks first
            return JSONResponse({"confirm": t["save_confirm"]}, 409)
        item = notes.add(patient.id, text)
        log.add("save", patient=patient.id, text=text, note=item["id"])
        return JSONResponse(item)

    async def delete_note(request: Request) -> Response:
        body = await _json_body(request) or {}
        patient = patient_by_id(str(body.get("patient", "")))
        try:
            note_id = int(body.get("id", ""))
        except (TypeError, ValueError):
            note_id = -1
        if patient is None or not notes.delete(patient.id, note_id):
            return JSONResponse({"error": "no such note"}, 404)
        log.add("delete", patient=patient.id, note=note_id)
        return JSONResponse({"deleted": note_id})

    async def post_effect(request: Request) -> Response:
        body = await _json_body(request)
        kind = (body or {}).get("kind")
        if body is None or kind not in PAGE_KINDS:
            return JSONResponse({"error": f"kind must be one of {sorted(PAGE_KINDS)}"}, 422)
        detail = {k: v for k, v in body.items() if k != "kind" and isinstance(v, str | int | float | bool)}
        log.add(str(kind), **detail)
        return Response(status_code=204)

    async def get_effects(request: Request) -> Response:
        try:
            since = max(0, int(request.query_params.get("since", "0")))
        except ValueError:
            return JSONResponse({"error": "since must be an integer"}, 422)
        return JSONResponse([{"seq": e.seq, "ts": e.ts, "kind": e.kind, **e.detail} for e in log.since(since)])

    async def get_control(request: Request) -> Response:
        return JSONResponse(variations.as_dict())

    async def post_control(request: Request) -> Response:
        body = await _json_body(request)
        if body is None:
            return JSONResponse({"error": "a JSON object is required (save, renamed, results, unreadable)"}, 422)
        try:
            variations.set(Variation.parse(body, LABEL_KEYS))
        except BadVariation as exc:
            return JSONResponse({"error": str(exc)}, 422)
        return JSONResponse(variations.as_dict())

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    app = Starlette(
        routes=[
            Route("/", home),
            Route("/search", search),
            Route("/patient/{patient}", lambda r: RedirectResponse(f"{r.url.path}/synthese?{r.url.query}")),
            Route("/patient/{patient}/{tab}", record),
            Route("/pacs", pacs),
            Route("/login", login_form, methods=["GET"]),
            Route("/login", login, methods=["POST"]),
            Route("/api/notes", add_note, methods=["POST"]),
            Route("/api/notes/delete", delete_note, methods=["POST"]),
            Route("/effects", post_effect, methods=["POST"]),
            Route("/effects", get_effects, methods=["GET"]),
            Route("/control", get_control, methods=["GET"]),
            Route("/control", post_control, methods=["POST"]),
            Route("/favicon.ico", favicon),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ]
    )
    app.state.effects = log
    app.state.variations = variations
    return app
