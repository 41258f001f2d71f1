"""Tasks on the wire, in both protocol eras (the tasks themselves: `mcp_tasks`).

2026-07-28, the Tasks extension (`io.modelcontextprotocol/tasks`, advertised in `server/discover`):
a `tools/call` whose request declares the extension and names a tool that runs as a task gets a
`CreateTaskResult` (`resultType: "task"`, the task's fields flat); `tasks/get` answers the task
with its `result`, `error` or `inputRequests` inline; `tasks/update` takes the client's answers;
`tasks/cancel` acknowledges. Requests that do not declare the extension are refused `-32021`.

2025-11-25 (experimental core tasks, advertised in `initialize`): a `tools/call` with a `task`
field gets `{task: {...}}`; `tasks/get`, `tasks/result` (waits for the end, then the tool's
result; meanwhile an approval page the task waits for is shown once, as a URL elicitation, to a
client that declared it), `tasks/list` (the caller's tasks) and `tasks/cancel`; each change of
status is sent to the session that created the task as `notifications/tasks/status`.

An unknown task, or another identity's, is `-32602` in both eras.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp.types import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    CallToolRequestParams,
    CancelTaskRequestParams,
    GetTaskPayloadRequestParams,
    GetTaskRequestParams,
    PaginatedRequestParams,
    RequestParams,
    TaskStatusNotification,
    TaskStatusNotificationParams,
)
from pydantic import ConfigDict, Field

from rpa_mcp.entrypoints.mcp_tasks import (
    APPROVAL_MESSAGE,
    POLL_INTERVAL_MS,
    TASKS_EXTENSION,
    Task,
    TaskRunner,
    TaskStore,
    iso,
    runs_as_task,
)
from rpa_mcp.errors import RpaError
from rpa_mcp.identity import Caller

if TYPE_CHECKING:
    from rpa_mcp.entrypoints.mcp import RpaMCPServer

MISSING_CAPABILITY = -32021
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
RELATED_TASK_KEY = "io.modelcontextprotocol/related-task"


class UpdateTaskParams(RequestParams):
    """`tasks/update` (2026-07-28): the client's answers to a task's input requests."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task_id: str = Field(alias="taskId")
    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


def modern(ctx: ServerRequestContext[Any, Any]) -> bool:
    return str(ctx.protocol_version) >= "2026"


