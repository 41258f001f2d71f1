"""`rpa-mcp bench console`: the replay timeline in a real browser (Chromium through Playwright).

- page weight of a timeline with 200 verified actions (HTML, stylesheet, script, and the crops a
  1366x768 window actually loads: the others are lazy);
- time to first render (first contentful paint) and to DOMContentLoaded of that page, median of
  several cold loads;
- the delay between a report arriving and the timeline showing it (target < 1 s): a scripted
  agent reports each action of a second replay over HTTP while the page is open; the page notes
  (in the browser, `Date.now()`) when the action's row turns ACKED. Two figures: from the moment
  the report's HTTP answer came back (committed: the console's own latency) and from the moment
  it was sent (including the server's verification of the screenshots).

Agent, server and browser share this machine's two cores; figures are medians within one run.
Needs Chromium (`RPA_CHROMIUM`, default /usr/bin/chromium) and Playwright (the `test` extra).
"""

from __future__ import annotations

import argparse
import base64
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import cv2
import numpy as np

from rpa_mcp.settings import Settings

AGENT_TOKEN = "bench-agent-static-token-0123456789"
MACHINE = "bench-pc"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _screen(i: int) -> str:
    """A small synthetic screen (PNG, base64) that differs a little from one action to the next."""
    image = np.full((360, 640, 3), 238, np.uint8)
    cv2.rectangle(image, (0, 0), (640, 40), (60, 40, 20), -1)
    cv2.putText(image, f"Dossier patient - etape {i}", (20, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
    cv2.rectangle(image, (40 + (i % 10) * 50, 120), (120 + (i % 10) * 50, 160), (200, 120, 30), -1)
    ok, png = cv2.imencode(".png", image)
    assert ok
    return base64.b64encode(png.tobytes()).decode()


def _steps(n: int, anchor_ref: str) -> list[dict[str, Any]]:
    return [
        {
            "index": i,
            "intent": f"Wait for the record to settle ({i + 1})",
            "action_type": "wait",
            "target": {"label": f"Zone {i + 1}", "bbox": [40, 120, 80, 40], "anchor_ref": anchor_ref},
            "params": {"ms": 100},
        }
        for i in range(n)
    ]


class Bench:
    def __init__(self, data_dir: Path) -> None:
        from rpa_mcp.bootstrap import build_services

        settings = Settings(
            data_dir=data_dir,
            jwt_secret="bench-secret-key-that-is-long-enough-0123456789",
            api_token=AGENT_TOKEN,
            rate_limit_per_minute=1_000_000,
        )
        self.services = build_services(settings)
        ok, png = cv2.imencode(".png", np.full((80, 300, 3), 200, np.uint8))
        assert ok
        shot = self.services.traces.put_screenshot(
            png.tobytes(), session_id=None, kind="anchor", mime="image/png", width=300, height=80, now=time.time()
        )
        self.anchor = f"rpa://screenshots/{shot}"

    async def start(self, n: int) -> str:
        replay_id: str = await self.services.replay.start(
            steps=_steps(n, self.anchor),
            competence=f"Bench {n}",
            version=1,
            machine_id=MACHINE,
            params={},
            created_by="bench",
        )
        return replay_id

    async def report_one(self, http: Any, i: int) -> tuple[str, float, float]:
        """Poll one action and report it done; (action_id, sent at, answered at) in epoch seconds."""
        got = await http.get("/api/v1/replay/next", params={"machine_id": MACHINE, "wait": 5})
        if got.status_code != 200:
            raise RuntimeError(f"no action to report (GET /api/v1/replay/next answered {got.status_code})")
        action = got.json()  # the action object itself (the wire contract)
        before, after = _screen(i), _screen(i + 1)
        sent = time.time()
        answer = await http.post(
            "/api/v1/replay/result",
            json={
                "replay_id": action["replay_id"],
                "action_id": action["action_id"],
                "attempt_id": action["attempt_id"],
                "success": True,
                "actual_position": [80, 140],
                "screenshot_before": before,
                "screenshot_after": after,
                "window_title": "Dossier patient",
                "window_title_before": "Dossier patient",
            },
        )
        answered = time.time()
        assert answer.status_code == 200, answer.text
        return str(action["action_id"]), sent, answered


async def _serve(app: Any) -> tuple[str, Any]:
    import uvicorn

    from rpa_mcp.testing import loopback_socket

    sock = loopback_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    return f"http://127.0.0.1:{sock.getsockname()[1]}", (server, sock)


async def _cookie(http: Any, token: str) -> str:
    page = await http.get("/console/login")
    nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
    assert nonce is not None
    response = await http.post(
        "/console/login",
        data={"token": token, "login_csrf": nonce[1]},
        headers={"origin": str(http.base_url).rstrip("/")},
    )
    return str(response.cookies["rpa_console"])


OBSERVE = """ids => { window.__seen = {}; const want = new Set(ids);
  new MutationObserver(() => { for (const id of want) { const el = document.getElementById('action-' + id);
    if (el && el.getAttribute('data-state') === 'ACKED' && !window.__seen[id]) window.__seen[id] = Date.now(); } })
  .observe(document.getElementById('timeline'), {childList: true, subtree: true, attributes: true}); }"""


async def _run(args: argparse.Namespace) -> str:
    import httpx2
    from playwright.async_api import async_playwright

    from rpa_mcp.entrypoints.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(Path(tmp))
        services = bench.services
        app = create_app(services=services)
        base, (server, sock) = await _serve(app)
        token = services.console_credentials.mint("bench-person", ["operator", "approver"])  # a person's
        lines: list[str] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            while not server.started:
                await anyio.sleep(0.01)
            agent = httpx2.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {AGENT_TOKEN}"}, timeout=60)
            web = httpx2.AsyncClient(base_url=base, timeout=60)
            try:
                big = await bench.start(args.actions)
                for i in range(args.actions):
                    await bench.report_one(agent, i)
                cookie = await _cookie(web, token)
                lines += await _page_figures(base, big, cookie, args, async_playwright)
                lines += await _delay_figures(base, bench, agent, cookie, args, async_playwright)
            finally:
                await agent.aclose()
                await web.aclose()
                server.should_exit = True
        return "\n".join(lines)


async def _browser(pw: Any, cookie: str, base: str) -> tuple[Any, Any]:
    import os

    browser = await pw.chromium.launch(executable_path=os.environ.get("RPA_CHROMIUM", "/usr/bin/chromium"),
                                       args=CHROMIUM_ARGS)  # fmt: skip
    context = await browser.new_context(viewport={"width": 1366, "height": 768})
    await context.add_cookies([{"name": "rpa_console", "value": cookie, "url": base}])
    return browser, context


async def _page_figures(base: str, replay_id: str, cookie: str, args: argparse.Namespace, playwright: Any) -> list[str]:
    fcp, dcl, weights, rows = [], [], [], 0
    async with playwright() as pw:
        for _ in range(args.loads):
            browser, context = await _browser(pw, cookie, base)
            try:
                page = await context.new_page()
                await page.goto(f"{base}/console/replays/{replay_id}", wait_until="load")
                await page.wait_for_timeout(300)  # lazy crops in view finish loading
                timing = await page.evaluate(
                    """() => { const nav = performance.getEntriesByType('navigation')[0];
                      const paint = performance.getEntriesByName('first-contentful-paint')[0];
                      const res = performance.getEntriesByType('resource');
                      return {fcp: paint ? paint.startTime : null, dcl: nav.domContentLoadedEventEnd,
                              html: nav.transferSize || nav.encodedBodySize,
                              res: res.map(r => [r.name, r.transferSize || r.encodedBodySize])}; }"""
                )
                rows = await page.locator("li.action").count()
                fcp.append(float(timing["fcp"] or 0.0))
                dcl.append(float(timing["dcl"]))
                images = sum(size for name, size in timing["res"] if "/crops/" in name or "/screenshots/" in name)
                assets = sum(size for name, size in timing["res"] if "/static/" in name)
                weights.append((int(timing["html"]), int(assets), int(images), len(timing["res"])))
            finally:
                await browser.close()
    html, assets, images, requests = weights[0]
    return [
        f"timeline with {rows} actions, 1366x768, {args.loads} cold loads",
        f"  page weight: HTML {html / 1024:.0f} KiB + CSS/JS {assets / 1024:.1f} KiB + crops in view "
        f"{images / 1024:.0f} KiB ({requests} sub-requests; the other crops load lazily)",
        f"  first contentful paint: median {statistics.median(fcp):.0f} ms (min {min(fcp):.0f}, max {max(fcp):.0f})",
        f"  DOMContentLoaded:       median {statistics.median(dcl):.0f} ms",
    ]


async def _delay_figures(
    base: str, bench: Bench, agent: Any, cookie: str, args: argparse.Namespace, playwright: Any
) -> list[str]:
    replay_id = await bench.start(args.reports)
    ids = [a["action_id"] for a in bench.services.replay.store.actions(replay_id)]
    committed, end_to_end = [], []
    async with playwright() as pw:
        browser, context = await _browser(pw, cookie, base)
        try:
            page = await context.new_page()
            await page.goto(f"{base}/console/replays/{replay_id}")
            await page.wait_for_function("() => document.body.getAttribute('data-live-ready') === '1'")
            await page.evaluate(OBSERVE, ids)
            for i in range(args.reports):
                action_id, sent, answered = await bench.report_one(agent, i)
                await page.wait_for_function("id => window.__seen[id] !== undefined", arg=action_id, timeout=30_000)
                shown = float(await page.evaluate("id => window.__seen[id]", action_id)) / 1000.0
                committed.append(max(0.0, shown - answered) * 1000)
                end_to_end.append(max(0.0, shown - sent) * 1000)
        finally:
            await browser.close()
    return [
        f"report -> timeline, {args.reports} reports (target < 1000 ms)",
        f"  after the report is committed: median {statistics.median(committed):.0f} ms, max {max(committed):.0f} ms",
        f"  from the report being sent (server verification included): median "
        f"{statistics.median(end_to_end):.0f} ms, max {max(end_to_end):.0f} ms",
    ]


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench console")
    parser.add_argument("--actions", type=int, default=200, help="actions of the timeline measured (default 200)")
    parser.add_argument("--loads", type=int, default=5, help="cold page loads (default 5)")
    parser.add_argument("--reports", type=int, default=20, help="reports timed for the live delay (default 20)")
    args = parser.parse_args(argv)
    try:
        import playwright  # noqa: F401
    except ModuleNotFoundError:
        return "not available: Playwright is not installed (pip install 'rpa-mcp[test]')"
    return anyio.run(_run, args)
