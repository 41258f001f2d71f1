"""`rpa-mcp bench accuracy`: every accuracy figure of the vision areas, tuning and evaluation sets
side by side, screenshots of real software apart.

- tuning / evaluation: seeded sets rendered by `rpa_mcp.screens` (cached under
  `<data_dir>/bench/screens`, rebuilt when the generator changes); the evaluation set draws
  its content and a font from the halves the tuning set never shows (docs/decisions/
  vision-evaluation.md says how the split is kept honest);
- real: Chromium's own prompts captured on a virtual display (tests/fixtures/real);
- real programs on Xvfb, tuning programs beside whole programs held out, and the external
  evaluation set when present (rpa_mcp/bench/unseen.py);
- segmentation: the shadow's proposed steps against labelled demonstrations, by half
  (rpa_mcp/bench/segmentation.py).

Dialog and verdict figures come from `resolve_dialog` and `validate_action` called over an MCP
client session (rpa_mcp/bench/tool_client.py), each dialog frame alone then with the frame before
and the reported window. A section is a callable returning rows `{"metric", "tuning",
"evaluation", "target"}` (plus an optional "real" value); `SECTIONS` lists them in print order.
Options: `--salt S` draws a fresh evaluation set, `--scale F` multiplies the set sizes, `--misses`
lists every miss of the tuning set, `--only W1,W2` runs the sections whose titles start with them,
`--external DIR` names the external set.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rpa_mcp.bench import segmentation, unseen
from rpa_mcp.bench.scoring import (
    CATEGORY_NAMES,
    DialogScores,
    VerdictScores,
    median,
    pct,
    score_dialogs,
    score_verdicts,
)
from rpa_mcp.bench.tool_client import BlockingTools, blocking_tools
from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.screens.truth import ScreenSet
from rpa_mcp.settings import Settings
from rpa_mcp.vision.ocr import RapidOcrEngine

Row = dict[str, str]
REAL_DIR = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "real"


@dataclass
class Options:
    cache: Path
    salt: str = "1"
    scale: float = 1.0
    misses: bool = False
    external: str | None = None


_options: Options | None = None


def _opts() -> Options:
    global _options
    if _options is None:
        _options = Options(cache=Settings().data_dir / "bench" / "screens")
    return _options


def _progress(name: str) -> None:
    print(f"    rendered {name}", flush=True)


@cache
def screen_set(split: str) -> ScreenSet | None:
    """The tuning or evaluation set (rendered on first use), or the real-software set (None if absent)."""
    if split == "real":
        return ScreenSet(REAL_DIR) if any(REAL_DIR.glob("*.json")) else None
    from rpa_mcp.screens.corpus import ensure_sampled_set

    opts = _opts()
    print(f"  {split} set: {opts.cache} (salt {opts.salt}, scale {opts.scale:g})", flush=True)
    return ScreenSet(ensure_sampled_set(opts.cache, split, salt=opts.salt, scale=opts.scale, progress=_progress))  # type: ignore[arg-type]  # split is tuning|evaluation here


_session: contextlib.ExitStack | None = None
_tools: BlockingTools | None = None
_services: Services | None = None


def _open() -> tuple[Services, BlockingTools]:
    """The services as the server wires them, and an MCP client session on them (opened once per run)."""
    global _session, _tools, _services
    if _tools is None or _services is None:
        _session = contextlib.ExitStack()
        tmp = _session.enter_context(tempfile.TemporaryDirectory())
        _services = build_services(Settings(data_dir=Path(tmp), jwt_secret="b" * 48, rate_limit_per_minute=10**7))
        _services.validator.warm_up()
        _tools = _session.enter_context(blocking_tools(_services))
    return _services, _tools


def _close() -> None:
    global _session, _tools, _services
    if _session is not None:
        _session.close()
    _session, _tools, _services = None, None, None


def _cold() -> None:
    """Forget what the engines read: every timed call is cold."""
    services, _ = _open()
    engines = (services.dialogs.classifier.ocr, services.validator.ocr, services.validator.fast_ocr)
    for engine in {id(e): e for e in engines if e is not None}.values():
        if isinstance(engine, RapidOcrEngine):
            engine.clear_cache()


@cache
def dialog_scores(split: str) -> DialogScores | None:
    screens = screen_set(split)
    if screens is None:
        return None
    services, client = _open()
    return score_dialogs(screens, client.call, services.dialogs.catalog, cold=_cold)


@cache
def verdict_scores(split: str) -> VerdictScores | None:
    screens = screen_set(split)
    if screens is None:
        return None
    _, client = _open()
    return score_verdicts(screens, client.call, cold=_cold)


def _dialog_metrics(s: DialogScores) -> dict[str, str]:
    within = sum(i >= 0.7 for i in s.ious)
    ious = sorted(s.ious)
    out = {
        "dialog ids (+ frame before + window)": pct(s.ids_ok, s.n),
        "dialog ids (one frame)": pct(s.ids_one_frame, s.n),
        "policies (decision = catalog policy)": pct(s.policy_ok, s.n),
        "system dialogs paused": pct(s.system_paused, s.system),
        "unsafe auto": str(len(s.unsafe_auto)),
        "dialog box IoU >= 0.7": pct(within, len(s.ious)),
        "dialog box IoU, median": f"{ious[len(ious) // 2]:.2f}" if ious else "—",
        "frames without a dialog reported as one": f"{len(s.false_positives)}/{s.without}",
        "  the same, one frame": f"{len(s.false_positives_one_frame)}/{s.without}",
        "resolve_dialog over MCP, 1080p, CPU median": median(s.ms_1080),
        "  the same, wall time": median(s.wall_ms_1080),
    }
    for path, values in sorted(s.wall_ms_by_path.items()):
        out[f"  wall time, {path} path, every call"] = f"{median(values)} (n={len(values)})"
    for cat, name in CATEGORY_NAMES.items():
        ok, n = s.by_category.get(cat, [0, 0])
        out[f"  ids, {name} (category {cat})"] = pct(ok, n)
    return out


DIALOG_TARGETS = {
    "dialog ids (+ frame before + window)": ">= 97 % (evaluation)",
    "system dialogs paused": "100 %",
    "unsafe auto": "0",
    "dialog box IoU >= 0.7": "",
    "resolve_dialog over MCP, 1080p, CPU median": "<= 100 ms",
}


def _side_by_side(metrics: Callable[[str], dict[str, str] | None], targets: dict[str, str]) -> list[Row]:
    tuning, evaluation = metrics("tuning") or {}, metrics("evaluation") or {}
    return [
        {"metric": m, "tuning": tuning.get(m, "—"), "evaluation": evaluation.get(m, "—"), "target": targets.get(m, "")}
        for m in dict.fromkeys([*tuning, *evaluation])
    ]


def dialog_rows() -> list[Row]:
    def metrics(split: str) -> dict[str, str] | None:
        s = dialog_scores(split)
        return _dialog_metrics(s) if s else None

    return _side_by_side(metrics, DIALOG_TARGETS)


def _verdict_metrics(s: VerdictScores) -> dict[str, str]:
    out = {
        "verdicts, target box given": pct(s.ok_box, s.n),
        "verdicts, label + click point only": pct(s.ok_nobox, s.n),
        "a SUCCESS that did not happen": str(len(s.false_success)),
        "pairs not scored (target off the frame)": str(len(s.unscored)),
        "validate_action over MCP, 1080p, CPU median, box": median(s.ms_box_1080),
        "validate_action over MCP, 1080p, CPU median, no box": median(s.ms_nobox_1080),
        "  wall time, box / no box": f"{median(s.wall_ms_box_1080)} / {median(s.wall_ms_nobox_1080)}",
    }
    for category, (ok_box, ok_nobox, n) in sorted(s.by_category.items()):
        out[f"  {category} (box / no box)"] = f"{ok_box}/{n} / {ok_nobox}/{n}"
    return out


VERDICT_TARGETS = {
    "verdicts, target box given": ">= 97 % (evaluation)",
    "a SUCCESS that did not happen": "0",
    "validate_action over MCP, 1080p, CPU median, box": "<= 60 ms",
    "validate_action over MCP, 1080p, CPU median, no box": "<= 150 ms",
}


def validator_rows() -> list[Row]:
    def metrics(split: str) -> dict[str, str] | None:
        s = verdict_scores(split)
        return _verdict_metrics(s) if s else None

    return _side_by_side(metrics, VERDICT_TARGETS)


def real_rows() -> list[Row]:
    """Real software: the dialog figures of the captured Chromium prompts, in the `real` column."""
    s = dialog_scores("real")
    if s is None:
        return [{"metric": "real-software screenshots", "tuning": "—", "evaluation": "—", "target": "",
                 "real": f"none found in {REAL_DIR}"}]  # fmt: skip
    rows = [
        {"metric": m, "tuning": "—", "evaluation": "—", "target": t, "real": v}
        for m, v, t in (
            ("dialog ids (+ frame before + window)", pct(s.ids_ok, s.n), ">= 95 %"),
            ("dialog ids (one frame)", pct(s.ids_one_frame, s.n), ">= 95 %"),
            ("policies (decision = catalog policy)", pct(s.policy_ok, s.n), ""),
            ("unsafe auto", str(len(s.unsafe_auto)), "0"),
            ("dialog box IoU >= 0.7", pct(sum(i >= 0.7 for i in s.ious), len(s.ious)), ""),
            ("frames without a dialog reported as one", f"{len(s.false_positives)}/{s.without}", "0"),
        )
    ]
    v = verdict_scores("real")
    if v is not None and v.n:
        rows.append({"metric": "verdicts (the key press opened the prompt)", "tuning": "—", "evaluation": "—",
                     "target": "", "real": pct(v.ok_box, v.n)})  # fmt: skip
        rows.append({"metric": "a SUCCESS that did not happen", "tuning": "—", "evaluation": "—", "target": "0",
                     "real": str(len(v.false_success))})  # fmt: skip
    return rows


def segmentation_rows() -> list[Row]:
    """The shadow's segmentation on the labelled demonstrations, both halves (rpa_mcp/bench/segmentation.py)."""
    return segmentation.accuracy_rows()


