"""Every console page tells an approver of a new approval, live: a notice and the menu's count."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import httpx2
import pytest

from rpa_mcp.bootstrap import Services
from tests.conftest import console_credential_for
from tests.console.conftest import Browser
from tests.console.test_approvals import propose_replay

pytestmark = pytest.mark.anyio


async def _signed_in(web: httpx2.AsyncClient, services: Services, subject: str, role: str) -> None:
    page = await web.get("/console/login")
    nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
    assert nonce is not None
    response = await web.post(
        "/console/login",
        data={"token": console_credential_for(services, subject, role), "login_csrf": nonce[1]},
        headers={"origin": str(web.base_url).rstrip("/")},
    )
    assert response.status_code == 303
    web.cookies.set("rpa_console", str(response.cookies["rpa_console"]))


async def _next_patch(lines: Any) -> list[dict[str, str]]:
    with anyio.fail_after(30):
        async for line in lines:
            if line.startswith("data: "):
                return list(json.loads(line[6:]))
    raise AssertionError("the stream ended")


async def test_a_new_approval_is_told_on_any_page_with_its_link_and_the_count(services: Services, serve: Any) -> None:
    """Over real HTTP (an in-memory transport buffers whole responses, an event stream never ends)."""
    from rpa_mcp.entrypoints.app import create_app

    base = await serve(create_app(services=services))
    async with httpx2.AsyncClient(base_url=base, timeout=60) as web:
        await _signed_in(web, services, "carol", "approver")
        page = await web.get("/console/machines")  # any page: it opens the stream
        assert 'data-live="/console/live/waiting"' in page.text and 'id="count-approvals" hidden' in page.text
        async with web.stream("GET", "/console/live/waiting") as stream:
            assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.aiter_lines()
            assert (await anext(lines)).startswith("retry:")
            jti = await propose_replay(services)  # proposed by the model, agent:claude
            patch = await _next_patch(lines)
    by_id = {p["id"]: p for p in patch}
    assert re.fullmatch(r'<span class="count" id="count-approvals">1</span>\s*', by_id["count-approvals"]["html"])
    notice = by_id[f"alert-{jti}"]
    assert notice["op"] == "append" and notice["parent"] == "alerts"
    assert f'href="/console/approvals/{jti}"' in notice["html"] and "New approval waiting" in notice["html"]
    assert "· Admission" in notice["html"]  # which competence
    assert "Jeanne" not in notice["html"]  # the request's values stay on its page


async def test_the_person_who_proposed_is_not_told_of_their_own_request(services: Services, serve: Any) -> None:
    from rpa_mcp.entrypoints.app import create_app

    base = await serve(create_app(services=services))
    async with httpx2.AsyncClient(base_url=base, timeout=60) as web:
        await _signed_in(web, services, "agent:claude", "operator")  # the identity that proposes below
        async with web.stream("GET", "/console/live/waiting") as stream:
            lines = stream.aiter_lines()
            assert (await anext(lines)).startswith("retry:")
            await propose_replay(services)
            patch = await _next_patch(lines)
    assert [p["id"] for p in patch] == ["count-approvals"]  # the count changes, no notice


def test_a_signed_out_page_opens_no_stream_and_a_viewer_is_offered_no_desktop_alerts(browser: Browser) -> None:
    assert "/console/live/waiting" not in browser.get("/console/login").text
    browser.sign_in("victor", "viewer")
    page = browser.get("/console").text
    assert 'data-live="/console/live/waiting"' in page and 'id="desktop-alerts"' not in page
