"""`rpa-mcp bench dialogs-public`: `resolve_dialog` called over MCP as a client calls it, per set.

Each frame twice: the frame alone (what a client that has one screenshot sends), then with the
frame before (when the set has one) and the agent-reported window (its title and process, when the
set records them). Per set and mode: ids right (a generic kind counts where the truth is `unknown`),
decisions, `auto`/`skip` where a person must decide, and the latency of each path (fast, thorough).

Sets: the committed corpus (`canonical`, drawn by the project's generator), Chromium's own prompts
(`real`, tests/fixtures/real), and, when present beside the checkout, the independently drawn
`shared/external-eval/round1` (images and real prompts): unseen, never tuned on (say so when
absent). `--external DIR` names another folder; `--limit N` caps the frames per set.
"""

from __future__ import annotations

import base64
import contextlib
import json
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import cv2
import httpx2
import numpy as np
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.bench import corpus
from rpa_mcp.bench.mcp import serving
from rpa_mcp.bootstrap import build_services
from rpa_mcp.dialogs.catalog import GENERIC_IDS, load_dialog_catalog
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.screens.truth import ScreenSet
from rpa_mcp.settings import Settings, shipped_dir

REPO = Path(__file__).resolve().parents[2]
REAL_DIR = REPO / "tests" / "fixtures" / "real"
MUST_DECIDE = "pause"


@dataclass(frozen=True)
class Case:
    name: str
    image: np.ndarray
    truth: tuple[str, ...]  # ids accepted as right
    policy: str  # the expected policy (pause: a person must decide)
    previous: np.ndarray | None = None
    window: tuple[str | None, str | None] = (None, None)


@dataclass
class Tally:
    n: int = 0
    right: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    unsafe: list[str] = field(default_factory=list)  # auto/skip where a person must decide
    latency: dict[str, list[float]] = field(default_factory=dict)  # by path
    misses: list[str] = field(default_factory=list)

    def add(self, case: Case, out: dict[str, Any], ms: float) -> None:
        self.n += 1
        got = str(out["dialog_id"])
        if got in case.truth or ("unknown" in case.truth and got in GENERIC_IDS):
            self.right += 1
        else:
            self.misses.append(f"{case.name}: {'/'.join(case.truth)} -> {got}")
        decision = str(out["decision"])
        self.decisions[decision] = self.decisions.get(decision, 0) + 1
        if case.policy == MUST_DECIDE and decision != "pause":
            self.unsafe.append(f"{case.name}: {decision} {got}")
        self.latency.setdefault(str(out.get("path", "fast")), []).append(ms)

    def lines(self, label: str) -> list[str]:
        pct = 100.0 * self.right / max(1, self.n)
        decided = ", ".join(f"{k} {v}" for k, v in sorted(self.decisions.items()))
        paths = "; ".join(
            f"{path} median {statistics.median(v):.0f} ms (n={len(v)})" for path, v in sorted(self.latency.items())
        )
        out = [
            f"  {label:34} ids {self.right}/{self.n} ({pct:.0f} %)  decisions: {decided}",
            f"  {'':34} auto/skip where a person decides: {len(self.unsafe)}  latency: {paths}",
        ]
        out += [f"  {'':34}   UNSAFE {u}" for u in self.unsafe]
        return out


def _screens(folder: ScreenSet, name: str) -> Iterator[Case]:
    pairs = {p.after.file: p for p in folder.pairs}
    for frame in folder.frames:
        if frame.dialog is None:
            continue
        pair = pairs.get(frame.file)
        yield Case(
            f"{name}/{frame.file}",
            folder.image(frame.file),
            (frame.dialog.id,),
            _policy(frame.dialog.id),
            folder.image(pair.before.file) if pair else None,
            (frame.window_title or None, frame.process or None),
        )
    for pair in folder.pairs:
        if pair.after.dialog is not None and pair.after.file not in {f.file for f in folder.frames}:
            dialog = pair.after.dialog
            yield Case(
                f"{name}/{pair.after.file}",
                folder.image(pair.after.file),
                (dialog.id,),
                _policy(dialog.id),
                folder.image(pair.before.file),
                (pair.after.window_title or None, pair.after.process or None),
            )


_CATALOG_POLICY: dict[str, str] = {}


def _policy(dialog_id: str) -> str:
    return _CATALOG_POLICY.get(dialog_id, MUST_DECIDE)


