"""Replay timelines in the console: every action with its crops and checkers, live patches, and the
answers to a pause that go through propose/apply with the person's answer as the approval."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import httpx2
import pytest

from rpa_mcp.agent_sim import Journal, ReferenceAgent, VirtualDesktop
from rpa_mcp.bootstrap import Services
from rpa_mcp.ops.registry import Caller
from rpa_mcp.replay import model as m
from tests.console.conftest import BASE, Browser
from tests.console.helpers import call, jti_of
from tests.integration.test_replay_http import BACK_TO_DOSSIER, IMAGERIE, IMAGERIE_BEHIND_PACS, MACHINE, promote
from tests.integration.test_replay_http import workflow as replay_workflow

pytestmark = pytest.mark.anyio
CAROL = Caller("carol", frozenset({"approver"}), via="web")


class _Stack:
    def __init__(self, services: Services) -> None:
        self.services = services


async def start(services: Services, *steps: dict[str, Any]) -> str:
    name = promote(_Stack(services), replay_workflow("Imagerie", *steps))
    proposal = await call(services, "propose_start_replay", {"competence": name, "machine_id": MACHINE})
    services.confirmations.decide(jti_of(proposal), CAROL, True)
    return str((await call(services, "apply_start_replay", {"token": proposal["token"]}))["replay_id"])


def agent_for(app: Any, start_screen: str | None = None) -> tuple[ReferenceAgent, httpx2.AsyncClient]:
    http = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url=BASE,
        headers={"Authorization": "Bearer agent-static-token-0123456789"},
    )
    desktop = VirtualDesktop.load("incident", start=start_screen)
    return ReferenceAgent(http, desktop, machine_id=MACHINE, journal=Journal(":memory:"), poll_wait_s=0), http


async def test_the_timeline_shows_every_action_with_its_crops_checkers_and_where_it_was_clicked(
    app: Any, browser: Browser, services: Services
) -> None:
    replay_id = await start(services, IMAGERIE, BACK_TO_DOSSIER)
    agent, http = agent_for(app)
    async with http:
        for _ in range(3):  # two steps, then the look at the screen before completion
            assert await agent.poll_once() is not None
    browser.sign_in("victor", "viewer")
    page = browser.get(f"/console/replays/{replay_id}").text
    items = re.findall(r'<li id="action-[^"]+" class="action state-acked', page)
    assert len(items) == 3 and "TitleBarChecker" in page and 'id="progress">2 / 2' in page
    assert '<svg class="clicked"' in page and '<circle class="point"' in page  # the point on the after-crop
    crop = re.search(r'<image href="(/console/replays/[^"]+/crops/[^"]+/\d+)"', page)
    assert crop is not None
    image = browser.get(crop[1])
    assert image.status_code == 200 and image.content[:4] == b"\x89PNG"
    assert 'id="answers"' not in page  # a viewer has no buttons
    assert 'id="replay-outcome" class="badge completed"' in page
    bundle = browser.get(f"/console/replays/{replay_id}/evidence.json")
    assert bundle.status_code == 200 and "attachment" in bundle.headers["content-disposition"]
    assert bundle.json()["intact"] is True and len(bundle.json()["bundle"]["steps"]) == 3


async def test_a_validation_failure_pauses_in_plain_words_and_skip_from_the_page_continues(
    app: Any, browser: Browser, services: Services
) -> None:
    replay_id = await start(services, IMAGERIE_BEHIND_PACS, BACK_TO_DOSSIER)
    agent, http = agent_for(app, start_screen="pacs")
    async with http:
        assert await agent.poll_once() is not None
        browser.sign_in("olivia", "operator")
        page = browser.get(f"/console/replays/{replay_id}").text
        assert "The screen after the action does not show the expected effect" in page
        assert "WRONG_APPLICATION" in page and 'id="answer-skip"' in page
        fr = browser.get(f"/console/replays/{replay_id}", headers={"accept-language": "fr"}).text
        assert "ne montre pas l&#39;effet attendu" in fr
        response = browser.submit(
            f"/console/replays/{replay_id}", f"/console/replays/{replay_id}/answer", {"decision": "skip"}
        )
        assert response.status_code == 303, response.text
        assert services.replay.store.get_replay(replay_id)["state"] == m.RUNNING
        rows = [(r["actor"], r["operation"], r["outcome"]) for r in services.audit.rows()]
        assert ("olivia", "propose_answer_pause", "ok") in rows
        assert ("olivia@rpa-mcp", "approve:answer_pause", "approved") in rows  # who approved: subject@issuer
        assert ("olivia", "apply_answer_pause", "ok") in rows


async def test_a_pause_says_when_a_person_used_the_desktop_while_the_step_ran(
    app: Any, browser: Browser, services: Services
) -> None:
    replay_id = await start(services, IMAGERIE_BEHIND_PACS, BACK_TO_DOSSIER)
    agent, http = agent_for(app, start_screen="pacs")
    async with http:
        assert await agent.poll_once() is not None
    store = services.replay.store
    detail = {**(store.get_replay(replay_id)["pause_detail"] or {}), "human_takeover": True}  # as the report said
    assert store.update_replay(replay_id, expect_states=(m.PAUSED,), now=services.clock.now(), pause_detail=detail)
    browser.sign_in("olivia", "operator")
    page = browser.get(f"/console/replays/{replay_id}").text
    assert 'id="pause-takeover"' in page and "WRONG_APPLICATION" in page


async def test_a_user_pause_is_resumed_from_the_page_through_propose_and_apply(
    browser: Browser, services: Services
) -> None:
    replay_id = await start(services, IMAGERIE)
    browser.sign_in("olivia", "operator")
    assert browser.submit(f"/console/replays/{replay_id}", f"/console/replays/{replay_id}/pause").status_code == 303
    assert services.replay.store.get_replay(replay_id)["state"] == m.PAUSED
    page = browser.get(f"/console/replays/{replay_id}").text
    assert "Paused on request" in page and 'id="resume"' in page
    assert browser.submit(f"/console/replays/{replay_id}", f"/console/replays/{replay_id}/resume").status_code == 303
    assert services.replay.store.get_replay(replay_id)["state"] == m.RUNNING
    ops = [r["operation"] for r in services.audit.rows() if r["actor"] in ("olivia", "olivia@rpa-mcp")]
    assert {"propose_resume_replay", "approve:resume_replay", "apply_resume_replay"} <= set(ops)
    assert ops.index("approve:resume_replay") < ops.index("apply_resume_replay")
    vias = {r["operation"]: r["via"] for r in services.audit.rows() if r["actor"] == "olivia"}
    assert vias["propose_resume_replay"] == vias["apply_resume_replay"] == "web"  # a person, in the console


async def test_an_answer_without_csrf_or_by_a_viewer_changes_nothing(
    browser: Browser, other_browser: Browser, services: Services
) -> None:
    replay_id = await start(services, IMAGERIE)
    await call(services, "pause_replay", {"replay_id": replay_id})
    browser.sign_in("olivia", "operator")
    assert browser.post(f"/console/replays/{replay_id}/resume", {}).status_code == 403
    other_browser.sign_in("victor", "viewer")
    page = other_browser.get(f"/console/replays/{replay_id}").text
    assert 'id="resume"' not in page
    token = other_browser.client.get(f"/console/replays/{replay_id}").text
    assert "csrf" in token  # the viewer's own logout form only
    assert services.replay.store.get_replay(replay_id)["state"] == m.PAUSED


async def test_the_in_person_approval_is_only_for_answers_and_only_by_the_proposer(services: Services) -> None:
    from rpa_mcp.errors import Forbidden

    services.competences.save("X", replay_workflow("X", IMAGERIE), machine_id=MACHINE)
    proposal = await call(services, "propose_delete_competence", {"name": "X"})
    with pytest.raises(Forbidden):
        services.confirmations.approve_in_person(jti_of(proposal), Caller("agent:claude", frozenset({"operator"})))
    replay_id = await start(services, IMAGERIE)
    await call(services, "pause_replay", {"replay_id": replay_id})
    answer = await call(services, "propose_resume_replay", {"replay_id": replay_id})
    with pytest.raises(Forbidden):  # someone else cannot "answer in person" for the model
        services.confirmations.approve_in_person(jti_of(answer), Caller("olivia", frozenset({"operator"})))


async def test_the_live_stream_pushes_the_new_state_of_an_action_when_the_agent_reports(
    services: Services, serve: Any
) -> None:
    """Over real HTTP (an in-memory transport buffers whole responses, an event stream never ends)."""
    from rpa_mcp.entrypoints.app import create_app

    app = create_app(services=services)
    base = await serve(app)
    replay_id = await start(services, IMAGERIE, BACK_TO_DOSSIER)
    agent_http = httpx2.AsyncClient(base_url=base, headers={"Authorization": "Bearer agent-static-token-0123456789"})
    agent = ReferenceAgent(
        agent_http, VirtualDesktop.load("incident"), machine_id=MACHINE, journal=Journal(":memory:"), poll_wait_s=0
    )
    async with agent_http, httpx2.AsyncClient(base_url=base, timeout=60) as web:
        web.cookies.set("rpa_console", await _signed_in_cookie(web, services))
        patches: list[Any] = []
        async with web.stream("GET", f"/console/live/replays/{replay_id}") as stream:
            assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.aiter_lines()
            assert (await anext(lines)).startswith("retry:")
            await agent.poll_once()
            with anyio.fail_after(30):
                async for line in lines:
                    if line.startswith("data: "):
                        patches = json.loads(line[6:])
                        if any("state-acked" in p["html"] for p in patches):
                            break
    ids = {p["id"] for p in patches}
    assert f"action-{services.replay.store.actions(replay_id)[0]['action_id']}" in ids
    assert all("<script" not in p["html"] for p in patches)


async def _signed_in_cookie(web: httpx2.AsyncClient, services: Services) -> str:
    from tests.conftest import console_credential_for

    page = await web.get("/console/login")
    nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
    assert nonce is not None
    response = await web.post(
        "/console/login",
        data={"token": console_credential_for(services, "olivia", "operator"), "login_csrf": nonce[1]},
        headers={"origin": str(web.base_url).rstrip("/")},
    )
    assert response.status_code == 303
    return str(response.cookies["rpa_console"])
