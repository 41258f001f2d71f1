"""Fixtures of the shadow tests: a trace store on a file, the service with fakes, the demos."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.store.db import Database
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.testing import FakeClock, FakeOcr
from rpa_mcp.vision.ocr import OcrLine

DEMOS = Path(__file__).resolve().parents[1] / "fixtures" / "demos"


def load_demo(name: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The demo's events as the agent sends them (screenshots inlined as base64) and its labels (labels.json)."""
    folder = DEMOS / name
    events = []
    for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        shot = event.pop("screenshot_file", None)
        if shot:
            event["screenshot"] = base64.b64encode((folder / shot).read_bytes()).decode("ascii")
        events.append(event)
    return events, json.loads((folder / "labels.json").read_text(encoding="utf-8"))


class Notes:
    def __init__(self) -> None:
        self.uris: list[str] = []

    def __call__(self, uri: str) -> None:
        self.uris.append(uri)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "traces.sqlite3"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def ocr() -> FakeOcr:
    # What OCR reads around a click on the "Imagerie" tab (the click is at the crop's centre, 150,24).
    return FakeOcr(lines=[OcrLine("Imagerie", (120, 12, 64, 20), 0.96)])


@pytest.fixture
def notes() -> Notes:
    return Notes()


@pytest.fixture
def make_service(db_path: Path, clock: FakeClock, ocr: FakeOcr, notes: Notes) -> Callable[..., ShadowService]:
    """make_service() -> a service over the same database file (call again to simulate a restart)."""

    def make(**kwargs: Any) -> ShadowService:
        traces = TraceStore(Database(db_path))
        return ShadowService(traces, kwargs.pop("ocr", ocr), clock, notify=notes, **kwargs)

    return make


@pytest.fixture
def shadow(make_service: Callable[..., ShadowService]) -> ShadowService:
    return make_service()


T0 = 1_764_000_000.0  # 2025-11-24, epoch seconds: the time of the first event of a test


def ev(type_: str, ts: float, session: str = "s1", machine: str = "PC-1", **fields: Any) -> dict[str, Any]:
    """An event `ts` seconds after T0, as an agent streams it."""
    return {"session_id": session, "machine_id": machine, "ts": T0 + ts, "type": type_, **fields}


def play(service: ShadowService, name: str) -> tuple[str, dict[str, Any]]:
    """Stream a demo with an explicit start where the person said "observe me", then stop."""
    events, expected = load_demo(name)
    n = expected["start_after"]
    service.ingest(events[:n])
    sid = events[0]["session_id"]
    assert service.start(sid)["status"] == "shadow_started"
    for event in events[n:]:
        service.ingest([event])
    return sid, expected