def program_rows() -> list[Row]:
    """Real programs on Xvfb, whole programs held out (rpa_mcp/bench/unseen.py)."""
    return unseen.program_rows()


def external_rows() -> list[Row]:
    """The independently drawn set, when present (rpa_mcp/bench/unseen.py)."""
    _, client = _open()
    return unseen.external_rows(client.call, _opts().external)


SECTIONS: tuple[tuple[str, Callable[[], list[Row]]], ...] = (
    ("dialogs", dialog_rows),
    ("validator verdicts", validator_rows),
    ("real software (Chromium's own prompts, Xvfb, fr/en)", real_rows),
    ("real programs on Xvfb (tuning programs | whole programs held out)", program_rows),
    ("external evaluation set (drawn by an independent author; never tuned on)", external_rows),
    ("segmentation (labelled demonstrations, halves fixed by name)", segmentation_rows),
)


def format_section(title: str, rows: list[Row]) -> str:
    real = any("real" in r for r in rows)
    columns = ["metric", "tuning", "evaluation", *(["real"] if real else []), "target"]
    widths = {c: max(len(c), *(len(r.get(c, "")) for r in rows)) for c in columns}
    line = "  ".join(c.ljust(widths[c]) for c in columns)
    out = [title, "  " + line, "  " + "  ".join("-" * widths[c] for c in columns)]
    out += ["  " + "  ".join(r.get(c, "").ljust(widths[c]) for c in columns) for r in rows]
    return "\n".join(out)


