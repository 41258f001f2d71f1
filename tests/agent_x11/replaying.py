"""Driving a replay of the real desktop agent from a test: start it, wait for a state, read it."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx2

from rpa_mcp.agent_x11.harness import DesktopError


class Replays:
    def __init__(self, server: Any) -> None:
        self.server = server
        token = server.token("nurse-alice", "operator")
        self.http = httpx2.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=60)

    def close(self) -> None:
        self.http.close()

    def tool(self, name: str, **args: Any) -> dict[str, Any]:
        answer = self.http.post(f"/api/v1/tools/{name}", json=args)
        body: dict[str, Any] = answer.json()
        if answer.status_code >= 400:
            raise AssertionError(f"{name}: HTTP {answer.status_code} {body}")
        return body

    def approve(self, proposal: dict[str, Any], approver: str = "dr-martin") -> None:
        """A second person signs in on the approval page with their own token and approves (CSRF and all)."""
        if proposal.get("approval_mode") != "human":
            return
        jti = str(proposal["approval_url"]).rstrip("/").rsplit("/", 1)[-1]
        origin = {"origin": self.server.url}
        with httpx2.Client(base_url=self.server.url, timeout=60, follow_redirects=False) as page:
            login = page.get("/console/login")
            nonce = re.search(r'name="login_csrf" value="([^"]+)"', login.text)
            assert nonce is not None, login.text[:300]
            token = self.server.token(approver, "approver")
            signed = page.post(
                "/console/login",
                data={"token": token, "login_csrf": nonce[1], "next": f"/console/approvals/{jti}"},
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

    def propose_apply(self, name: str, **args: Any) -> dict[str, Any]:
        proposal = self.tool(f"propose_{name}", **args)
        self.approve(proposal)
        return self.tool(f"apply_{name}", token=proposal["token"])

    def start(self, competence: str, machine_id: str, **params: Any) -> str:
        args: dict[str, Any] = {"competence": competence, "machine_id": machine_id}
        if params:
            args["params"] = params
        return str(self.propose_apply("start_replay", **args)["replay_id"])

    def resume(self, replay_id: str) -> dict[str, Any]:
        return self.propose_apply("resume_replay", replay_id=replay_id)

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
        return self.wait(replay_id, lambda s: s.get("state") in ("paused", "completed", "failed", "cancelled"), **kw)
