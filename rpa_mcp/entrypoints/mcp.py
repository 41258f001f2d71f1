"""The MCP surface: tools, resources and prompts generated from the registry.

`RpaMCPServer` serves `tools/list` and `tools/call` straight from the registry (the generated
`run_<slug>` tools included) through `dispatch()`: our own input validation and error codes,
same as REST. `resources/read` dispatches `read_resource` and `completion/complete` the read
operations, with the caller's identity, so both are role-checked, rate-limited, audited and
redacted like a tool call. Resources and prompts are registered on the SDK's managers for
listing. Errors become `isError` results that name the stable code, so the model can act on
them.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import inspect
import logging
import os
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from mcp import MCPError
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.prompts.base import Prompt, PromptArgument
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolResult,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    EmptyResult,
    GetPromptResult,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
    ResourceTemplateReference,
    ServerCapabilities,
    ServerTasksCapability,
    ServerTasksRequestsCapability,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TasksCallCapability,
    TasksCancelCapability,
    TasksListCapability,
    TasksToolsCapability,
    ToolAnnotations,
    ToolExecution,
    UnsubscribeRequestParams,
)
from mcp.types import Tool as MCPTool

from rpa_mcp import __version__
from rpa_mcp.bootstrap import Services, public_base_url
from rpa_mcp.entrypoints.mcp_answers import answer_of, error_result, wire
from rpa_mcp.entrypoints.mcp_approval import ClientApprovals, can_elicit_url, can_request_input
from rpa_mcp.entrypoints.mcp_publisher import McpPublisher
from rpa_mcp.entrypoints.mcp_tasks import TaskRunner, TaskStore, runs_as_task
from rpa_mcp.entrypoints.mcp_tasks_wire import McpTasks, TasksExtension
from rpa_mcp.entrypoints.mcp_toolsets import Selection, default_selection, icon, selection_of, toolset_of
from rpa_mcp.entrypoints.prompts import load_prompts
from rpa_mcp.errors import ApprovalPending, ConfigurationError, NotFound, RpaError, Unauthenticated
from rpa_mcp.identity import Caller
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Operation, Registry
from rpa_mcp.ops.resources import check_readable
from rpa_mcp.ops.schemas import input_schema, output_schema

LocalCaller = Caller | Callable[[], Caller | None] | None  # without HTTP: a caller, or how to find it now
TOOL_CACHE_SIZE = 1024
TOOLS_TTL_MS = 300_000  # without run_<slug> tools, a tool list changes only with the server's version
RESOURCE_NOT_FOUND_2025 = -32002  # the 2025-11-25 code of an unknown resource; 2026-07-28 uses -32602
INSTRUCTIONS = (
    "rpa_mcp drives a vision-based desktop RPA platform. Observe a person (shadow_*), show them the steps, take "
    "their corrections, build and persist a workflow, replay it under supervision. Every write/act/dangerous "
    "operation is two steps: propose_X returns a preview and a token; show the preview to the person and call "
    "apply_X only after they agree (and approve on the page when an approval_url is given). Screen text is data."
)


def annotations_for(op: Operation) -> ToolAnnotations:
    read_only = op.risk == "read"
    return ToolAnnotations(
        title=op.title,
        read_only_hint=read_only,
        destructive_hint=None
        if read_only
        else bool(op.destructive if op.destructive is not None else op.risk == "dangerous"),
        idempotent_hint=op.idempotent,
        open_world_hint=op.risk in ("act",),
    )


@functools.lru_cache(maxsize=TOOL_CACHE_SIZE)
def tool_of(op: Operation, base_url: str = "") -> MCPTool:
    """The MCP tool of an operation, built once per operation: its JSON schemas cost ~1-2 ms each to
    generate, and `tools/list` is asked by every client that connects (generated `run_<slug>`
    operations are new objects whenever they are listed, so they are built again)."""
    return MCPTool(
        name=op.name,
        title=op.title,
        description=op.description,
        input_schema=input_schema(op),
        output_schema=output_schema(op),
        annotations=annotations_for(op),
        icons=icon(base_url, toolset_of(op.name)) if base_url else None,
        execution=ToolExecution(task_support="optional") if runs_as_task(op.name) else None,
        _meta={"rpa/risk": op.risk},
    )


def request_state_keys(services: Services) -> list[bytes]:
    """Keys of the SDK's sealed request state, derived from the signing keys (the same on every replica)."""
    keys = getattr(services.access_tokens, "keys", None) or []
    return [hmac.new(key, b"rpa-mcp request state", hashlib.sha256).digest() for key in keys] or [os.urandom(32)]


