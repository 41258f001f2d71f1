"""Driving the server from a test: as an LLM over the MCP SDK client, or over REST; a second person
approves in the console's approval view (sign-in, CSRF and all)."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.desktop_rig.harness import DesktopError

STOPPED = ("paused", "completed", "failed", "cancelled")


def approve_in_console(server: Any, proposal: dict[str, Any], approver: str = "dr-martin") -> None:
    """A second person signs in to the console with their own console credential and approves the proposal."""
    if proposal.get("approval_mode") != "human":
        return
    jti = str(proposal["approval_url"]).rstrip("/").rsplit("/", 1)[-1]
    origin = {"origin": server.url}
    with httpx2.Client(base_url=server.url, timeout=60, follow_redirects=False) as page:
        login = page.get("/console/login")
        nonce = re.search(r'name="login_csrf" value="([^"]+)"', login.text)
        assert nonce is not None, login.text[:300]
        signed = page.post(
            "/console/login",
            data={
                "token": server.console_credential(approver, "approver"),
                "login_csrf": nonce[1],
                "next": f"/console/approvals/{jti}",
            },
            headers=origin,
        )
        assert signed.status_code in (200, 303), signed.text[:300]
        view = page.get(f"/console/approvals/{jti}")
        csrf = re.search(
            r'action="/console/approvals/[^"]+/approve"[^>]*><input type="hidden" name="csrf" value="([^"]+)"',
            view.text,
        )
        assert csrf is not None, view.text[:500]
        decided = page.post(f"/console/approvals/{jti}/approve", data={"csrf": csrf[1]}, headers=origin)
        assert decided.status_code in (200, 303), decided.text[:300]


class Replays:
    """The REST tools surface with an operator's token (blocking: for threads and plain tests)."""

    def __init__(self, server: Any, subject: str = "nurse-alice") -> None:
        self.server = server
        token = server.token(subject, "operator")
        self.http = httpx2.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=60)

    def close(self) -> None:
        self.http.close()

    def tool(self, name: str, **args: Any) -> dict[str, Any]:
        answer = self.http.post(f"/api/v1/tools/{name}", json=args)
        body: dict[str, Any] = answer.json()
        if answer.status_code >= 400:
            raise AssertionError(f"{name}: HTTP {answer.status_code} {body}")
        return body

    def refusal(self, name: str, **args: Any) -> dict[str, Any]:
        """The problem+json of a tool call that must be refused."""
        answer = self.http.post(f"/api/v1/tools/{name}", json=args)
        assert answer.status_code >= 400, (name, answer.status_code, answer.text[:300])
        body: dict[str, Any] = answer.json()
        return body

    def approve(self, proposal: dict[str, Any], approver: str = "dr-martin") -> None:
        approve_in_console(self.server, proposal, approver)

    def propose_apply(self, name: str, **args: Any) -> dict[str, Any]:
        proposal = self.tool(f"propose_{name}", **args)
        self.approve(proposal)
        return self.tool(f"apply_{name}", token=proposal["token"])

    def start(self, competence: str, machine_id: str, **params: Any) -> str:
        args: dict[str, Any] = {"competence": competence, "machine_id": machine_id}
        if params:
            args["params"] = params
        return str(self.propose_apply("start_replay", **args)["replay_id"])

    def resume(self, replay_id: str, **args: Any) -> dict[str, Any]:
        return self.propose_apply("resume_replay", replay_id=replay_id, **args)

    def answer(self, replay_id: str, decision: str) -> dict[str, Any]:
        return self.propose_apply("answer_pause", replay_id=replay_id, decision=decision)

    def status(self, replay_id: str) -> dict[str, Any]:
        return self.tool("get_replay_status", replay_id=replay_id)

    def wait(self, replay_id: str, condition: Any, *, timeout: float = 180.0, what: str = "") -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        status: dict[str, Any] = {}
        while time.monotonic() < deadline:
            status = self.status(replay_id)
            if condition(status):
                return status
            time.sleep(0.2)
        summary = {k: status.get(k) for k in ("state", "pause_reason", "pause_detail", "done", "steps_total")}
        raise DesktopError(f"replay {replay_id} never reached {what or 'the expected state'}: {summary}")

    def wait_stopped(self, replay_id: str, **kw: Any) -> dict[str, Any]:
        return self.wait(replay_id, lambda s: s.get("state") in STOPPED, **kw)


class Llm:
    """The LLM side: the MCP SDK's own client over Streamable HTTP, with an operator's token."""

    def __init__(self, server: Any, client: Client) -> None:
        self.server, self.client = server, client

    async def call(self, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.client.call_tool(name, args or {})
        assert not result.is_error, f"{name}: {result.content[0].text if result.content else result}"
        content: dict[str, Any] = result.structured_content or {}
        return content

    async def propose_apply(self, name: str, args: dict[str, Any], approver: str = "dr-martin") -> dict[str, Any]:
        proposal = await self.call(f"propose_{name}", args)
        await anyio.to_thread.run_sync(approve_in_console, self.server, proposal, approver)
        return await self.call(f"apply_{name}", {"token": proposal["token"]})

    async def wait_replay(self, replay_id: str, *, timeout: float = 240.0) -> dict[str, Any]:
        """get_replay_status until the replay stops (completed, paused, failed, cancelled)."""
        with anyio.fail_after(timeout):
            while True:
                status = await self.call("get_replay_status", {"replay_id": replay_id})
                if status.get("state") in STOPPED:
                    return status
                await anyio.sleep(0.3)


@asynccontextmanager
async def llm_client(server: Any, subject: str = "nurse-alice") -> AsyncIterator[Llm]:
    token = server.token(subject, "operator")
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http,
        Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as client,
    ):
        yield Llm(server, client)
