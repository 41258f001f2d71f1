"""One real browser: sign in on the approval page, read the preview, approve."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.web import web_routes
from rpa_mcp.ops.registry import Caller
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = [pytest.mark.anyio, pytest.mark.browser]
CALLERS = {"tok-carol": Caller("carol", frozenset({"approver"}))}


async def test_a_person_signs_in_sees_the_preview_and_approves(tmp_path: Path, serve: Callable[..., Any]) -> None:
    require_chromium()
    from playwright.async_api import async_playwright

    services = build_services(
        Settings(data_dir=tmp_path / "data", jwt_secret="k" * 64), clock=FakeClock(start=1_800_000_000.0)
    )
    jti = services.confirmations.propose(
        operation="delete_competence",
        risk="dangerous",
        proposer="agent:claude",
        args={"name": "Admission"},
        summary="Move the candidate competence 'Admission' (4 steps) to the trash",
        details={"files": ["competences/candidate/admission.yaml"]},
        diff="-  intent: Ouvrir\n+  intent: Fermer",
        binding={},
    ).jti
    base = await serve(Starlette(routes=web_routes(services, CALLERS.get)))

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context()
            context.set_default_timeout(15_000)
            page = await context.new_page()
            await page.goto(f"{base}/approvals/{jti}")
            await page.wait_for_url(f"{base}/approvals/login?next=/approvals/{jti}")
            await page.fill("#token", "tok-carol")
            await page.click("button[type=submit]")
            await page.wait_for_url(f"{base}/approvals/{jti}")
            assert "'Admission' (4 steps)" in await page.inner_text("#summary")
            assert "+  intent: Fermer" in await page.inner_text("#diff")
            cookie = next(c for c in await context.cookies() if c["name"] == "rpa_approval")
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            await page.click("#approve")
            await page.wait_for_selector("#decision")
            assert "approved" in await page.inner_text("#decision")
        finally:
            await browser.close()

    view = services.confirmations.get_approval(jti)
    assert (view.status, view.approver) == ("approved", "carol")