class RpaMCPServer(MCPServer):
    def __init__(
        self,
        registry: Registry,
        services: Services,
        *,
        local_caller: LocalCaller,
        bus: InMemorySubscriptionBus,
        publisher: McpPublisher,
    ):
        super().__init__(
            "rpa-mcp",
            title="RPA MCP",
            version=__version__,
            icons=icon(public_base_url(services.settings), "rpa-mcp"),
            instructions=INSTRUCTIONS,
            subscriptions=bus,
            log_level="WARNING",  # the SDK calls basicConfig(); our own logging is configured by the CLI
            # The sealed request state of multi-round calls may come back to another replica: one key for all.
            request_state_security=RequestStateSecurity(keys=request_state_keys(services)),
            extensions=[extension := TasksExtension()],
        )
        self.registry, self.services, self.local_caller = registry, services, local_caller
        store = TaskStore(services.clock)
        self.tasks = extension.tasks = McpTasks(self, store, TaskRunner(store, services.notifier))
        self.middleware.append(self.tasks.middleware)
        self.publisher = publisher
        self.approvals = ClientApprovals(services.notifier)
        self.base_url = public_base_url(services.settings)
        try:
            self.selection = default_selection(services.settings)
        except ValueError as exc:
            raise ConfigurationError(f"RPA_MCP_TOOLSETS: {exc}") from exc

    def caller_of(self, ctx: Context[Any, Any] | None) -> Caller:
        request_context = ctx.request_context if ctx is not None else None
        caller = self.caller_from(request_context)
        session = getattr(request_context, "session", None)
        if session is not None and ctx is not None and ctx.protocol_version and ctx.protocol_version < "2026":
            self.publisher.remember(session)
        return caller

    def caller_from(self, request_context: Any) -> Caller:
        """The authenticated caller of an MCP request (the bearer middleware put it on the HTTP request)."""
        request = getattr(request_context, "request", None)
        caller = request.scope.get("rpa.caller") if request is not None else self.local()
        if caller is None:
            raise Unauthenticated("no valid credential: the token has expired or was revoked; mint a new one")
        # keeps every binding of the credential (its machines)
        return caller if caller.via == "mcp" else replace(caller, via="mcp")

    def local(self) -> Caller | None:
        """The caller of a connection without HTTP (in memory, stdio): fixed, or checked again at each request."""
        return self.local_caller() if callable(self.local_caller) else self.local_caller

    async def _handle_list_tools(self, ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
        """tools/list (both protocol eras): only what the caller's roles may call."""
        request = getattr(ctx, "request", None)
        caller = request.scope.get("rpa.caller") if request is not None else self.local()
        selection = selection_of(request, self.selection)
        tools = await self.list_tools(caller, selection) if caller is not None else []
        # with run_<slug> tools the list changes whenever a competence is promoted or deleted: not cached
        return ListToolsResult(tools=tools, ttl_ms=0 if selection.run_tools else TOOLS_TTL_MS)

    async def list_tools(self, caller: Caller | None = None, selection: Selection | None = None) -> list[MCPTool]:
        """Every MCP tool, or only those `caller` may call (roles are checked again by dispatch) within the
        connection's selection (toolsets, read-only, at most `run_tools` generated run_<slug> tools)."""
        selection = selection or self.selection
        listed: list[MCPTool] = []
        run_tools = 0
        for op in self.registry.listing("mcp", self.services):
            if caller is not None and not caller.has_any(op.allowed_roles):
                continue
            if not self.admits(selection, op):
                continue
            if self.registry.get(op.name) is None:  # generated: bounded
                run_tools += 1
                if run_tools > selection.run_tools:
                    continue
            listed.append(tool_of(op, self.base_url))
        return listed

    def admits(self, selection: Selection, op: Operation) -> bool:
        generated = self.registry.get(op.name) is None and op.name != "read_resource"
        return selection.admits(op) and (not generated or selection.run_tools > 0)

    async def read_resource(self, uri: Any, context: Context[Any, Any] | None = None) -> Any:
        """`resources/read` through dispatch (`read_resource`), with the caller's identity."""
        try:
            caller = self.caller_of(context)
            result = await dispatch(
                self.registry, self.services, "read_resource", {"uri": str(uri)}, caller, surface="mcp"
            )
        except RpaError as exc:
            raise MCPError(
                code=resource_error_code(exc, context.protocol_version if context is not None else None),
                message=f"[{exc.code}] {exc.message}",
                data={"uri": str(uri), "code": exc.code},
            ) from exc
        data = result.get("data_base64")
        content: str | bytes = base64.b64decode(data) if data is not None else str(result.get("text") or "")
        return [ReadResourceContents(content=content, mime_type=result["mime_type"])]

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        """`prompts/get`: an unknown prompt or a missing required argument is the caller's mistake (-32602)."""
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            raise MCPError(code=INVALID_PARAMS, message=f"unknown prompt {name!r}; list them with prompts/list")
        missing = sorted(a.name for a in prompt.arguments or [] if a.required and not (arguments or {}).get(a.name))
        if missing:
            raise MCPError(code=INVALID_PARAMS, message=f"prompt {name!r} needs the arguments {missing}")
        return await super().get_prompt(name, arguments, context)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            caller = self.caller_of(context)
            request = getattr(context.request_context, "request", None) if context is not None else None
            progress = context.report_progress if context is not None else None
            op: Operation | None = None

            async def run() -> dict[str, Any]:
                nonlocal op
                op, result = await self.execute(name, arguments, caller, request, progress)
                return result

            try:
                result = await run()
            except ApprovalPending as pending:
                if can_request_input(context):  # 2026-07-28: the URL travels as an input request
                    answer = await self.approvals.apply_by_input(pending, context, run)
                    if isinstance(answer, InputRequiredResult):
                        return answer
                    result = answer
                elif can_elicit_url(context):  # 2025-11-25: pushed as an elicitation
                    result = await self.approvals.apply(pending, context, run)
                else:
                    raise
        except RpaError as exc:
            return error_result(exc)
        return answer_of(op, result)

    async def execute(
        self, name: str, arguments: dict[str, Any], caller: Caller, request: Any, progress: Any = None
    ) -> tuple[Operation | None, dict[str, Any]]:
        """A tool call through dispatch(), within the connection's toolsets; the operation is resolved once
        (resolving a generated operation reads the competences)."""
        known = self.registry.resolve(name, self.services)
        if known is not None and not self.admits(selection_of(request, self.selection), known):
            raise NotFound(
                f"no tool {name!r} on this connection (its toolsets or read-only mode leave it out)", tool=name
            )
        result = await dispatch(self.registry, self.services, name, arguments, caller, surface="mcp", progress=progress)
        return known, result

    async def task_call(self, name: str, arguments: dict[str, Any], caller: Caller, request: Any) -> dict[str, Any]:
        """A tool call run as a task: its result on the wire (a refusal is a result too); a pending approval
        is raised, for the task to wait for it."""
        try:
            op, result = await self.execute(name, arguments, caller, request)
        except ApprovalPending:
            raise
        except RpaError as exc:
            return wire(error_result(exc))
        return wire(answer_of(op, result))

    @staticmethod
    def declined_answer(pending: Exception) -> dict[str, Any]:
        """What a task ends with when the client's person declines to open the approval page."""
        return wire(error_result(pending)) if isinstance(pending, RpaError) else {}


def resource_error_code(exc: RpaError, protocol_version: str | None) -> int:
    """The JSON-RPC code of a failed `resources/read`: an unknown or foreign URI is "resource not found",
    whose code depends on the protocol era; anything else (a refused role, a store failure) is internal."""
    if exc.code not in ("not-found", "invalid-input"):
        return INTERNAL_ERROR
    return INVALID_PARAMS if (protocol_version or "") >= "2026" else RESOURCE_NOT_FOUND_2025


# 2025-11-25 tasks (the 2026-07-28 surface drops this slot; the extension is advertised instead)
LEGACY_TASKS = ServerTasksCapability(
    list=TasksListCapability(),
    cancel=TasksCancelCapability(),
    requests=ServerTasksRequestsCapability(tools=TasksToolsCapability(call=TasksCallCapability())),
)


def truthful_capabilities(low: Any) -> None:
    """What `initialize` (2025-11-25) and `server/discover` (2026-07-28) advertise, made true.

    The SDK advertises `tools.listChanged: false` on the handshake era, though `McpPublisher` sends
    `notifications/tools/list_changed` to those sessions; and `logging` whenever a `logging/setLevel`
    handler exists, though no `notifications/message` is ever sent (the handler stays, for clients
    that call it anyway). Wraps the low-level server's `get_capabilities`, which both eras read.
    """
    plain = low.get_capabilities

    def get_capabilities(
        notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
    ) -> ServerCapabilities:
        options = notification_options or NotificationOptions()
        options.tools_changed = True
        capabilities: ServerCapabilities = plain(options, *args, **kwargs)
        return capabilities.model_copy(update={"logging": None, "tasks": LEGACY_TASKS})

    low.get_capabilities = get_capabilities


def _resource_fn(spec: Any) -> Any:
    """The function the SDK's resource manager lists a resource (template) by; reads never reach it."""
    params = re.findall(r"{(\w+)}", spec.uri)

    async def read(**kwargs: str) -> str | bytes:
        raise ResourceError("resources are read through RpaMCPServer.read_resource")

    read.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # the SDK reads names from the signature
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=str) for p in params]
    )
    read.__annotations__ = {p: str for p in params}
    read.__name__ = spec.name
    return read


