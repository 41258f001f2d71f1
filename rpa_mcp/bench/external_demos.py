"""Learning on demonstrations recorded by an independent author, through the public surfaces.

The external evaluation set (`shared/external-eval/round1` beside the checkout, or `--external DIR`) holds
recordings of its author's own application in `demos/<task>/`: `events.jsonl` (the agent's event schema, a
screenshot taken before each event named by `screenshot_ref`), `expected_steps.json` (the steps, each with its
inclusive `event_range`) and `recording_meta.json` (`ignored_event_ranges`: what is no step of the task).
Each recording is sent as a desktop agent sends it, event by event, to `ingest_events` (the REST
operation, as the agent's role), observed between `shadow_start` and `shadow_stop` (MCP tools, over the SDK's
in-memory client), and the steps `shadow_stop` answers are scored as `rpa-mcp bench segmentation` scores the
project's own demonstrations (`segmentation.Tally`: matched by action type, target and events):

- an expected step is a labelled step (its `target.name`, its `text` the typed value);
- an ignored range holding anything but the recorder's own `screenshot` events (a trip to another window) is
  a labelled detour: matched by a proposed step overlapping it that suggests its removal;
- the recorder's screenshots are labelled nothing.

No rule, keyword or threshold is fitted to these recordings; a change they motivated makes the figure after it
no longer unseen (docs/benchmarks.md says which). `--details` lists each miss.
"""

from __future__ import annotations

import argparse
import base64
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from rpa_mcp.bench.dialogs_public import external_dir
from rpa_mcp.bench.segmentation import Tally, rows_of
from rpa_mcp.bench.tool_client import tools
from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.settings import Settings

AGENT = Caller("external-demo-agent", frozenset({"agent"}), via="rest", auth="api-token")
HALF = "evaluation"  # the column the figures are printed in: never tuned on
SKIPPED_ROWS = {"intent as labelled"}  # the author's intents are free sentences in English, not the project's phrasing


@dataclass
class Recording:
    name: str
    folder: Path
    labels: dict[str, Any]

    def events(self) -> list[dict[str, Any]]:
        out = []
        for line in (self.folder / "events.jsonl").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            event = json.loads(line)
            shot = event.pop("screenshot_ref", None)
            if shot:  # sent inline, as an agent without a shared folder sends it
                event["screenshot"] = base64.b64encode((self.folder / shot).read_bytes()).decode("ascii")
            out.append(event)
        return out


def labels_of(folder: Path) -> dict[str, Any]:
    """The recording's expected steps and ignored ranges as `segmentation.Tally` reads labels."""
    expected = json.loads((folder / "expected_steps.json").read_text(encoding="utf-8"))
    meta = json.loads((folder / "recording_meta.json").read_text(encoding="utf-8"))
    types = [
        json.loads(line).get("type")
        for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    steps: list[dict[str, Any]] = []
    for item in expected:
        if "action_type" not in item:
            continue
        first, last = item["event_range"]
        step = {
            "intent": item.get("intent", ""),
            "action_type": item["action_type"],
            "target": (item.get("target") or {}).get("name"),
            "events": list(range(first, last + 1)),
        }
        if item.get("text") is not None:
            step["value"] = item["text"]
        steps.append(step)
    for ignored in meta.get("ignored_event_ranges") or []:
        first, last = ignored["event_range"]
        events = list(range(first, last + 1))
        if any(types[i] != "screenshot" for i in events if i < len(types)):
            steps.append({"intent": "", "action_type": "", "target": None, "events": events, "detour": True})
    return {"steps": steps}


def recordings(root: Path) -> list[Recording]:
    folder = root / "demos"
    if not folder.is_dir():
        return []
    return [
        Recording(sub.name, sub, labels_of(sub))
        for sub in sorted(folder.iterdir())
        if all((sub / name).is_file() for name in ("events.jsonl", "expected_steps.json", "recording_meta.json"))
    ]


async def propose(services: Services, recording: Recording) -> list[dict[str, Any]]:
    """The steps `shadow_stop` answers for the recording, streamed as its agent would stream it."""
    registry = build_registry()
    events = recording.events()
    session = str(events[0]["session_id"])

    async def ingest(event: dict[str, Any]) -> None:
        await dispatch(registry, services, "ingest_events", {"events": [event]}, AGENT, surface="rest")

    async with tools(services) as client:
        await ingest(events[0])  # the first event registers the session and its machine
        await client.call("shadow_start", {"session_id": session})
        for event in events[1:]:
            await ingest(event)
        stopped = await client.call("shadow_stop", {"session_id": session})
    steps: list[dict[str, Any]] = stopped["understanding"]
    return steps


def evaluate(found: list[Recording]) -> Tally:
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_secret="e" * 48, rate_limit_per_minute=10**7)
        services = build_services(settings)
        for recording in found:
            tally.add(recording, anyio.run(propose, services, recording))
    return tally


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench external-demos")
    parser.add_argument("--external", default=None, help="the external evaluation set's folder (default: beside)")
    parser.add_argument("--details", action="store_true", help="list each miss and extra step")
    args = parser.parse_args(argv)
    root = external_dir(args.external)
    found = recordings(root) if root is not None else []
    if not found:
        return "external-demos: absent (no shared/external-eval/round1/demos beside the checkout, or --external DIR)"
    tally = evaluate(found)
    rows = [r for r in rows_of({HALF: tally}) if r["metric"] not in SKIPPED_ROWS]
    width = max(len(r["metric"]) for r in rows)
    lines = [f"recordings by an independent author: {', '.join(r.name for r in found)}"]
    lines += [f"  {r['metric'].ljust(width)}  {r[HALF]:<16} {r['target']}" for r in rows]
    if args.details:
        lines += [f"  - {note}" for note in tally.notes]
    return "\n".join(lines)
