"""The accuracy benchmarks call the public tools as an MCP client does, with the evidence a client adds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rpa_mcp.bench.scoring import score_dialogs
from rpa_mcp.bench.tool_client import ToolFailed, blocking_tools, image_arg
from rpa_mcp.bootstrap import build_services
from rpa_mcp.dialogs import load_dialog_catalog
from rpa_mcp.settings import shipped_dir
from rpa_mcp.testing import ScriptedOcr
from tests.dialogs.helpers import synthetic_dialog


def test_a_tool_answers_its_structured_content_over_an_mcp_client_session(settings, clock) -> None:
    services = build_services(settings, clock=clock, ocr=ScriptedOcr(["Yes", "No", "User Account Control"]))
    image, _ = synthetic_dialog()
    with blocking_tools(services) as tools:
        answer = tools.call("resolve_dialog", {"image": image_arg(image)})
        assert answer["decision"] == "pause" and answer["found"] is True
        with pytest.raises(ToolFailed, match="resolve_dialog"):
            tools.call("resolve_dialog", {"image": {"png_base64": "bm90IGFuIGltYWdl"}})


class Frame:
    def __init__(self, name: str, previous: bool) -> None:
        self.name = name
        self.image = np.zeros((40, 60, 3), np.uint8)
        self.previous = np.zeros((40, 60, 3), np.uint8) if previous else None
        self.truth = type("Truth", (), {"dialog": None, "size": (60, 40), "window_title": "Notes", "process": "wish"})


def test_each_frame_goes_alone_then_with_the_frame_before_and_the_reported_window(monkeypatch) -> None:
    catalog = load_dialog_catalog(shipped_dir("catalog") / "dialogs.yaml")
    sent: list[dict[str, Any]] = []

    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        sent.append({"tool": tool, **arguments})
        return {"dialog_id": "unknown", "found": False, "decision": "pause", "bbox": None, "path": "fast"}

    monkeypatch.setattr("rpa_mcp.bench.scoring.frame_cases", lambda screens: [Frame("a", True)])
    scores = score_dialogs(None, call, catalog)  # type: ignore[arg-type]  # the cases are patched in
    assert [m["tool"] for m in sent] == ["resolve_dialog", "resolve_dialog"]
    assert set(sent[0]) == {"tool", "image"}
    assert set(sent[1]) == {"tool", "image", "previous", "windows"}
    assert sent[1]["windows"] == [{"title": "Notes", "process": "wish"}]
    assert scores.without == 1 and not scores.false_positives