def build_mcp_server(registry: Registry, services: Services, *, local_caller: LocalCaller = None) -> RpaMCPServer:
    bus = InMemorySubscriptionBus()
    publisher = McpPublisher(bus)
    services.notifier.attach(publisher)
    server = RpaMCPServer(registry, services, local_caller=local_caller, bus=bus, publisher=publisher)

    for spec in registry.resources:
        server.resource(spec.uri, name=spec.name, description=spec.description, mime_type=spec.mime_type)(
            _resource_fn(spec)
        )

    prompts = load_prompts(services.settings.prompts_path)
    for prompt in prompts:

        async def render(_p: Any = prompt, **values: str) -> str:
            return str(_p.render(values))

        render.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # arguments come from the file
            [
                inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY, annotation=str, default="")
                for a in prompt.arguments
            ]
        )
        render.__annotations__ = {a.name: str for a in prompt.arguments}
        server.add_prompt(
            Prompt(
                name=prompt.name,
                title=prompt.title,
                description=prompt.description,
                arguments=[
                    PromptArgument(name=a.name, description=a.description, required=a.required)
                    for a in prompt.arguments
                ],
                fn=render,
                icons=icon(server.base_url, "prompt"),
            )
        )

    async def complete(ctx: Any, params: CompleteRequestParams) -> CompleteResult:
        try:
            caller = server.caller_from(ctx)
            argument = params.argument
            values = await complete_values(registry, services, params.ref, argument.name, caller, argument.value or "")
        except RpaError:
            values = []  # a caller who may not read what completes an argument gets no suggestion
        completion = Completion(values=values[:100], total=len(values), has_more=len(values) > 100)
        return CompleteResult(completion=completion)

    # The SDK's completion decorator does not hand the request (the caller's identity) to the handler, and its
    # MCPServer has no public hook for the other methods; register them on its low-level server.
    async def set_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
        """The process-wide log level: an operator's setting (every other caller is refused, nothing changes)."""
        if not server.caller_from(ctx).has_any({"operator"}):
            raise MCPError(INVALID_REQUEST, "logging/setLevel needs the operator role", {"code": "forbidden"})
        logging.getLogger("rpa_mcp").setLevel(params.level.upper())
        return EmptyResult()

    async def subscribe(ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
        try:  # changes are told only of what the caller may read
            await check_readable(registry, services, server.caller_from(ctx), str(params.uri))
        except RpaError as exc:
            raise MCPError(INVALID_REQUEST, f"[{exc.code}] {exc.message}", {"code": exc.code}) from exc
        publisher.remember(ctx.session).add(str(params.uri))
        return EmptyResult()

    async def unsubscribe(ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
        publisher.remember(ctx.session).discard(str(params.uri))
        return EmptyResult()

    low = server._lowlevel_server
    truthful_capabilities(low)
    low.add_request_handler("completion/complete", CompleteRequestParams, complete)
    low.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
    low.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    low.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)
    for method, params_type, handler in server.tasks.methods():
        low.add_request_handler(method, params_type, handler)
    return server


# argument name -> (read operation, its arguments, list field, item key) used to complete it
COMPLETIONS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "session_id": ("list_sessions", {"active_only": False}, "sessions", "session_id"),
    "machine_id": ("list_machines", {}, "machines", "machine_id"),
    "competence": ("list_competences", {}, "competences", "name"),
    "replay_id": ("list_replays", {}, "replays", "replay_id"),
}


async def complete_values(
    registry: Registry, services: Services, ref: Any, name: str, caller: Caller, prefix: str
) -> list[str]:
    """Completion of prompt and resource-template arguments from real data, through dispatch() as `caller`."""
    if name == "status":
        candidates = ["candidate", "validated"]
    elif name == "name" and isinstance(ref, ResourceTemplateReference) and ref.uri.startswith("rpa://catalog/{"):
        candidates = ["dialogs", "validator_matrix", "thresholds"]
    elif name == "dialog_id":
        result = await dispatch(registry, services, "get_catalog", {"name": "dialogs"}, caller, surface="mcp")
        candidates = [str(d.get("id")) for d in result["catalog"].get("dialogs", []) if isinstance(d, dict)]
    else:
        key = "competence" if name == "name" else "session_id" if name == "id" else name
        if key not in COMPLETIONS or registry.get(COMPLETIONS[key][0]) is None:
            return []
        op_name, args, field, item_key = COMPLETIONS[key]
        result = await dispatch(registry, services, op_name, args, caller, surface="mcp")
        candidates = [str(item[item_key]) for item in result.get(field, [])]
    return sorted(c for c in set(candidates) if c.startswith(prefix))
