"""Long tool calls as tasks (2026-07-28 Tasks extension, 2025-11-25 core tasks), with the SDK's own client."""

from __future__ import annotations

import json
from typing import Any, Literal

import anyio
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.types import (
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    Request,
    RequestParams,
    Result,
)
from pydantic import ConfigDict, Field, TypeAdapter

from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.entrypoints.mcp import RpaMCPServer, build_mcp_server
from rpa_mcp.entrypoints.mcp_tasks import TASKS_EXTENSION, Task
from rpa_mcp.errors import NotFound
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry
from tests.conftest import token_for
from tests.entrypoints.approval_kit import ALICE, CAROL, IR, alices_server, jti_of, propose_delete

pytestmark = pytest.mark.anyio
BOB = Caller("bob", frozenset({"operator"}), via="mcp", auth="internal")
ANY = TypeAdapter(dict[str, Any])


class CreatedTask(Result):
    """What a task-making `tools/call` answers on 2026-07-28 (the task's fields, flat)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    result_type: Literal["task"] = Field("task", alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str


class TasksClient(ClientExtension):
    """A client that declares the Tasks extension and keeps the handles it gets (the test reads them)."""

    identifier = TASKS_EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.resolve)]

    async def resolve(self, created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        raise AssertionError("the tests take the handle itself (allow_claimed=True)")


class TaskIdParams(RequestParams):
    task_id: str = Field(alias="taskId")


class UpdateTask(Request[Any, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: dict[str, Any]
    name_param = "taskId"


class GetTask(GetTaskRequest):
    name_param = "taskId"  # SEP-2663: the task id travels in Mcp-Name over HTTP


class CancelTask(CancelTaskRequest):
    name_param = "taskId"


async def call(client: Client, name: str, arguments: dict[str, Any]) -> Any:
    """A tools/call that may answer with a task: the handle itself, or the plain result."""
    return await client.session.call_tool(name, arguments, allow_claimed=True)


async def task_get(client: Client, task_id: str) -> dict[str, Any]:
    return await client.session.send_request(GetTask(params=GetTaskRequestParams(task_id=task_id)), ANY)


def the_task(server: RpaMCPServer, task_id: str, who: Caller = ALICE) -> Task:
    task = server.tasks.store.get(task_id, who.identity)
    assert task is not None
    return task


async def start_apply_as_task(client: Client) -> tuple[dict[str, Any], str]:
    proposal = await propose_delete(client)
    created = await call(client, "apply_delete_competence", {"token": proposal["token"]})
    assert isinstance(created, CreatedTask) and created.status == "working"
    return proposal, created.task_id


async def until_status(server: RpaMCPServer, task_id: str, status: str) -> None:
    task = the_task(server, task_id)
    with anyio.fail_after(10):
        while task.status != status:
            await anyio.lowlevel.checkpoint()


async def test_an_apply_as_a_task_carries_the_approval_url_and_completes_once_another_person_approves(services):
    server = alices_server(services)
    async with Client(server, extensions=[TasksClient()]) as client:
        proposal, task_id = await start_apply_as_task(client)
        await until_status(server, task_id, "input_required")
        waiting = await task_get(client, task_id)
        (request,) = waiting["inputRequests"].values()
        assert request["method"] == "elicitation/create"
        assert request["params"]["mode"] == "url" and request["params"]["url"] == proposal["approval_url"]
        # the client's "accept" is not consent: the task still waits for the person on the page
        key = next(iter(waiting["inputRequests"]))
        update = {"taskId": task_id, "inputResponses": {key: {"action": "accept"}}}
        assert (await client.session.send_request(UpdateTask(params=update), ANY)).get("resultType") == "complete"
        assert services.competences.get(IR["name"]).name == IR["name"]
        services.confirmations.decide(jti_of(proposal), CAROL, approve=True)
        with anyio.fail_after(10):
            await the_task(server, task_id).done.wait()
        done = await task_get(client, task_id)
    assert done["status"] == "completed" and done["result"]["isError"] is False
    with pytest.raises(NotFound):
        services.competences.get(IR["name"])


async def test_a_declined_approval_ends_the_task_with_approval_pending_and_nothing_is_done(services):
    server = alices_server(services)
    async with Client(server, extensions=[TasksClient()]) as client:
        _, task_id = await start_apply_as_task(client)
        await until_status(server, task_id, "input_required")
        key = next(iter((await task_get(client, task_id))["inputRequests"]))
        update = {"taskId": task_id, "inputResponses": {key: {"action": "decline"}}}
        await client.session.send_request(UpdateTask(params=update), ANY)
        with anyio.fail_after(10):
            await the_task(server, task_id).done.wait()
        done = await task_get(client, task_id)
    assert done["status"] == "completed" and done["result"]["isError"] is True
    assert done["result"]["_meta"]["rpa/error"]["code"] == "approval-pending"
    assert services.competences.get(IR["name"]).name == IR["name"]


async def test_a_cancelled_task_is_acknowledged_ends_cancelled_and_nothing_is_done(services):
    server = alices_server(services)
    async with Client(server, extensions=[TasksClient()]) as client:
        _, task_id = await start_apply_as_task(client)
        await until_status(server, task_id, "input_required")
        ack = await client.session.send_request(CancelTask(params=CancelTaskRequestParams(task_id=task_id)), ANY)
        with anyio.fail_after(10):
            await the_task(server, task_id).done.wait()
        done = await task_get(client, task_id)
        again = await client.session.send_request(CancelTask(params=CancelTaskRequestParams(task_id=task_id)), ANY)
    assert set(ack) <= {"resultType", "_meta"} and set(again) <= {"resultType", "_meta"}
    assert done["status"] == "cancelled" and "result" not in done
    assert services.competences.get(IR["name"]).name == IR["name"]


async def test_a_task_survives_a_reconnect_of_its_identity_and_is_unknown_to_another(services):
    who = [ALICE]
    server = build_mcp_server(build_registry(), services, local_caller=lambda: who[0])
    async with Client(server, extensions=[TasksClient()]) as client:
        task_id = (await call(client, "get_replay_status", {"replay_id": "nope"})).task_id
    with anyio.fail_after(10):
        await the_task(server, task_id).done.wait()
    async with Client(server, extensions=[TasksClient()]) as again:  # a new connection, the same person
        done = await task_get(again, task_id)
        who[0] = BOB
        with pytest.raises(MCPError) as foreign:
            await task_get(again, task_id)
    assert done["status"] == "completed" and done["result"]["_meta"]["rpa/error"]["code"] == "not-found"
    assert foreign.value.error.code == -32602


async def test_without_the_extension_a_call_answers_itself_and_the_task_methods_are_refused(services):
    server = build_mcp_server(build_registry(), services, local_caller=ALICE)
    async with Client(server) as client:
        result = await client.call_tool("get_replay_status", {"replay_id": "nope"})
        with pytest.raises(MCPError) as refused:
            await task_get(client, "anything")
    assert result.is_error and result.meta["rpa/error"]["code"] == "not-found"
    assert refused.value.error.code == -32021
    assert not server.tasks.store.of(ALICE.identity)


async def test_a_read_that_is_not_long_is_never_a_task(services):
    server = build_mcp_server(build_registry(), services, local_caller=ALICE)
    async with Client(server, extensions=[TasksClient()]) as client:
        discovered = client.server_capabilities
        result = await call(client, "list_competences", {})
        with pytest.raises(MCPError) as unknown:
            await task_get(client, "no-such-task")
    assert TASKS_EXTENSION in (discovered.extensions or {})
    assert isinstance(result, CallToolResult) and not result.is_error
    assert unknown.value.error.code == -32602


async def test_over_http_a_2026_client_gets_a_task_and_polls_it_with_mcp_name(services, serve):
    base = await serve(create_app(services=services))
    token = token_for(services, "alice", "operator")
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http), extensions=[TasksClient()]) as client,
    ):
        task_id = (await call(client, "get_replay_status", {"replay_id": "nope"})).task_id
        with anyio.fail_after(20):
            while (task := await task_get(client, task_id))["status"] == "working":
                await anyio.lowlevel.checkpoint()
    assert task["status"] == "completed" and task["result"]["_meta"]["rpa/error"]["code"] == "not-found"


class LegacyWire:
    """A 2025-11-25 client speaking JSON-RPC itself: the SDK's client checks every `tools/call` answer
    against `CallToolResult`, so it cannot receive the task a 2025-11-25 server answers."""

    def __init__(self, http: httpx2.AsyncClient, url: str) -> None:
        self.http, self.url, self.session, self.ids = http, url, "", 0

    async def __call__(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.ids += 1
        headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}}
        response = await self.http.post(self.url, json=body, headers=headers)
        self.session = response.headers.get("mcp-session-id", self.session)
        (data,) = [line[5:] for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return dict(json.loads(data))

    async def start(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        info = {"name": "legacy", "version": "1"}
        init = await self(
            "initialize", {"protocolVersion": "2025-11-25", "capabilities": capabilities or {}, "clientInfo": info}
        )
        headers = {"Mcp-Session-Id": self.session, "MCP-Protocol-Version": "2025-11-25"}
        await self.http.post(self.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        return init


async def test_over_http_a_2025_client_asks_for_a_task_and_reads_it_with_get_result_list_and_cancel(services, serve):
    base = await serve(create_app(services=services))
    token = token_for(services, "alice", "operator")
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        rpc = LegacyWire(http, f"{base}/mcp")
        init = await rpc.start()
        arguments = {"replay_id": "nope"}
        created = await rpc("tools/call", {"name": "get_replay_status", "arguments": arguments, "task": {}})
        task_id = created["result"]["task"]["taskId"]
        payload = await rpc("tasks/result", {"taskId": task_id})
        status = await rpc("tasks/get", {"taskId": task_id})
        listed = await rpc("tasks/list")
        ended = await rpc("tasks/cancel", {"taskId": task_id})
        plain = await rpc("tools/call", {"name": "get_replay_status", "arguments": arguments})
    assert init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"] == {}
    assert created["result"]["task"]["status"] == "working" and created["result"]["task"]["ttl"] > 0
    assert payload["result"]["_meta"]["rpa/error"]["code"] == "not-found"
    assert payload["result"]["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    assert status["result"]["status"] == "completed"
    assert [t["taskId"] for t in listed["result"]["tasks"]] == [task_id]
    assert ended["error"]["code"] == -32602  # a task that has ended cannot be cancelled (2025-11-25)
    assert "task" not in plain["result"] and plain["result"]["isError"] is True  # no `task` field: no task


async def test_over_http_a_2025_session_is_told_each_status_of_its_task_on_its_stream(services, serve):
    services.competences.save(IR["name"], IR)
    base = await serve(create_app(services=services))
    token = token_for(services, "alice", "operator")
    told: list[str] = []
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        rpc = LegacyWire(http, f"{base}/mcp")
        await rpc.start()
        proposal = await rpc("tools/call", {"name": "propose_delete_competence", "arguments": {"name": IR["name"]}})
        apply = {
            "name": "apply_delete_competence",
            "arguments": {"token": proposal["result"]["structuredContent"]["token"]},
        }
        task_id = (await rpc("tools/call", {**apply, "task": {}}))["result"]["task"]["taskId"]
        stream = {"Accept": "text/event-stream", "Mcp-Session-Id": rpc.session, "MCP-Protocol-Version": "2025-11-25"}
        with anyio.fail_after(20):
            async with http.stream("GET", f"{base}/mcp", headers=stream) as events:
                assert events.status_code == 200
                while (await rpc("tasks/get", {"taskId": task_id}))["result"]["status"] != "input_required":
                    await anyio.lowlevel.checkpoint()
                services.confirmations.decide(jti_of(proposal["result"]["structuredContent"]), CAROL, approve=True)
                async for line in events.aiter_lines():
                    if line.startswith("data:") and "notifications/tasks/status" in line:
                        params = json.loads(line[5:])["params"]
                        assert params["taskId"] == task_id
                        told.append(params["status"])
                        if params["status"] == "completed":
                            break
    assert told[-2:] == ["working", "completed"]
    with pytest.raises(NotFound):
        services.competences.get(IR["name"])


async def test_over_http_a_2025_client_waiting_for_the_result_is_shown_the_approval_page_once(services, serve):
    services.competences.save(IR["name"], IR)
    base = await serve(create_app(services=services))
    token = token_for(services, "alice", "operator")
    shown: list[dict[str, Any]] = []
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        rpc = LegacyWire(http, f"{base}/mcp")
        await rpc.start({"elicitation": {"url": {}}})
        proposal = await rpc("tools/call", {"name": "propose_delete_competence", "arguments": {"name": IR["name"]}})
        proposed = proposal["result"]["structuredContent"]
        apply = {"name": "apply_delete_competence", "arguments": {"token": proposed["token"]}}
        task_id = (await rpc("tools/call", {**apply, "task": {}}))["result"]["task"]["taskId"]
        while (await rpc("tasks/get", {"taskId": task_id}))["result"]["status"] != "input_required":
            await anyio.lowlevel.checkpoint()
        headers = {
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": rpc.session,
            "MCP-Protocol-Version": "2025-11-25",
        }
        body = {"jsonrpc": "2.0", "id": 99, "method": "tasks/result", "params": {"taskId": task_id}}
        final: dict[str, Any] = {}
        with anyio.fail_after(20):
            async with http.stream("POST", f"{base}/mcp", json=body, headers=headers) as events:
                async for line in events.aiter_lines():
                    if not line.startswith("data:") or not line[5:].strip():
                        continue
                    message = json.loads(line[5:])
                    if message.get("method") == "elicitation/create":
                        shown.append(message["params"])
                        answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"action": "accept"}}
                        await http.post(f"{base}/mcp", json=answer, headers=headers)
                        assert services.competences.get(IR["name"]).name == IR["name"]  # "accept" is not consent
                        services.confirmations.decide(jti_of(proposed), CAROL, approve=True)
                    elif message.get("id") == 99:
                        final = message
                        break
    (page,) = shown
    assert page["mode"] == "url" and page["url"] == proposed["approval_url"]
    assert final["result"]["isError"] is False
    with pytest.raises(NotFound):
        services.competences.get(IR["name"])
