"""`rpa-mcp bench external-demos`: an independent author's recordings streamed through the public surfaces."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from rpa_mcp.bench import external_demos

SESSION = "0b1c2d3e-0000-4000-8000-000000000001"
TITLE = "Dossier - Navigateur"


def _event(n: int, kind: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": SESSION,
        "machine_id": "WS-TEST-01",
        "ts": f"2026-11-29T22:10:{n:02d}.000Z",
        "type": kind,
        "x": None,
        "y": None,
        "button": None,
        "text": None,
        "keys": None,
        "window_title": TITLE,
        "app": "browser.exe",
        "element": {"name": "Dossier", "role": "document", "automation_id": None},
        "screenshot_ref": f"e{n:03d}.png",
    } | fields


def _recording(root: Path) -> Path:
    folder = root / "demos" / "task_one"
    folder.mkdir(parents=True)
    field = {"name": "Nom du patient", "role": "textbox", "automation_id": "nom"}
    events = [
        _event(0, "screenshot"),
        _event(1, "click", x=300, y=200, button="left", element=field),
        _event(2, "type", text="DURAND", element=field),
        _event(3, "click", x=600, y=200, button="left",
               element={"name": "Rechercher", "role": "button", "automation_id": "go"}),
        _event(4, "screenshot"),
    ]  # fmt: skip
    frame = np.full((720, 1280, 3), 240, np.uint8)
    for n in range(len(events)):
        cv2.imwrite(str(folder / f"e{n:03d}.png"), frame)
    (folder / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n", encoding="utf-8")
    expected = [
        {"intent": "Type the name", "action_type": "type_text", "text": "DURAND", "event_range": [1, 2],
         "target": {"name": "Nom du patient", "role": "textbox", "automation_id": "nom"}},
        {"intent": "Search", "action_type": "click_anchor", "event_range": [3, 3],
         "target": {"name": "Rechercher", "role": "button", "automation_id": "go"}},
    ]  # fmt: skip
    (folder / "expected_steps.json").write_text(json.dumps(expected), encoding="utf-8")
    meta = {
        "ignored_event_ranges": [{"reason": "start", "event_range": [0, 0]}, {"reason": "end", "event_range": [4, 4]}]
    }
    (folder / "recording_meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def test_only_a_range_with_more_than_the_recorders_screenshots_is_a_detour(tmp_path: Path) -> None:
    folder = _recording(tmp_path)
    meta = {
        "ignored_event_ranges": [{"reason": "start", "event_range": [0, 0]}, {"reason": "away", "event_range": [3, 4]}]
    }
    (folder / "recording_meta.json").write_text(json.dumps(meta), encoding="utf-8")
    steps = external_demos.labels_of(folder)["steps"]
    assert [(s["action_type"], s["events"], bool(s.get("detour"))) for s in steps] == [
        ("type_text", [1, 2], False),
        ("click_anchor", [3], False),
        ("", [3, 4], True),
    ]
    assert steps[0]["target"] == "Nom du patient" and steps[0]["value"] == "DURAND"


def test_a_recording_is_learned_through_the_public_surfaces_and_scored(tmp_path: Path) -> None:
    _recording(tmp_path)
    report = external_demos.run(["--external", str(tmp_path), "--details"])
    assert "task_one" in report
    lines = {
        line.split("  ")[1].strip(): line for line in report.splitlines() if line.startswith("  ") and "  " in line[2:]
    }
    assert "1.00 (2/2)" in lines["step precision"], report
    assert "1.00 (2/2)" in lines["step recall"], report
    assert "1.00 (1/1)" in lines["typed text exact"], report


def test_without_the_external_set_the_report_says_so(tmp_path: Path) -> None:
    assert "absent" in external_demos.run(["--external", str(tmp_path)])