def _misses() -> list[str]:
    """The tuning set's misses only: what rules may be worked on (the evaluation and real sets are
    reported as figures, never as lists to fix: docs/decisions/vision-evaluation.md)."""
    lines = []
    for split in ("tuning",):
        d, v = dialog_scores(split), verdict_scores(split)
        for label, items in (("dialog", d.misses + d.false_positives + d.unsafe_auto if d else []),
                             ("verdict", v.misses + v.unscored if v else [])):  # fmt: skip
            lines += [f"  {split} {label}: {m}" for m in items]
    return lines


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench accuracy")
    parser.add_argument("--salt", default="1", help="seeds of the sets (a new salt = a fresh evaluation set)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the number of frames per family")
    parser.add_argument("--cache", type=Path, default=None, help="where rendered sets are kept")
    parser.add_argument(
        "--misses", action="store_true", help="list every miss (tuning: to work on; never tune on the rest)"
    )
    parser.add_argument(
        "--external", default=None, help="the external evaluation set's folder (default: beside the checkout)"
    )
    parser.add_argument("--only", default=None, help="comma-separated section titles' first words (e.g. dialogs,real)")
    args = parser.parse_args(argv)
    global _options
    _options = Options(cache=args.cache or Settings().data_dir / "bench" / "screens", salt=args.salt, scale=args.scale,
                       misses=args.misses, external=args.external)  # fmt: skip
    for fn in (screen_set, dialog_scores, verdict_scores):
        fn.cache_clear()
    chosen = [w.strip() for w in args.only.split(",")] if args.only else None
    try:
        blocks = [
            format_section(title, section())
            for title, section in SECTIONS
            if chosen is None or any(title.startswith(w) for w in chosen)
        ]
        if args.misses:
            blocks.append("misses\n" + "\n".join(_misses()))
    finally:
        _close()
    blocks.append(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus (timings move with it)")
    return "\n\n".join(blocks)
