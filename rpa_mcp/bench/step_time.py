"""Where a replayed step's time goes, from the agent's phase moments of each of its actions."""

from __future__ import annotations

import statistics

from rpa_mcp.bench.app_specs import Run

SPLIT = (  # (part, from the agent's mark, to its mark); "next" is the next action's mark
    ("receipt + start acks", "polled", "started"),
    ("before-screenshot", "started", "shot"),
    ("resolve (server + identity)", "shot", "resolved"),
    ("click, focus, typing", "resolved", "injected"),
    ("settle wait", "injected", "settled"),
    ("after-screenshot", "settled", "encoded"),
    ("report + validation", "encoded", "reported"),
    ("dispatch + poll", "reported", "next polled"),
)


def time_split(runs: list[Run]) -> list[str]:
    """Per step, the median time of each part of the agent's loop over the complete runs (the looks before
    the first step and after the last included, as in the run's time), from the agent's phase moments."""
    parts: dict[str, list[float]] = {name: [] for name, _, _ in SPLIT}
    looks = 0
    for r in runs:
        if not r.steps or not r.marks:
            continue
        per_run = dict.fromkeys(parts, 0.0)
        looks += len(r.marks) - r.steps
        for n, marks in enumerate(r.marks):
            after = r.marks[n + 1] if n + 1 < len(r.marks) else {}
            for name, begin, end in SPLIT:
                stop = after.get("polled") if end == "next polled" else marks.get(end)
                start = marks.get(begin) if begin != "resolved" else marks.get("resolved", marks.get("shot"))
                if isinstance(start, float) and isinstance(stop, float):
                    per_run[name] += stop - start
        for name, total in per_run.items():
            parts[name].append(total / r.steps)
    if not any(parts.values()):
        return []
    medians = {name: statistics.median(values) for name, values in parts.items() if values}
    lines = [f"  per step, where the time goes (median over complete runs; {looks} looks without input included):"]
    lines += [f"    {name:<28} {1000 * s:7.0f} ms" for name, s in medians.items()]
    return lines + kind_split(runs)


KIND_PARTS = SPLIT[2:5]  # resolve, input, settle: the parts that differ by the kind of step


def kind_split(runs: list[Run]) -> list[str]:
    """Per kind of step (its action type), the median of the parts that differ by kind, in ms."""
    spans: dict[str, dict[str, list[float]]] = {}
    for r in runs:
        for marks in r.marks if r.steps else []:
            kind = str(marks.get("action_type") or "?")
            for name, begin, end in KIND_PARTS:
                start = marks.get(begin) if begin != "resolved" else marks.get("resolved", marks.get("shot"))
                stop = marks.get(end)
                if isinstance(start, float) and isinstance(stop, float):
                    spans.setdefault(kind, {}).setdefault(name, []).append(stop - start)
    if not spans:
        return []
    lines = ["  per kind of step, median ms (" + " / ".join(name.split(" (")[0] for name, _, _ in KIND_PARTS) + "):"]
    for kind, parts in sorted(spans.items()):
        count = max(len(v) for v in parts.values())
        cells = " / ".join(
            f"{1000 * statistics.median(parts[name]):.0f}" if name in parts else "-" for name, _, _ in KIND_PARTS
        )
        lines.append(f"    {kind:<28} {cells}   ({count} steps)")
    return lines
