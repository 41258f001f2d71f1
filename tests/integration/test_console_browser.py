"""The operator console in a real browser (Chromium through Playwright), at 1366x768.

A person signs in through the (local) identity provider, approves a replay that a model
proposed over MCP and watches its timeline advance as the reference agent reports; answers a
pause from the page; watches a session's steps appear while events are posted. Self-approval
and a form posted without its CSRF token are refused. Every view is saved as a screenshot (to
$RPA_CONSOLE_SCREENSHOTS when set — the pictures of docs/console.md —, else among the CI
artifacts of $RPA_TEST_ARTIFACTS, else the test's temporary folder). A capture the browser
refuses twice (it happens on a loaded machine) is logged, not failed: the pictures are a record
of the views, the assertions are about the console.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import Error as PlaywrightError

from rpa_mcp.agent_sim import Journal, ReferenceAgent, VirtualDesktop
from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.ops.registry import Caller
from rpa_mcp.replay import model as m
from rpa_mcp.settings import Settings
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, SECRET, require_chromium, token_for
from tests.console.helpers import anchor
from tests.console.oidc_provider import LocalOidcProvider, User
from tests.integration.conftest import demo_events
from tests.integration.test_replay_http import BACK_TO_DOSSIER, IMAGERIE, IMAGERIE_BEHIND_PACS, MACHINE, workflow

pytestmark = [pytest.mark.anyio, pytest.mark.browser]
logger = logging.getLogger(__name__)
AGENT_TOKEN = "agent-static-token-0123456789"
AUDIENCE = "https://rpa.hopital.example/mcp"
VIEWPORT = {"width": 1366, "height": 768}
USERS = [User("dr.martin", "Dr Carole Martin", ["approver"]), User("o.petit", "Olivier Petit", ["operator"])]


class Console:
    def __init__(self, base: str, services: Services, provider: LocalOidcProvider, shots: Path) -> None:
        self.base, self.services, self.provider, self.shots = base, services, provider, shots

    async def llm(self, stack: Any, subject: str = "agent:claude") -> Client:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token_for(self.services, subject, 'operator')}"})
        )
        return await stack.enter_async_context(Client(streamable_http_client(f"{self.base}/mcp", http_client=http)))

    def agent(self, http: httpx2.AsyncClient, start: str | None = None) -> ReferenceAgent:
        desktop = VirtualDesktop.load("incident", start=start)
        return ReferenceAgent(http, desktop, machine_id=MACHINE, journal=Journal(":memory:"), poll_wait_s=0)

    def competence(self, name: str, *steps: dict[str, Any]) -> str:
        ir = workflow(name, *steps)
        for step in ir["steps"]:
            step["target"]["anchor_ref"] = anchor(self.services, step["target"]["label"])
        self.services.competences.save(name, ir, machine_id=MACHINE)
        self.services.competences.promote(name)
        return name

    async def shot(self, page: Any, name: str) -> None:
        for attempt in (1, 2):
            try:
                await page.wait_for_load_state()
                await page.screenshot(path=str(self.shots / f"{name}.png"))
                return
            except PlaywrightError as exc:
                logger.warning("screenshot %s refused (attempt %d): %s", name, attempt, exc.message.splitlines()[0])


@pytest.fixture
async def console(tmp_path: Path, serve: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Console]:
    require_chromium()
    monkeypatch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")  # the local provider speaks http on loopback
    provider = LocalOidcProvider(client_id="rpa-console", client_secret="s3cret", audience=AUDIENCE, users=USERS)
    provider.issuer = await serve(provider.app)
    settings = Settings(
        data_dir=tmp_path / "data",
        jwt_secret=SECRET,
        api_token=AGENT_TOKEN,
        oidc_issuer=provider.issuer,
        oidc_client_id="rpa-console",
        oidc_client_secret="s3cret",
        oidc_audience=AUDIENCE,
        console_token_sign_in=True,
        replay_preflight=False,  # the replay starts before the agent's first poll here
        identity_links=f"o.petit@rpa-mcp = o.petit@{provider.issuer}",  # his assistant's token and his account
    )
    services = build_services(settings)
    base = await serve(create_app(services=services))
    artifacts = os.environ.get("RPA_TEST_ARTIFACTS")
    fallback = Path(artifacts) / "console" if artifacts else tmp_path / "screenshots"
    shots = Path(os.environ.get("RPA_CONSOLE_SCREENSHOTS") or fallback)
    shots.mkdir(parents=True, exist_ok=True)
    yield Console(base, services, provider, shots)


@asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(viewport=VIEWPORT, locale="en-GB")
            context.set_default_timeout(20_000)
            yield context
        finally:
            await browser.close()


async def sign_in_with_provider(page: Any, user: str) -> None:
    """From any console page: the sign-in page, the provider's page, back to where the person was going."""
    await page.wait_for_selector("#oidc-login")
    await page.click("#oidc-login")
    await page.wait_for_selector("#idp-user")
    await page.select_option("#idp-user", user)
    await page.click("#idp-login")
    await page.wait_for_selector("#signed-in")


