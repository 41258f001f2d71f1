"""A tiny test registry: one read, one draft and one gated (write/act) operation over an in-memory dict."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from pydantic import Field
from starlette.applications import Starlette

from rpa_mcp.ops import add, build_registry
from rpa_mcp.ops.registry import OpContext, Operation, Preview, Registry, StrictModel

NOTES: dict[str, str] = {}
EXECUTIONS: list[str] = []


class NoteIn(StrictModel):
    key: str = Field(min_length=1, max_length=40, description="Note key.")
    text: str = Field(max_length=200, description="Note text.")


class NoteOut(StrictModel):
    key: str = Field(description="Note key.")
    text: str = Field(description="Stored text.")
    version: int = Field(description="How many times it was written.")


class KeyIn(StrictModel):
    key: str = Field(description="Note key.")


async def _save(ctx: OpContext, args: NoteIn) -> NoteOut:
    EXECUTIONS.append(args.key)
    NOTES[args.key] = args.text
    return NoteOut(key=args.key, text=args.text, version=EXECUTIONS.count(args.key))


async def _preview(ctx: OpContext, args: NoteIn) -> Preview:
    old = NOTES.get(args.key)
    return Preview(
        summary=f"Write note {args.key}",
        details={"exists": old is not None},
        diff=None if old is None else f"- {old}\n+ {args.text}",
        binding={"current": old},
    )


async def _read(ctx: OpContext, args: KeyIn) -> NoteOut:
    from rpa_mcp.errors import NotFound

    if args.key not in NOTES:
        raise NotFound(f"no note {args.key!r}", key=args.key)
    return NoteOut(key=args.key, text=NOTES[args.key], version=EXECUTIONS.count(args.key))


def test_registry() -> Registry:
    NOTES.clear()
    EXECUTIONS.clear()
    registry = build_registry(areas=("catalog",))
    add(registry, Operation("read_note", "Read a note", "Read a note.", KeyIn, NoteOut, "read", _read, idempotent=True))
    add(registry, Operation("draft_note", "Draft a note", "Draft a note.", NoteIn, NoteOut, "draft", _save))
    add(
        registry,
        Operation("save_note", "Save a note", "Save a note.", NoteIn, NoteOut, "write", _save, preview=_preview),
    )
    add(registry, Operation("act_note", "Act on a note", "Act.", NoteIn, NoteOut, "act", _save, preview=_preview))
    return registry


test_registry.__test__ = False  # type: ignore[attr-defined]  # not a test function


@contextlib.asynccontextmanager
async def asgi_client(app: Starlette, token: str | None = None, **headers: str) -> AsyncIterator[httpx2.AsyncClient]:
    """An httpx2 client on the app in memory, with its lifespan running."""
    if token:
        headers["Authorization"] = f"Bearer {token}"
    async with app.router.lifespan_context(app):
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765", headers=headers) as client:
            yield client


def rpc(method: str, params: dict[str, Any] | None = None, id_: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}
