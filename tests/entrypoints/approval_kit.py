"""What the approval tests over MCP share: the callers, a competence to delete, the client's person,
and an apply that completes once another person approves on the page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from mcp.types import ElicitResult

from rpa_mcp.entrypoints.mcp import RpaMCPServer, build_mcp_server
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry

ALICE = Caller("alice", frozenset({"operator"}), via="mcp", auth="internal")
CAROL = Caller("carol", frozenset({"approver"}), via="web", auth="internal")  # a person, in the console
IR = {
    "name": "Admission patient",
    "domain": "generic",
    "version": 1,
    "source": {"session_id": "s1", "machine_id": "PC-1"},
    "steps": [{"index": 1, "intent": "Click 'Admission'", "action_type": "click_anchor", "target": {"label": "A"}}],
}


class Person:
    """The client's person: sees the elicitation, says whether they opened the link."""

    def __init__(self, action: str = "accept") -> None:
        self.action = action
        self.shown: list[Any] = []
        self.seen = anyio.Event()

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.shown.append(params)
        self.seen.set()
        return ElicitResult(action=self.action)


def alices_server(services: Any) -> RpaMCPServer:
    """The MCP server (in memory) whose local caller is Alice, once IR is saved."""
    services.competences.save(IR["name"], IR)
    return build_mcp_server(build_registry(), services, local_caller=ALICE)


async def propose_delete(client: Any) -> dict[str, Any]:
    """propose_delete_competence of IR, which asks a person's approval; its structured answer."""
    proposal = await client.call_tool("propose_delete_competence", {"name": IR["name"]})
    assert proposal.structured_content["approval_mode"] == "human"
    return dict(proposal.structured_content)


def jti_of(proposal: dict[str, Any]) -> str:
    return str(proposal["approval_url"]).rsplit("/", 1)[-1]


async def apply_once_carol_approves(
    client: Any,
    services: Any,
    person: Person,
    proposal: dict[str, Any],
    *,
    meanwhile: Callable[[], None] = lambda: None,
    within: float = 20,
) -> Any:
    """apply_delete_competence through `client` (a Client or a ClientSession); once `person` is shown the
    page, `meanwhile()` runs while the apply still waits, then Carol approves. The apply's result."""
    answer: dict[str, Any] = {}

    async def apply() -> None:
        answer["result"] = await client.call_tool("apply_delete_competence", {"token": proposal["token"]})

    with anyio.fail_after(within):
        async with anyio.create_task_group() as tg:
            tg.start_soon(apply)
            await person.seen.wait()
            assert "result" not in answer  # the client's "accept" is not consent
            meanwhile()
            services.confirmations.decide(jti_of(proposal), CAROL, approve=True)
    return answer["result"]