async def mark_page(page: Any) -> None:
    """A marker that a reload would erase: live updates must keep it."""
    await page.evaluate("window.__notReloaded = true")
    await page.wait_for_function("() => document.body.getAttribute('data-live-ready') === '1'")


async def still_same_page(page: Any) -> bool:
    return bool(await page.evaluate("window.__notReloaded === true"))


async def test_approve_a_replay_proposed_over_mcp_and_watch_its_timeline_advance(console: Console) -> None:
    from contextlib import AsyncExitStack

    name = console.competence("Imagerie puis dossier", IMAGERIE, BACK_TO_DOSSIER)
    async with AsyncExitStack() as stack:
        llm = await console.llm(stack)
        proposal = await llm.call_tool("propose_start_replay", {"competence": name, "machine_id": MACHINE})
        proposal = proposal.structured_content
        assert proposal["approval_mode"] == "human" and "/console/approvals/" in proposal["approval_url"]
        path = proposal["approval_url"].split("/console/", 1)[1]
        async with chromium() as context:
            page = await context.new_page()
            await page.goto(f"{console.base}/console/{path}")
            await console.shot(page, "sign-in")
            await sign_in_with_provider(page, "dr.martin")
            await page.wait_for_selector("#summary")
            assert name in await page.inner_text("#summary")
            assert await page.locator("table#steps tr.step").count() == 2
            assert await page.locator("table#steps img.crop").count() == 2
            await page.wait_for_function(
                "() => Array.from(document.querySelectorAll('img.crop')).every(i => i.complete && i.naturalWidth > 0)"
            )
            await console.shot(page, "approval")
            await page.click("#approve")
            await page.wait_for_selector("#decision")

            started = (await llm.call_tool("apply_start_replay", {"token": proposal["token"]})).structured_content
            replay_id = started["replay_id"]
            await page.goto(f"{console.base}/console/replays/{replay_id}")
            await mark_page(page)
            actions = console.services.replay.store.actions(replay_id)
            async with httpx2.AsyncClient(
                base_url=console.base, headers={"Authorization": f"Bearer {AGENT_TOKEN}"}
            ) as http:
                agent = console.agent(http)
                for n, action in enumerate(actions, start=1):
                    assert await agent.poll_once() is not None
                    await page.wait_for_selector(f"#action-{action['action_id']}[data-state=ACKED]")
                    await page.wait_for_function(
                        "n => document.getElementById('progress').textContent.startsWith(n + ' /')", arg=n
                    )
                # one more look at the screen after the last step, then the replay says completed
                assert await agent.poll_once() is not None
            await page.wait_for_selector("#replay-state.completed")
            assert await still_same_page(page)
            assert await page.locator("svg.clicked circle.point").count() == 2
            await console.shot(page, "replay-timeline")
            page_errors: list[str] = []
            page.on("console", lambda msg: page_errors.append(msg.text) if msg.type == "error" else None)
            await page.reload()
            await page.wait_for_selector("#timeline")
            assert not [e for e in page_errors if "Content Security Policy" in e]
    rows = [(r["actor"], r["operation"]) for r in console.services.audit.rows()]
    approver = f"dr.martin@{console.provider.issuer}"  # who approved: subject@issuer
    assert (approver, "approve:start_replay") in rows and ("agent:claude", "apply_start_replay") in rows


