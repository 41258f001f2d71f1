"""The sections of `rpa-mcp bench accuracy` drawn by no generator of the project.

- real programs on Xvfb (tests/fixtures/real_programs): tuning programs in the `tuning` column,
  whole programs held out in the `evaluation` column (bench/programs.py measures them);
- the independently drawn external evaluation set, when present beside the checkout
  (`shared/external-eval/round1`, or `--external DIR`): only a figure, never tuned on.
Both through the public tools over an MCP client session, one frame then with the reported window.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from rpa_mcp.bench import programs
from rpa_mcp.bench.dialogs_public import Case, external_cases, external_dir
from rpa_mcp.bench.tool_client import image_arg, windows_arg
from rpa_mcp.dialogs.catalog import GENERIC_IDS

Row = dict[str, str]
Call = Callable[[str, dict[str, Any]], dict[str, Any]]


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ms (n={len(values)})" if values else "—"


def program_rows(folder: Path = programs.FOLDER) -> list[Row]:
    by_split = anyio.run(programs.measure, folder)
    totals = {split: programs.Figures() for split in programs.SPLITS}
    for split, figures in by_split.items():
        for one in figures.values():
            totals[split].add(one)

    def row(metric: str, value: Callable[[programs.Figures], str], target: str = "") -> Row:
        tuning, held = totals["tuning"], totals["held-out"]
        return {"metric": metric, "tuning": value(tuning), "evaluation": value(held), "target": target}

    names = {split: ", ".join(sorted(by_split[split])) for split in programs.SPLITS}
    return [
        {"metric": "programs", "tuning": names["tuning"], "evaluation": names["held-out"], "target": ""},
        row("dialog ids (one frame)", lambda f: f"{f.ids['one frame']}/{f.frames}", ">= 95 %"),
        row("dialog ids (+ reported window)", lambda f: f"{f.ids['+ window']}/{f.frames}", ">= 95 %"),
        row("paused (both modes)", lambda f: f"{f.paused}/{2 * f.frames}", "100 %"),
        row("auto or skip", lambda f: str(f.unsafe), "0"),
        row("verdicts", lambda f: f"{f.verdicts}/{f.pairs}", ">= 95 %"),
        row("resolve_dialog wall time, fast path", lambda f: _ms(f.ms.get("fast", [])), "<= 100 ms"),
        row("resolve_dialog wall time, thorough path", lambda f: _ms(f.ms.get("thorough", []))),
        row("resolve_dialog wall time, title path", lambda f: _ms(f.ms.get("title", []))),
    ]


def external_rows(call: Call, given: str | None = None) -> list[Row]:
    folder = external_dir(given)
    if folder is None:
        return [{"metric": "external evaluation set", "tuning": "—", "evaluation": "absent", "target": ""}]
    cases = list(external_cases(folder))
    right = {"one frame": 0, "+ reported window": 0}
    unsafe = paused = 0
    for case in cases:
        alone: dict[str, Any] = {"image": image_arg(case.image)}
        title, process = case.window
        for mode, arguments in (
            ("one frame", alone),
            ("+ reported window", {**alone, "windows": windows_arg(title, process)}),
        ):
            answer = call("resolve_dialog", arguments)
            right[mode] += _right(case, str(answer["dialog_id"]))
            paused += answer["decision"] == "pause"
            unsafe += case.policy == "pause" and answer["decision"] != "pause"
    n = len(cases)
    return [
        {"metric": "external: frames (independent author)", "tuning": "—", "evaluation": str(n), "target": ""},
        *(
            {"metric": f"external: dialog ids ({mode})", "tuning": "—", "evaluation": f"{ok}/{n}", "target": ">= 95 %"}
            for mode, ok in right.items()
        ),
        {
            "metric": "external: auto/skip where a person decides",
            "tuning": "—",
            "evaluation": str(unsafe),
            "target": "0",
        },
        {"metric": "external: paused (both modes)", "tuning": "—", "evaluation": f"{paused}/{2 * n}", "target": ""},
    ]


def _right(case: Case, got: str) -> bool:
    """The truth's id, or a generic kind where the truth is `unknown` (no specific entry fits)."""
    return got in case.truth or ("unknown" in case.truth and got in GENERIC_IDS)
