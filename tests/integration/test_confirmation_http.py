"""Confirmation over real HTTP with the SDK client: token mode, human mode through the approval page."""

from __future__ import annotations

import re

import jwt
import pytest

from tests.conftest import console_credential_for
from tests.integration.conftest import Stack

pytestmark = pytest.mark.anyio
IR = {
    "name": "Admission patient",
    "domain": "admissions",
    "version": 1,
    "source": {"session_id": "s-1", "machine_id": "PC-1"},
    "created_at": "2026-01-05T08:00:00+00:00",
    "steps": [
        {
            "index": 1,
            "intent": "Ouvrir le dossier",
            "action_type": "click_anchor",
            "target": {"label": "Dossier"},
            "params": {},
            "expected_window_before": None,
            "expected_window_after": None,
            "success_strict": False,
            "wait_after_ms": 200,
            "expected_modals": [],
        }
    ],
}


@pytest.fixture
def settings(settings):
    """run_<slug> tools listed over MCP (they are opt-in)."""
    return settings.model_copy(update={"mcp_run_tools": 10})


async def tool(client, name, args):
    return await client.call_tool(name, args)


async def approve_in_page(stack: Stack, jti: str, approver_token: str) -> None:
    """What a person does in a browser: sign in with their own console credential, open the request, approve."""
    async with stack.http() as http:
        http.headers.pop("Authorization")
        login = await http.get("/console/login")
        nonce = re.search(r'name="login_csrf" value="([^"]+)"', login.text)[1]
        signed = await http.post(
            "/console/login",
            data={"token": approver_token, "login_csrf": nonce, "next": f"/console/approvals/{jti}"},
            headers={"origin": stack.base},
        )
        assert signed.status_code in (200, 303), signed.text
        page = await http.get(f"/console/approvals/{jti}")
        assert page.status_code == 200 and "Admission patient" in page.text
        csrf = re.search(
            r'action="/console/approvals/[^"]+/approve"[^>]*><input type="hidden" name="csrf" value="([^"]+)"',
            page.text,
        )[1]
        decided = await http.post(
            f"/console/approvals/{jti}/approve", data={"csrf": csrf}, headers={"origin": stack.base}
        )
        assert decided.status_code in (200, 303), decided.text


async def test_token_mode_promote_then_reuse_refused(stack):
    stack.services.competences.save("Admission patient", IR)
    llm = await stack.mcp("operator")
    proposal = (await tool(llm, "propose_promote_competence", {"name": "Admission patient"})).structured_content
    assert proposal["approval_mode"] == "token" and proposal["approval_url"] is None
    applied = await tool(llm, "apply_promote_competence", {"token": proposal["token"]})
    assert not applied.is_error, applied.content[0].text
    again = await tool(llm, "apply_promote_competence", {"token": proposal["token"]})
    assert again.is_error and again.meta["rpa/error"]["code"] == "confirmation-already-used"


async def test_human_mode_delete_is_approved_in_the_page_then_applied_and_audited(stack):
    stack.services.competences.save("Admission patient", IR)
    llm = await stack.mcp("operator", subject="alice")
    proposal = (await tool(llm, "propose_delete_competence", {"name": "Admission patient"})).structured_content
    assert proposal["approval_mode"] == "human" and proposal["approval_url"].startswith("http")
    jti = jwt.decode(proposal["token"], options={"verify_signature": False})["jti"]

    early = await tool(llm, "apply_delete_competence", {"token": proposal["token"]})
    assert early.is_error and early.meta["rpa/error"]["code"] == "approval-pending"
    assert "approv" in early.content[0].text

    await approve_in_page(stack, jti, console_credential_for(stack.services, "carol", "approver"))
    done = await tool(llm, "apply_delete_competence", {"token": proposal["token"]})
    assert not done.is_error, done.content[0].text
    listed = (await tool(llm, "list_competences", {})).structured_content
    assert all(c["name"] != "Admission patient" for c in listed["competences"])

    rows = [(r["actor"], r["operation"]) for r in stack.services.audit.rows()]
    assert ("alice", "propose:delete_competence") in rows
    assert ("carol@rpa-mcp", "approve:delete_competence") in rows  # who approved: subject@issuer
    assert ("alice", "apply:delete_competence") in rows


async def test_the_proposer_cannot_approve_in_the_page(stack):
    stack.services.competences.save("Admission patient", IR)
    llm = await stack.mcp("operator", subject="alice")
    proposal = (await tool(llm, "propose_delete_competence", {"name": "Admission patient"})).structured_content
    jti = jwt.decode(proposal["token"], options={"verify_signature": False})["jti"]
    with pytest.raises((AssertionError, TypeError)):
        await approve_in_page(stack, jti, console_credential_for(stack.services, "alice", "operator"))
    assert stack.services.confirmations.get_approval(jti).status == "pending"


async def test_a_promoted_competence_becomes_a_run_tool_and_listeners_are_told(stack):
    import anyio

    stack.services.competences.save("Admission patient", IR)
    llm = await stack.mcp("operator")
    assert "run_admission_patient" not in {t.name for t in (await llm.list_tools()).tools}
    async with llm.listen(tools_list_changed=True) as sub:
        proposal = (await tool(llm, "propose_promote_competence", {"name": "Admission patient"})).structured_content
        assert not (await tool(llm, "apply_promote_competence", {"token": proposal["token"]})).is_error
        with anyio.fail_after(10):
            async for _event in sub:
                break
    tools = {t.name: t for t in (await llm.list_tools()).tools}
    assert "run_admission_patient" in tools and tools["run_admission_patient"].description
    run = await tool(llm, "run_admission_patient", {"machine_id": "PC-1"})
    assert not run.is_error, run.content[0].text
    assert run.structured_content["operation"] == "start_replay" and run.structured_content["token"]
