"""End-to-end fixtures: the real app under uvicorn, an operator MCP client, an agent REST client."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.entrypoints.app import create_app
from tests.conftest import token_for

DEMOS = Path(__file__).resolve().parents[1] / "fixtures" / "demos"


def demo_events(name: str) -> list[dict[str, Any]]:
    """A recorded demonstration as the agent would post it (screenshots inlined as base64)."""
    folder = DEMOS / name
    events = []
    for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if "screenshot_file" in event:
            event["screenshot"] = base64.b64encode((folder / event.pop("screenshot_file")).read_bytes()).decode()
        events.append(event)
    return events


class Stack:
    def __init__(self, base: str, services: Any, exit_stack: AsyncExitStack) -> None:
        self.base, self.services, self._stack = base, services, exit_stack

    def http(self, *roles: str, subject: str = "alice") -> httpx2.AsyncClient:
        token = token_for(self.services, subject, *roles) if roles else "agent-static-token-0123456789"
        return httpx2.AsyncClient(base_url=self.base, headers={"Authorization": f"Bearer {token}"}, timeout=60)

    async def mcp(self, *roles: str, subject: str = "alice") -> Client:
        http = await self._stack.enter_async_context(self.http(*roles, subject=subject))
        return await self._stack.enter_async_context(
            Client(streamable_http_client(f"{self.base}/mcp", http_client=http))
        )


@pytest.fixture
async def stack(services, serve) -> AsyncIterator[Stack]:
    base = await serve(create_app(services=services))
    async with AsyncExitStack() as exit_stack:
        yield Stack(base, services, exit_stack)
