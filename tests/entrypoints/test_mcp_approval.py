"""Approval through the client (URL elicitation): the page is shown, another person's approval is the gate."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.entrypoints import mcp_approval
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.errors import Forbidden, NotFound
from tests.conftest import token_for
from tests.entrypoints.approval_kit import (
    ALICE,
    IR,
    Person,
    alices_server,
    apply_once_carol_approves,
    jti_of,
    propose_delete,
)

pytestmark = pytest.mark.anyio


async def test_the_apply_shows_the_approval_page_and_completes_once_another_person_approves(services):
    server = alices_server(services)
    person = Person()

    def proposer_cannot_approve() -> None:
        with pytest.raises(Forbidden):
            services.confirmations.decide(jti_of(proposal), ALICE, approve=True)

    async with Client(server, mode="legacy", elicitation_callback=person) as client:
        proposal = await propose_delete(client)
        result = await apply_once_carol_approves(client, services, person, proposal, meanwhile=proposer_cannot_approve)
    (shown,) = person.shown
    assert shown.mode == "url" and shown.url == proposal["approval_url"]
    assert not result.is_error, result.content[0].text
    with pytest.raises(NotFound):
        services.competences.get(IR["name"])


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # a 2026 client declines the input request
async def test_a_person_who_declines_gets_approval_pending_and_nothing_is_done(services, mode):
    server = alices_server(services)
    async with Client(server, mode=mode, elicitation_callback=Person("decline")) as client:
        proposal = await propose_delete(client)
        result = await client.call_tool("apply_delete_competence", {"token": proposal["token"]})
    assert result.is_error and result.meta["rpa/error"]["code"] == "approval-pending"
    assert services.competences.get(IR["name"]).name == IR["name"]


async def test_without_an_approval_in_time_the_answer_is_approval_pending_and_a_retry_does_not_ask_again(
    services, monkeypatch
):
    monkeypatch.setattr(mcp_approval, "APPROVAL_WAIT_S", 0.05)
    server = alices_server(services)
    person = Person()
    async with Client(server, mode="legacy", elicitation_callback=person) as client:
        proposal = await propose_delete(client)
        first = await client.call_tool("apply_delete_competence", {"token": proposal["token"]})
        second = await client.call_tool("apply_delete_competence", {"token": proposal["token"]})
    assert first.meta["rpa/error"]["code"] == second.meta["rpa/error"]["code"] == "approval-pending"
    assert len(person.shown) == 1


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_client_without_url_elicitation_gets_approval_pending_at_once(services, mode):
    server = alices_server(services)
    async with Client(server, mode=mode) as client:
        proposal = await propose_delete(client)
        with anyio.fail_after(5):
            result = await client.call_tool("apply_delete_competence", {"token": proposal["token"]})
    assert result.is_error and result.meta["rpa/error"]["code"] == "approval-pending"


async def test_over_http_a_legacy_session_gets_the_url_elicitation_and_the_apply_completes(services, serve):
    services.competences.save(IR["name"], IR)
    base = await serve(create_app(services=services))
    token = token_for(services, "alice", "operator")
    person = Person()
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write, elicitation_callback=person) as session,
    ):
        await session.initialize()
        proposal = (await session.call_tool("propose_delete_competence", {"name": IR["name"]})).structured_content

        result = await apply_once_carol_approves(session, services, person, proposal, within=30)
    assert person.shown[0].url == proposal["approval_url"]
    assert not result.is_error, result.content[0].text


async def test_a_2026_client_gets_the_url_as_an_input_request_and_the_apply_completes_once_another_person_approves(
    services,
):
    server = alices_server(services)
    person = Person()
    async with Client(server, elicitation_callback=person) as client:
        assert client.protocol_version >= "2026"
        proposal = await propose_delete(client)

        def nothing_done_yet() -> None:
            assert services.competences.get(IR["name"]).name == IR["name"]

        result = await apply_once_carol_approves(client, services, person, proposal, meanwhile=nothing_done_yet)
    (shown,) = person.shown
    assert shown.mode == "url" and shown.url == proposal["approval_url"]
    assert not result.is_error, result.content[0].text
    with pytest.raises(NotFound):
        services.competences.get(IR["name"])


async def test_over_http_a_2026_client_gets_the_input_request_and_the_apply_completes(services, serve):
    services.competences.save(IR["name"], IR)
    base = await serve(create_app(services=services))
    token = token_for(services, "alice", "operator")
    person = Person()
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http), elicitation_callback=person) as client,
    ):
        proposal = await propose_delete(client)

        result = await apply_once_carol_approves(client, services, person, proposal, within=30)
    assert person.shown[0].url == proposal["approval_url"]
    assert not result.is_error, result.content[0].text


async def test_an_apply_in_flight_when_the_wait_ends_is_not_interrupted(services, monkeypatch):
    monkeypatch.setattr(mcp_approval, "APPROVAL_WAIT_S", 0.0)
    approvals = mcp_approval.ClientApprovals(services.notifier)
    went_through = {"done": True}

    async def apply() -> dict[str, Any]:
        await anyio.lowlevel.checkpoint()  # the apply is in flight when the wait's time is up
        return went_through

    heard = mcp_approval.HeardUri(mcp_approval.APPROVALS_URI)
    pending = mcp_approval.ApprovalPending("waiting", approval_url="https://rpa.example/approvals/j1")
    assert await approvals.until_approved(pending, heard, apply, None) is went_through
