"""Fair image work: another person's small call while one caller floods classify_dialog.

A viewer keeps `calls` classify_dialog calls in flight, each with a near-limit screenshot
(6300x6300 = 39.7 Mpx, a dialog drawn on it); a 429 is retried 0.2 s later. Meanwhile an
operator's small call (a 640x400 dialog) is timed one after the other, and an agent's
validate_action too, after one warm-up call (the first classification builds the OCR engine).
Each figure is measured twice on a real server in a child process: with the image work shared
as before (2 slots, no share per identity, nothing reserved) and with this server's defaults
(`RPA_IMAGE_WORK_*`).
"""

from __future__ import annotations

import base64
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import cv2
import httpx2
import numpy as np

from rpa_mcp.bench import summary
from rpa_mcp.bench.server import ServerProcess, server_process

BEFORE = {
    "RPA_IMAGE_WORK_SLOTS": "2",
    "RPA_IMAGE_WORK_RESERVED_SLOTS": "0",
    "RPA_IMAGE_WORK_PER_IDENTITY": "64",
    "RPA_IMAGE_WORK_QUEUE_PER_IDENTITY": "1000",
}
SAMPLES = 12
CLASSIFY = "/api/v1/tools/classify_dialog"


def dialog_png(width: int, height: int) -> str:
    """A grey screen with a dialog box, its title and two buttons, as base64 PNG."""
    frame = np.full((height, width, 3), 90, np.uint8)
    w, h = min(600, width - 40), min(240, height - 40)
    x, y = (width - w) // 2, (height - h) // 2
    cv2.rectangle(frame, (x, y), (x + w, y + h), (245, 245, 245), -1)
    cv2.putText(frame, "Enregistrer les modifications ?", (x + 20, y + 50), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    for i, label in enumerate(("Oui", "Non")):
        bx = x + w - 220 + i * 110
        cv2.rectangle(frame, (bx, y + h - 60), (bx + 90, y + h - 20), (210, 210, 210), -1)
        cv2.putText(frame, label, (bx + 20, y + h - 32), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2)
    ok, buf = cv2.imencode(".png", frame)
    assert ok
    return base64.b64encode(buf.tobytes()).decode()


async def timed(client: httpx2.AsyncClient, path: str, body: dict[str, Any], token: str) -> tuple[float, int]:
    started = time.perf_counter()
    r = await client.post(path, json=body, headers={"authorization": f"Bearer {token}"})
    return (time.perf_counter() - started) * 1000, r.status_code


async def under_flood(server: ServerProcess, calls: int) -> list[str]:
    viewer, person, agent = server.token("viewer", subject="vera"), server.token("operator"), server.agent_token
    big = {"image": {"png_base64": dialog_png(6300, 6300)}}
    small = {"image": {"png_base64": dialog_png(640, 400)}}
    frame = {"png_base64": dialog_png(640, 400)}
    validation = {"action_type": "click_anchor", "before": frame, "after": frame}
    async with httpx2.AsyncClient(base_url=server.base, timeout=600) as client:
        await timed(client, CLASSIFY, big, viewer)  # warm-up: the first classification builds the OCR engine
        alone = [(await timed(client, CLASSIFY, small, person))[0] for _ in range(SAMPLES)]
        flood_ms, _ = await timed(client, CLASSIFY, big, viewer)
        done = anyio.Event()
        statuses: dict[int, int] = {}
        small_ms: list[float] = []
        agent_ms: list[float] = []

        async def flooder() -> None:
            while not done.is_set():
                _, status = await timed(client, CLASSIFY, big, viewer)
                statuses[status] = statuses.get(status, 0) + 1
                if status == 429:
                    await anyio.sleep(0.2)

        async with anyio.create_task_group() as group:
            for _ in range(calls):
                group.start_soon(flooder)
            await anyio.sleep(flood_ms / 1000)  # the flood's calls all admitted or refused once
            for _ in range(SAMPLES):
                took, status = await timed(client, CLASSIFY, small, person)
                small_ms.append(took if status == 200 else float("nan"))
                took, status = await timed(client, "/api/v1/validate", validation, agent)
                agent_ms.append(took if status == 200 else float("nan"))
            done.set()
    return [
        f"  small classify_dialog alone:        {summary(alone)}",
        f"  one near-limit call alone:          {flood_ms:8.0f} ms",
        f"  small call during the flood:        {summary(small_ms)}   max {max(small_ms):.0f} ms",
        f"  agent validate_action, same time:   {summary(agent_ms)}   max {max(agent_ms):.0f} ms",
        f"  flooder's answers: {dict(sorted(statuses.items()))}",
    ]


async def measure(calls: int) -> list[str]:
    lines = [f"fair image work: a viewer keeps {calls} classify_dialog calls with a 6300x6300 screenshot in flight:"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, env in (("before (2 slots shared by all)", BEFORE), ("now (defaults)", {})):
            with server_process(Path(tmp) / name.split()[0], env=env) as server:
                lines.append(f" {name}:")
                lines += await under_flood(server, calls)
    return lines