def external_dir(given: str | None) -> Path | None:
    """`--external DIR`, else round1 of shared/external-eval beside the checkout (or its parent)."""
    if given:
        return Path(given)
    for base in (REPO.parent, REPO.parent.parent):
        folder = base / "shared" / "external-eval" / "round1"
        if (folder / "manifest.json").is_file():
            return folder
    return None


def external_cases(folder: Path) -> Iterator[Case]:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest.get("entries", []):
        if entry.get("kind") != "dialog":
            continue
        truth = entry["ground_truth"]
        image = _read(folder / entry["file"])
        title = entry.get("foreground_window_title")
        yield Case(
            f"external/{entry['id']}", image, (truth["dialog_kind"],), truth["expected_policy"], None, (title, None)
        )
    real = folder / "real" / "manifest.json"
    if real.is_file():
        for entry in json.loads(real.read_text(encoding="utf-8")):
            image = _read(folder / "real" / entry["file"])
            window = (entry.get("window_title"), entry.get("process"))
            yield Case(f"external-real/{entry['file']}", image, tuple(entry["id_ok"]), entry["policy"], None, window)


def _read(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"{path}: not a readable image")
    return np.asarray(image)


def _b64(image: np.ndarray) -> str:
    return base64.b64encode(cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 1])[1].tobytes()).decode()


@contextlib.asynccontextmanager
async def _client(url: str, token: str) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


async def _resolve(client: Client, args: dict[str, Any]) -> tuple[dict[str, Any], float]:
    start = time.perf_counter()
    result = await client.call_tool("resolve_dialog", args)
    ms = (time.perf_counter() - start) * 1000
    assert not result.is_error, result.content
    return dict(result.structured_content or {}), ms


async def _run(sets: dict[str, list[Case]]) -> list[str]:
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_secret="b" * 48, rate_limit_per_minute=10**7)
        services = build_services(settings)
        token = services.access_tokens.mint("bench", ["operator"])
        # every timed call reads its frame afresh (no memory of crops read by the call before)
        clear = getattr(services.dialogs.classifier.ocr, "clear_cache", lambda: None)
        async with serving(create_app(settings, services=services)) as url, _client(url, token) as client:
            first = next((c for cases in sets.values() for c in cases), None)
            if first is not None:  # warm-up: engine construction, first inference
                await _resolve(client, {"image": {"png_base64": _b64(first.image)}})
            for name, cases in sets.items():
                alone, evidence = Tally(), Tally()
                for case in cases:
                    args: dict[str, Any] = {"image": {"png_base64": _b64(case.image)}}
                    clear()
                    alone.add(case, *await _resolve(client, args))
                    if case.previous is not None and case.previous.shape == case.image.shape:
                        args["previous"] = {"png_base64": _b64(case.previous)}
                    title, process = case.window
                    if title or process:
                        args["windows"] = [{"title": title, "process": process}]
                    clear()
                    evidence.add(case, *await _resolve(client, args))
                out.append(f"{name} ({len(cases)} frames)")
                out += alone.lines("one frame")
                out += evidence.lines("+ frame before + reported window")
                out += [f"    miss (one frame) {m}" for m in alone.misses[:12]]
                out += [f"    miss (with evidence) {m}" for m in evidence.misses[:12]]
    return out


def run(argv: list[str]) -> str:
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
    given = argv[argv.index("--external") + 1] if "--external" in argv else None
    catalog = load_dialog_catalog(shipped_dir("catalog") / "dialogs.yaml")
    _CATALOG_POLICY.update({d.id: d.policy for d in catalog.dialogs})  # the expected policy of a truth id
    sets: dict[str, list[Case]] = {"canonical (generator)": list(_screens(corpus(), "canonical"))}
    if any(REAL_DIR.glob("*.json")):
        sets["real Chromium (committed)"] = list(_screens(ScreenSet(REAL_DIR), "real"))
    external = external_dir(given)
    notes = []
    if external is None:
        notes.append("external-eval: absent (no shared/external-eval/round1 beside the checkout)")
    else:
        sets["external-eval round1 (unseen)"] = list(external_cases(external))
        notes.append(f"external-eval: {external} (drawn by an independent author; never tuned on)")
    if limit:
        sets = {k: v[:limit] for k, v in sets.items()}
    return "\n".join([*notes, *anyio.run(_run, sets)])