async def test_a_pause_is_answered_from_the_page_and_the_replay_goes_on(console: Console) -> None:
    from contextlib import AsyncExitStack

    name = console.competence("Imagerie (incident)", IMAGERIE_BEHIND_PACS, BACK_TO_DOSSIER)
    async with AsyncExitStack() as stack:
        llm = await console.llm(stack)
        proposal = await llm.call_tool("propose_start_replay", {"competence": name, "machine_id": MACHINE})
        proposal = proposal.structured_content
        jti = proposal["approval_url"].rsplit("/", 1)[1]
        console.services.confirmations.decide(jti, Caller("dr.martin", frozenset({"approver"}), via="web"), True)
        replay_id = (await llm.call_tool("apply_start_replay", {"token": proposal["token"]})).structured_content[
            "replay_id"
        ]
    async with (
        chromium() as context,
        httpx2.AsyncClient(base_url=console.base, headers={"Authorization": f"Bearer {AGENT_TOKEN}"}) as http,
    ):
        page = await context.new_page()
        await page.goto(f"{console.base}/console/replays/{replay_id}")
        await sign_in_with_provider(page, "o.petit")
        await page.wait_for_selector("#timeline")
        await mark_page(page)
        agent = console.agent(http, start="pacs")
        assert await agent.poll_once() is not None  # the click lands in the PACS viewer
        await page.wait_for_selector("#pause-reason")  # the pause appears without reloading
        assert await still_same_page(page)
        assert "does not show the expected effect" in await page.inner_text("#pause-reason")
        await console.shot(page, "replay-paused")
        await page.click("#answer-skip")
        await page.wait_for_selector("#replay-state.running")
        await mark_page(page)
        second = console.services.replay.store.actions(replay_id)[1]["action_id"]
        assert await agent.poll_once() is not None  # the next action is sent, done and verified
        await page.wait_for_selector(f"#action-{second}:not([data-state=PENDING]):not([data-state=DISPATCHED])")
        assert await still_same_page(page)
        await console.shot(page, "replay-after-answer")
    first = console.services.replay.store.actions(replay_id)[0]
    assert first["state"] in m.TERMINAL_ACTION_STATES and first["outcome"] != "success"
    assert console.services.replay.store.actions(replay_id)[1]["dispatches"] == 1
    rows = [(r["actor"], r["operation"]) for r in console.services.audit.rows()]
    in_person = f"o.petit@{console.provider.issuer}"
    assert (in_person, "approve:answer_pause") in rows and ("o.petit", "apply_answer_pause") in rows


async def test_a_sessions_steps_appear_while_events_are_posted(console: Console) -> None:
    events = demo_events("open_record_imagerie")
    session_id, machine = events[0]["session_id"], events[0]["machine_id"]
    async with (
        chromium() as context,
        httpx2.AsyncClient(
            base_url=console.base, headers={"Authorization": f"Bearer {AGENT_TOKEN}"}, timeout=180
        ) as agent,
    ):
        assert (await agent.post("/api/v1/traces/stream/event", json=events[:2])).status_code == 200
        page = await context.new_page()
        await page.goto(f"{console.base}/console/machines")
        await sign_in_with_provider(page, "o.petit")
        assert machine in await page.inner_text("#machines")
        await console.shot(page, "machines")
        await page.click("a.active-session")
        await page.wait_for_selector("#session-steps")
        await mark_page(page)
        before = int(await page.inner_text("#step-count"))
        for event in events[2:]:
            assert (await agent.post("/api/v1/traces/stream/event", json=event)).status_code == 200
        await page.wait_for_function(
            "before => Number(document.getElementById('step-count').textContent) > before", arg=before
        )
        await page.wait_for_selector("#steps tr.step td.intent")
        assert await still_same_page(page)
        assert session_id in page.url
        await console.shot(page, "session-live")


async def test_self_approval_and_a_form_without_its_csrf_token_are_refused(console: Console) -> None:
    from contextlib import AsyncExitStack

    name = console.competence("Imagerie", IMAGERIE)
    async with AsyncExitStack() as stack:
        llm = await console.llm(stack, subject="o.petit")  # the same identity later signs in to the console
        proposal = (await llm.call_tool("propose_delete_competence", {"name": name})).structured_content
    jti = proposal["approval_url"].rsplit("/", 1)[1]
    async with chromium() as context:
        page = await context.new_page()
        await page.goto(f"{console.base}/console/approvals/{jti}")
        await sign_in_with_provider(page, "o.petit")
        await page.wait_for_selector("#own-request")
        assert await page.locator("#approve").count() == 0
        await console.shot(page, "self-approval-refused")
        # A page of another site cannot post here; a form without the CSRF token is refused too.
        await page.evaluate(
            """jti => { const f = document.createElement('form'); f.method = 'post';
                        f.action = '/console/approvals/' + jti + '/approve';
                        document.body.appendChild(f); f.submit(); }""",
            jti,
        )
        await page.wait_for_selector("#refusal")
        assert "security token" in await page.inner_text("#refusal")
        await console.shot(page, "csrf-refused")
    assert console.services.confirmations.get_approval(jti).status == "pending"


