"""`rpa-mcp bench dialogs-mcp [--rest --repeat N]`: classify_dialog over MCP against the same classification
in process, same frames, same run.

Frames are 1080p dialogs of the committed corpus, re-encoded as true-colour PNG at a fast zlib
level (about the size an agent's screenshot has). Figures: the classifier alone on the decoded
frame, decode + classifier, `dispatch()` in process (arguments checked, audit row, output
checked), and the SDK client over Streamable HTTP to a uvicorn server in this process. The
ratio that matters is MCP / in process within this run. The engines are the server's own
(`build_ocr` / `build_dialog_ocr`: the classifier's int8 recognizer where the CPU runs int8 fast),
with no memory of read crops: every call reads its frame afresh.
"""

from __future__ import annotations

import base64
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import cv2

from rpa_mcp.bench import corpus
from rpa_mcp.bench.mcp import _calls, serving
from rpa_mcp.bootstrap import Services, build_dialog_ocr, build_ocr, build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.settings import Settings
from rpa_mcp.vision.images import decode_base64, decode_image


def _median_ms(values: list[float]) -> float:
    return statistics.median(values)


def frames(limit: int = 6) -> list[tuple[Any, str]]:
    out = []
    for frame in corpus().frames:
        if frame.dialog is not None and frame.size == (1920, 1080):
            image = corpus().image(frame.file)
            png = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 1])[1].tobytes()
            out.append((image, base64.b64encode(png).decode("ascii")))
        if len(out) >= limit:
            break
    return out


def services_reading_afresh(settings: Settings) -> Services:
    """The services as the server builds them (its own OCR engines: the classifier's int8 one where the
    CPU runs int8 fast), with no memory of read crops: every call reads its frame afresh."""
    ocr = build_ocr(settings, cache_entries=0)
    return build_services(settings, ocr=ocr, dialog_ocr=build_dialog_ocr(settings, ocr, cache_entries=0))


async def _run(repeat: int) -> list[str]:
    cases = frames()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_secret="b" * 48, rate_limit_per_minute=10**7)
        services = services_reading_afresh(settings)
        dialogs = services.dialogs
        token = services.access_tokens.mint("bench", ["operator"])
        registry = build_registry()
        caller = Caller("bench", frozenset({"operator"}))
        alone, decoded, dispatched, over = [], [], [], []
        for image, _b64 in cases:
            dialogs.classify(image)  # warm-up
        for _ in range(repeat):
            for image, b64 in cases:
                t0 = time.perf_counter()
                dialogs.classify(image)
                alone.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                dialogs.classify(decode_image(decode_base64(b64, field="image")))
                decoded.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                await dispatch(registry, services, "classify_dialog", {"image": {"png_base64": b64}}, caller,
                               surface="mcp")  # fmt: skip
                dispatched.append((time.perf_counter() - t0) * 1000)
        app = create_app(settings, services=services)
        async with serving(app) as url:
            for _image, b64 in cases:
                over += await _calls(url, token, "classify_dialog", {"image": {"png_base64": b64}}, repeat, 1)
    base = _median_ms(alone)
    sizes = [len(b64) * 3 // 4 for _i, b64 in cases]

    def line(what: str, values: list[float], target: str = "") -> str:
        return f"  {what:34} median {_median_ms(values):7.1f} ms  ratio {_median_ms(values) / base:.2f}{target}"

    engine = getattr(dialogs.classifier.ocr, "recognizer_model", None)
    return [
        f"classify_dialog, {len(cases)} 1080p frames x {repeat} (PNG {min(sizes) // 1000}-{max(sizes) // 1000} kB)",
        f"  classifier's recognizer: {engine.name if engine else 'the wheel model (float)'}",
        line("in process, decoded frame", alone),
        line("in process, base64 + PNG decode", decoded),
        line("dispatch() in process", dispatched),
        line("over MCP (SDK client, HTTP)", over, "  (target <= 1.2; <= 100 ms median on the fast path)"),
        f"  load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus (timings move with it)",
    ]


def run(argv: list[str]) -> str:
    repeat = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else 3
    return "\n".join(anyio.run(_run, repeat))
