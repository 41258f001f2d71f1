"""End to end in a real browser: the model proposes over MCP, a person approves in Chromium, apply runs."""

from __future__ import annotations

import pytest

from tests.conftest import CHROMIUM, CHROMIUM_ARGS, console_credential_for, require_chromium
from tests.integration.test_confirmation_http import IR

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


async def test_delete_proposed_over_mcp_is_approved_in_chromium_then_applied(stack):
    require_chromium()
    from playwright.async_api import async_playwright

    stack.services.competences.save("Admission patient", IR)
    llm = await stack.mcp("operator", subject="alice")
    proposal = (await llm.call_tool("propose_delete_competence", {"name": "Admission patient"})).structured_content
    assert proposal["approval_mode"] == "human"

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page()
            page.set_default_timeout(15_000)
            # The URL names RPA_PUBLIC_URL or the configured port; this test server runs on a free port.
            path = proposal["approval_url"].split("/approvals/", 1)[1]
            await page.goto(f"{stack.base}/approvals/{path}")
            await page.fill("#token", console_credential_for(stack.services, "carol", "approver"))
            await page.click("button[type=submit]")
            await page.wait_for_selector("#summary")
            assert "Admission patient" in await page.inner_text("#summary")
            await page.click("#approve")
            await page.wait_for_selector("#decision")
        finally:
            await browser.close()

    applied = await llm.call_tool("apply_delete_competence", {"token": proposal["token"]})
    assert not applied.is_error, applied.content[0].text
    rows = [(r["actor"], r["operation"]) for r in stack.services.audit.rows()]
    assert ("carol@rpa-mcp", "approve:delete_competence") in rows and ("alice", "apply:delete_competence") in rows