async def test_competences_audit_and_dialog_views(console: Console) -> None:
    name = console.competence("Imagerie puis dossier", IMAGERIE, BACK_TO_DOSSIER)
    changed = workflow(name, {**IMAGERIE, "intent": "Open the Imagerie tab of the record"}, BACK_TO_DOSSIER,
                       {**BACK_TO_DOSSIER, "intent": "Back to the record again"})  # fmt: skip
    console.services.competences.save(name, changed, machine_id=MACHINE)
    async with chromium() as context:
        page = await context.new_page()
        await page.goto(f"{console.base}/console/competences")
        await sign_in_with_provider(page, "o.petit")
        await page.click("table#competences a >> nth=0")
        await page.wait_for_selector("#compare")
        await page.click("#compare-button")
        await page.wait_for_selector("#totals")
        totals = await page.inner_text("#totals")
        assert "1 added" in totals and "1 changed" in totals
        await console.shot(page, "competence-diff")
        await page.goto(f"{console.base}/console/dialogs")
        assert "windows-uac" in await page.inner_text("#dialogs")
        await console.shot(page, "dialog-catalog")
    async with chromium() as context:
        page = await context.new_page()
        await page.goto(f"{console.base}/console/audit")
        await sign_in_with_provider(page, "dr.martin")
        await page.fill("#who", "o.petit")
        await page.check("#views")  # his page views (reads through the console) are left out otherwise
        await page.click("#filter")
        await page.wait_for_selector("#audit")
        await page.click("#verify")
        await page.wait_for_selector("#chain.ok")
        await console.shot(page, "audit")


@pytest.mark.parametrize("lang", ["fr", "en"])
async def test_the_home_page_menu_fits_one_line_at_1366_and_times_are_local(console: Console, lang: str) -> None:
    from tests.console.helpers import call, jti_of

    name = console.competence("Imagerie puis dossier", IMAGERIE, BACK_TO_DOSSIER)
    proposal = await call(console.services, "propose_start_replay", {"competence": name, "machine_id": MACHINE})
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(viewport=VIEWPORT, locale=lang, timezone_id="Europe/Paris")
            context.set_default_timeout(20_000)
            page = await context.new_page()
            await page.goto(f"{console.base}/console")
            await sign_in_with_provider(page, "dr.martin")
            await page.wait_for_selector("#home-approvals")
            assert await page.inner_text("#count-approvals") == "1"
            await console.shot(page, f"home-{lang}")
            one_line = "els => els.map(e => e.getBoundingClientRect()).map(r => [r.top, r.bottom])"
            for selector in ("header.top > *", "header.top nav a"):  # brand, menu and who side by side; no wrap
                boxes = await page.eval_on_selector_all(selector, one_line)
                assert max(top for top, _ in boxes) < min(bottom for _, bottom in boxes), (selector, boxes)
            local = await page.inner_text("#home-approvals time")
            assert "UTC" not in local and "UTC" in (await page.get_attribute("#home-approvals time", "title") or "")
            await page.goto(f"{console.base}/console/competences")  # another page: a new approval is told there
            await page.wait_for_selector("body[data-alerts-ready]", state="attached")
            second = await call(console.services, "propose_start_replay", {"competence": name, "machine_id": MACHINE})
            notice = await page.wait_for_selector(f"#alert-{jti_of(second)}")
            assert notice is not None and await page.inner_text("#count-approvals") == "2"
            assert (await page.title()).startswith("(2) ")
            await console.shot(page, f"new-approval-{lang}")
            other = await context.new_page()  # a second tab: told by the first, with no stream of its own
            streams: list[str] = []
            other.on("request", lambda r: streams.append(r.url) if "/console/live/waiting" in r.url else None)
            await other.goto(f"{console.base}/console/machines")
            third = await call(console.services, "propose_start_replay", {"competence": name, "machine_id": MACHINE})
            for tab in (page, other):
                await tab.wait_for_selector(f"#alert-{jti_of(third)}")
                assert await tab.inner_text("#count-approvals") == "3"
            assert streams == []
            await other.close()
            await notice.eval_on_selector("a", "a => a.click()")
            await page.wait_for_selector("#risk")
            assert page.url.endswith(f"/console/approvals/{jti_of(second)}")
            await page.goto(f"{console.base}/console/approvals/{jti_of(proposal)}")
            await page.wait_for_selector("#risk")
            await console.shot(page, f"approval-{lang}")
            missing = await page.goto(f"{console.base}/console/no/such/page")
            assert missing is not None and missing.status == 404
            assert await page.eval_on_selector("header.top", "e => getComputedStyle(e).display") == "flex"  # styled
            await console.shot(page, f"not-found-{lang}")
        finally:
            await browser.close()
