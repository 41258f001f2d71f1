"""Real programs drawn on Xvfb (tests/fixtures/real_programs), through the public tools.

Each frame goes to `classify_dialog` and `resolve_dialog`, each before/after pair to
`validate_action`, by `dispatch()` on the MCP surface (arguments checked as a client's are).
Reported per program, tuning and held-out apart: dialog ids, policies, decisions, verdicts and
every miss by id. `rpa-mcp bench programs [--folder DIR]`.
"""

from __future__ import annotations

import argparse
import base64
import json
import tempfile
from pathlib import Path
from typing import Any

import anyio

from rpa_mcp.bootstrap import build_services
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.settings import Settings

FOLDER = Path(__file__).resolve().parent.parent.parent / "tests" / "fixtures" / "real_programs"


def _image(folder: Path, file: str) -> dict[str, str]:
    return {"png_base64": base64.b64encode((folder / file).read_bytes()).decode()}


def _pair_args(folder: Path, pair: dict[str, Any]) -> dict[str, Any]:
    action = pair["action"]
    target = {k: action[k] for k in ("label", "bbox", "point") if action.get(k) is not None}
    args: dict[str, Any] = {
        "action_type": action["type"],
        "before": _image(folder, pair["before"]),
        "after": _image(folder, pair["after"]),
        "target": target or None,
    }
    if action.get("expected_text"):
        args["expected"] = {"text": action["expected_text"]}
    return args


async def _program(call: Any, manifest: Path) -> list[str]:
    raw = json.loads(manifest.read_text(encoding="utf-8"))
    folder = manifest.parent
    lines: list[str] = []
    ids = paused = unsafe = 0
    for frame in raw["frames"]:
        image = _image(folder, frame["file"])
        found = await call("classify_dialog", {"image": image})
        decided = await call("resolve_dialog", {"image": image})
        right = found["dialog_id"] == frame["expected_id"]
        ids += right
        paused += decided["decision"] == "pause"
        unsafe += decided["decision"] in ("auto", "skip") or found["policy"] in ("auto", "skip")
        if not right or decided["decision"] != "pause":
            lines.append(
                f"    {frame['file']}: want {frame['expected_id']}, got {found['dialog_id']} "
                f"(policy {found['policy']}, decision {decided['decision']})"
            )
    verdicts = 0
    for pair in raw["pairs"]:
        got = await call("validate_action", _pair_args(folder, pair))
        right = (got["verdict"], got.get("failure_category")) == (pair["verdict"], pair["failure_category"])
        verdicts += right
        if not right:
            lines.append(
                f"    {pair['id']}: want {pair['verdict']}/{pair['failure_category']}, "
                f"got {got['verdict']}/{got.get('failure_category')} ({got['rule']})"
            )
    n, p = len(raw["frames"]), len(raw["pairs"])
    head = (
        f"  {raw['program']:9} {raw['split']:8}  ids {ids}/{n}  paused {paused}/{n}  auto-or-skip {unsafe}  "
        f"verdicts {verdicts}/{p}"
    )
    return [head, *lines]


async def _run(folder: Path) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_secret="b" * 48, rate_limit_per_minute=10**7)
        services = build_services(settings)
        registry = build_registry()
        caller = Caller("bench", frozenset({"operator"}))

        async def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            return await dispatch(registry, services, tool, args, caller, surface="mcp")

        lines = [f"real programs on Xvfb ({folder.name}), through classify_dialog / resolve_dialog / validate_action"]
        for split in ("tuning", "held-out"):
            for manifest in sorted(folder.glob("*/manifest.json")):
                if json.loads(manifest.read_text(encoding="utf-8"))["split"] == split:
                    lines += await _program(call, manifest)
        return lines


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench programs")
    parser.add_argument("--folder", type=Path, default=FOLDER)
    args = parser.parse_args(argv)
    return "\n".join(anyio.run(_run, args.folder))
