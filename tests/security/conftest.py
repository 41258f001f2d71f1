"""Shared pieces of the abuse tests: the whole app in memory with a fake OCR, tokens, images."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import cv2
import httpx2
import numpy as np
import pytest

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeOcr
from tests.conftest import SECRET, token_for

AGENT_TOKEN = "agent-static-token-0123456789"
MCP_ACCEPT = {"accept": "application/json, text/event-stream"}


def png(width: int = 64, height: int = 48, value: int = 200) -> bytes:
    ok, buf = cv2.imencode(".png", np.full((height, width, 3), value, np.uint8))
    assert ok
    return buf.tobytes()


def image_arg(data: bytes) -> dict[str, str]:
    return {"png_base64": base64.b64encode(data).decode()}


def make_services(tmp_path: Any, **overrides: Any) -> Services:
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET, api_token=AGENT_TOKEN, **overrides)
    return build_services(settings, ocr=FakeOcr())


@pytest.fixture
def services(tmp_path: Any) -> Services:  # the real clock: tokens minted here are checked by the app
    return make_services(tmp_path)


@contextlib.asynccontextmanager
async def client_for(services: Services, token: str | None, **headers: str) -> AsyncIterator[httpx2.AsyncClient]:
    """The whole app (every area) in memory, its lifespan running."""
    app = create_app(services=services)
    if token:
        headers["authorization"] = f"Bearer {token}"
    async with app.router.lifespan_context(app):
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765", headers=headers) as c:
            yield c


def operator(services: Services, subject: str = "olga") -> str:
    return token_for(services, subject, "operator")
