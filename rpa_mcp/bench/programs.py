"""Real programs drawn on Xvfb (tests/fixtures/real_programs), through the public tools over MCP.

Each dialog frame goes to `resolve_dialog` twice, as a client sends it: the frame alone, then with
the window the agent reports in front (its title and process, as the capture recorded them); each
before/after pair goes to `validate_action`. Calls go over the SDK's in-memory MCP client
(bench/tool_client.py). Reported per program, tuning and held-out apart: dialog ids, decisions,
`auto`/`skip`, verdicts, the latency of each path; misses are listed for tuning programs only, and
held-out programs are reported together (a held-out program is a figure, never a list to work from).
`rpa-mcp bench programs [--folder DIR]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import cv2
import numpy as np

from rpa_mcp.bench.tool_client import image_arg, tools
from rpa_mcp.bootstrap import build_services
from rpa_mcp.dialogs.catalog import load_dialog_catalog
from rpa_mcp.settings import Settings, shipped_dir

FOLDER = Path(__file__).resolve().parent.parent.parent / "tests" / "fixtures" / "real_programs"
SPLITS = ("tuning", "held-out")
Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass
class Figures:
    """One program's (or one split's) figures; `add` folds another's in."""

    frames: int = 0
    ids: dict[str, int] = field(default_factory=lambda: {"one frame": 0, "+ window": 0})
    paused: int = 0
    unsafe: int = 0  # auto or skip, in either mode (every dialog here is one a person decides)
    pairs: int = 0
    verdicts: int = 0
    ms: dict[str, list[float]] = field(default_factory=dict)  # resolve_dialog latency by path
    misses: list[str] = field(default_factory=list)

    def add(self, other: Figures) -> None:
        self.frames += other.frames
        for mode, n in other.ids.items():
            self.ids[mode] += n
        self.paused += other.paused
        self.unsafe += other.unsafe
        self.pairs += other.pairs
        self.verdicts += other.verdicts
        for path, values in other.ms.items():
            self.ms.setdefault(path, []).extend(values)

    def line(self, name: str, split: str) -> str:
        n = self.frames
        ids = "  ".join(f"ids ({mode}) {ok}/{n}" for mode, ok in self.ids.items())
        paths = ", ".join(f"{p} {statistics.median(v):.0f} ms (n={len(v)})" for p, v in sorted(self.ms.items()))
        return (
            f"  {name:10} {split:8}  {ids}  paused {self.paused}/{2 * n}  auto-or-skip {self.unsafe}  "
            f"verdicts {self.verdicts}/{self.pairs}  latency {paths}"
        )


def _read(folder: Path, file: str) -> np.ndarray:
    image = cv2.imread(str(folder / file), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"{folder / file}: not a readable image")
    return np.asarray(image)


def pair_args(folder: Path, pair: dict[str, Any]) -> dict[str, Any]:
    action = pair["action"]
    target = {k: action[k] for k in ("label", "bbox", "point") if action.get(k) is not None}
    args: dict[str, Any] = {
        "action_type": action["type"],
        "before": image_arg(_read(folder, pair["before"])),
        "after": image_arg(_read(folder, pair["after"])),
        "target": target or None,
    }
    if action.get("expected_text"):
        args["expected"] = {"text": action["expected_text"]}
    return args


async def program(call: Call, manifest: Path, policies: Mapping[str, str]) -> Figures:
    raw = json.loads(manifest.read_text(encoding="utf-8"))
    folder = manifest.parent
    out = Figures()
    for frame in raw["frames"]:
        out.frames += 1
        image = image_arg(_read(folder, frame["file"]))
        reported = {k: frame[v] for k, v in (("window_title", "window_title"), ("process", "process")) if frame.get(v)}
        for mode, args in (("one frame", {"image": image}), ("+ window", {"image": image, **reported})):
            start = time.perf_counter()
            decided = await call("resolve_dialog", args)
            out.ms.setdefault(str(decided.get("path", "fast")), []).append((time.perf_counter() - start) * 1000)
            got = decided["dialog_id"]
            out.ids[mode] += got == frame["expected_id"]
            out.paused += decided["decision"] == "pause"
            out.unsafe += decided["decision"] in ("auto", "skip") or policies.get(got) in ("auto", "skip")
            if got != frame["expected_id"] or decided["decision"] != "pause":
                out.misses.append(
                    f"    {frame['file']} ({mode}): want {frame['expected_id']}, got {got} "
                    f"(decision {decided['decision']}, {decided.get('path')})"
                )
    for pair in raw["pairs"]:
        out.pairs += 1
        got = await call("validate_action", pair_args(folder, pair))
        right = (got["verdict"], got.get("failure_category")) == (pair["verdict"], pair["failure_category"])
        out.verdicts += right
        if not right:
            out.misses.append(
                f"    {pair['id']}: want {pair['verdict']}/{pair['failure_category']}, "
                f"got {got['verdict']}/{got.get('failure_category')} ({got['rule']})"
            )
    return out


async def measure(folder: Path) -> dict[str, dict[str, Figures]]:
    """Every program's figures by split, through an MCP client session."""
    policies = {d.id: d.policy for d in load_dialog_catalog(shipped_dir("catalog") / "dialogs.yaml").dialogs}
    # a store file still being written at the session's end must not throw the figures away
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_secret="b" * 48, rate_limit_per_minute=10**7)
        async with tools(build_services(settings)) as client:
            by_split: dict[str, dict[str, Figures]] = {split: {} for split in SPLITS}
            for manifest in sorted(folder.glob("*/manifest.json")):
                raw = json.loads(manifest.read_text(encoding="utf-8"))
                by_split[raw["split"]][raw["program"]] = await program(client.call, manifest, policies)
            return by_split


def report(by_split: dict[str, dict[str, Figures]], folder: Path) -> list[str]:
    lines = [f"real programs on Xvfb ({folder.name}), resolve_dialog / validate_action over an MCP client"]
    for split in SPLITS:
        total = Figures()
        for name, figures in sorted(by_split[split].items()):
            if split == "tuning":  # a held-out program is one figure with the others, never its own line
                lines.append(figures.line(name, split))
                lines += figures.misses
            total.add(figures)
        lines.append(total.line("all", split))
    return lines


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench programs")
    parser.add_argument("--folder", type=Path, default=FOLDER)
    args = parser.parse_args(argv)
    return "\n".join(report(anyio.run(measure, args.folder), args.folder))