def declares_tasks(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this 2026-07-28 request declares the Tasks extension (capabilities travel with each request)."""
    declared = (ctx.params or {}).get("_meta", {}) or {}
    extensions = (declared.get(CAPABILITIES_KEY) or {}).get("extensions") if isinstance(declared, dict) else None
    if isinstance(extensions, dict):
        return TASKS_EXTENSION in extensions
    capabilities = getattr(ctx.session, "client_capabilities", None)
    return TASKS_EXTENSION in ((capabilities.extensions or {}) if capabilities is not None else {})


def _status(task: Task, *, ttl: str, poll: str) -> dict[str, Any]:
    """What both wires say of a task; they name its time to live and poll interval differently."""
    body: dict[str, Any] = {
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": iso(task.created_at),
        "lastUpdatedAt": iso(task.updated_at),
        ttl: task.ttl_ms,
        poll: POLL_INTERVAL_MS,
    }
    if task.message:
        body["statusMessage"] = task.message
    return body


def detailed(task: Task) -> dict[str, Any]:
    """A task on the 2026-07-28 wire, with its result, error or input requests inline."""
    body = _status(task, ttl="ttlMs", poll="pollIntervalMs")
    if task.status == "completed" and task.result is not None:
        body["result"] = task.result
    elif task.status == "failed" and task.error is not None:
        body["error"] = task.error
    elif task.status == "input_required" and task.approval is not None:
        body["inputRequests"] = {task.approval.key: task.approval.input_request()}
    return body


def legacy(task: Task) -> dict[str, Any]:
    """A task on the 2025-11-25 wire."""
    return _status(task, ttl="ttl", poll="pollInterval")


class McpTasks:
    """Creates tasks for the server's tool calls and answers the `tasks/*` methods."""

    def __init__(self, server: RpaMCPServer, store: TaskStore, runner: TaskRunner) -> None:
        self.server, self.store, self.runner = server, store, runner

    # --- creation ---------------------------------------------------------------------------------
    async def create(self, ctx: ServerRequestContext[Any, Any], name: str, arguments: dict[str, Any]) -> Task:
        """Store a task for this call and start it; stored before the handle is returned."""
        caller = self.server.caller_from(ctx)
        request = ctx.request
        task = self.store.create(caller.identity, name)

        async def call() -> dict[str, Any]:
            return await self.server.task_call(name, arguments, caller, request)

        self.runner.start(task, call, self.server.declined_answer)
        return task

    async def on_modern_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if not (modern(ctx) and runs_as_task(params.name) and declares_tasks(ctx)):
            return await call_next(ctx)
        try:
            task = await self.create(ctx, params.name, params.arguments or {})
        except RpaError:  # no task (a refused caller, too many tasks): the call answers for itself
            return await call_next(ctx)
        return {"resultType": "task", **detailed(task)}

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """2025-11-25: a `tools/call` asking for a task (its `task` field) gets one, for the tools that run as tasks."""
        params = ctx.params or {}
        if ctx.method != "tools/call" or modern(ctx) or not isinstance(params.get("task"), dict):
            return await call_next(ctx)
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not (isinstance(name, str) and isinstance(arguments, dict) and runs_as_task(name)):
            return await call_next(ctx)
        try:
            task = await self.create(ctx, name, arguments)
        except RpaError:
            return await call_next(ctx)
        session = ctx.session
        # a notification type the SDK's session does not list (tasks left its core surface); sent as is
        task.watchers.append(lambda t: session.send_notification(status_notification(t)))  # type: ignore[arg-type]
        return {"task": legacy(task), "_meta": {RELATED_TASK_KEY: {"taskId": task.task_id}}}

    # --- the tasks/* methods ----------------------------------------------------------------------
    def _task(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> Task:
        if modern(ctx) and not declares_tasks(ctx):
            raise MCPError(
                MISSING_CAPABILITY,
                "Missing required client capability",
                {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
            )
        task = self.store.get(task_id, self._caller(ctx).identity)
        if task is None:
            raise MCPError(INVALID_PARAMS, f"Failed to retrieve task: no task {task_id!r} (unknown or expired)")
        return task

    def _caller(self, ctx: ServerRequestContext[Any, Any]) -> Caller:
        try:
            return self.server.caller_from(ctx)
        except RpaError as exc:
            raise MCPError(INVALID_PARAMS, f"[{exc.code}] {exc.message}") from exc

    async def get(self, ctx: ServerRequestContext[Any, Any], params: GetTaskRequestParams) -> dict[str, Any]:
        task = self._task(ctx, params.task_id)
        return detailed(task) if modern(ctx) else legacy(task)

    async def update(self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskParams) -> dict[str, Any]:
        only_modern(ctx)
        task = self._task(ctx, params.task_id)
        approval = task.approval
        answer = params.input_responses.get(approval.key) if approval is not None else None
        if isinstance(answer, dict) and answer.get("action") in ("decline", "cancel"):
            self.runner.cancel(task, declined=True)  # the person will not open the page: approval-pending
        return {}  # "accept" only says the link was shown; the approval on the page is the gate

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: CancelTaskRequestParams) -> dict[str, Any]:
        task = self._task(ctx, params.task_id)
        if not modern(ctx) and task.terminal:
            raise MCPError(INVALID_PARAMS, f"task {task.task_id!r} has already ended ({task.status})")
        self.runner.cancel(task)
        return {} if modern(ctx) else legacy(task)

    async def result(self, ctx: ServerRequestContext[Any, Any], params: GetTaskPayloadRequestParams) -> dict[str, Any]:
        """2025-11-25: the tool's result once the task has ended (the request waits for it)."""
        only_legacy(ctx)
        task = self._task(ctx, params.task_id)
        await self._show_approvals_until_done(ctx, task)
        if task.status == "failed" and task.error is not None:
            raise MCPError(task.error["code"], task.error["message"])
        if task.status == "cancelled" or task.result is None:
            raise MCPError(INVALID_PARAMS, f"task {task.task_id!r} was cancelled: it has no result")
        meta = {**(task.result.get("_meta") or {}), RELATED_TASK_KEY: {"taskId": task.task_id}}
        return {**task.result, "_meta": meta}

    async def _show_approvals_until_done(self, ctx: ServerRequestContext[Any, Any], task: Task) -> None:
        """2025-11-25: while the client waits for the result, the approval page a task waits for is shown
        through the client (URL elicitation tied to this request), once; "decline" ends the wait."""
        changed = asyncio.Event()

        async def heard(_: Task) -> None:
            changed.set()

        task.watchers.append(heard)
        shown: set[str] = set()
        try:
            while not task.done.is_set():
                approval = task.approval
                if approval is not None and approval.key not in shown and can_show_url(ctx):
                    shown.add(approval.key)
                    answer = await ctx.session.elicit_url(
                        APPROVAL_MESSAGE, approval.url, approval.request_id, related_request_id=ctx.request_id
                    )
                    if answer.action != "accept":  # never consent either way: the page is the gate
                        self.runner.cancel(task, declined=True)
                    continue
                await changed.wait()
                changed.clear()
        finally:
            task.watchers.remove(heard)

    async def listed(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> dict[str, Any]:
        only_legacy(ctx)
        return {"tasks": [legacy(t) for t in self.store.of(self._caller(ctx).identity)]}

    def methods(self) -> list[tuple[str, Any, Callable[..., Awaitable[Any]]]]:
        """(method, params model, handler) of every `tasks/*` method, for the low-level server."""
        return [
            ("tasks/get", GetTaskRequestParams, self.get),
            ("tasks/update", UpdateTaskParams, self.update),
            ("tasks/cancel", CancelTaskRequestParams, self.cancel),
            ("tasks/result", GetTaskPayloadRequestParams, self.result),
            ("tasks/list", PaginatedRequestParams, self.listed),
        ]


def can_show_url(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether a 2025-11-25 client declared URL elicitation and this request can carry one."""
    capabilities = getattr(ctx.session, "client_capabilities", None)
    elicitation = capabilities.elicitation if capabilities is not None else None
    return bool(elicitation is not None and elicitation.url is not None and ctx.session.can_send_request)


def only_modern(ctx: ServerRequestContext[Any, Any]) -> None:
    if not modern(ctx):
        raise MCPError(METHOD_NOT_FOUND, "Method not found", ctx.method)


def only_legacy(ctx: ServerRequestContext[Any, Any]) -> None:
    if modern(ctx):
        raise MCPError(METHOD_NOT_FOUND, "Method not found", ctx.method)


def status_notification(task: Task) -> TaskStatusNotification:
    return TaskStatusNotification(params=TaskStatusNotificationParams.model_validate(legacy(task)))


class TasksExtension(Extension):
    """The Tasks extension as the SDK applies it: advertised, and wrapping `tools/call` (2026-07-28)."""

    identifier = TASKS_EXTENSION

    def __init__(self) -> None:
        self.tasks: McpTasks | None = None  # bound once the server exists

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if self.tasks is None:
            return await call_next(ctx)
        return await self.tasks.on_modern_call(params, ctx, call_next)
