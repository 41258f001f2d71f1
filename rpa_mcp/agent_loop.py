"""A provider-agnostic agent loop over `rpa_mcp.functions` (SPEC §8).

The model is any async callable `llm(messages, tools) -> LlmTurn`: it returns either tool
calls (`LlmTurn(tool_calls=[ToolCall(id, name, arguments)])`) or a final answer
(`LlmTurn(final_text="...")`). `messages` use the OpenAI chat format (role `system`, `user`,
`assistant` with `tool_calls`, `tool` with `tool_call_id`; arguments as JSON text), which
`OpenAICompatibleLlm` sends as is; `tools` are `functions.openai_tools()` (or
`anthropic_tools()` with `tool_format="anthropic"`).

Limits of one run (`AgentLoop.run`):
- `max_iterations` (10): model turns; then the run stops with `stopped="max_iterations"`;
- `max_tool_calls` (25): tool calls executed in the run, re-issued calls included (deferred
  placeholders are not calls). A call over the quota is not executed: it gets an error result
  `tool-quota-exceeded` and the run stops with `stopped="quota_exceeded"`;
- `max_result_bytes` (20 kB): a result whose JSON is larger is truncated by `truncate_result`:
  same keys, image data replaced by a note, long strings cut, long lists shortened, and a
  `_truncated` note at the top. The result given to the model is the truncated one.

Confirmation and the batch rule (exact semantics):
1. The calls of a turn run one by one in the model's order.
2. A call *needs the person* when its result is
   - a proposal (`propose_*` succeeded; every proposal needs the person's agreement: in chat
     for `approval_mode="token"`, on the approval page for `"human"`), or
   - the error `approval-pending` of an `apply_*` (its proposal waits for a person).
3. That call keeps its own result. The calls **before** it in the turn have already run and keep
   theirs. Every call **after** it is not executed: its result is
   `{"status": "deferred", "reason": ...}`, so each tool call id still gets exactly one result.
   At most one call per turn waits for the person at a time.
4. The loop then awaits `confirm(ConfirmationRequest)`, the application's hook that shows the
   preview (`request.summary`, `request.approval_url`) to the person and returns their answer
   (`Confirmation(approved, message)`, or a bare bool). Without a hook, nothing is ever
   confirmed: the run stops with `stopped="needs_confirmation"` (the caller resumes with
   `AgentLoop.run(messages=result.messages)` once it has an answer and a hook).
5. Approved: the loop appends a `user` message saying so, then re-issues, as one synthetic
   assistant turn with new call ids (`<id>~r<n>`), first the gated mutation — `apply_X` with
   the proposal's token (a proposal), or the same `apply_X` call again (approval was pending) —
   then the deferred calls in their original order. Their results follow as usual, and the same
   rules apply to them (a re-issued call may itself need the person).
   Declined: the loop appends a `user` message saying the person declined and that the deferred
   calls were not run; nothing is re-issued and the proposal is left to expire.
6. The model then continues from there (its next turn sees the whole history).

The loop never weakens the server's rules: the calls go through `functions.call`, so roles,
tokens, human approval records, rate limits, audit and redaction all apply; `confirm` only tells
the loop that the person has answered.
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx2

from rpa_mcp import functions
from rpa_mcp.errors import ToolQuotaExceeded, Unavailable
from rpa_mcp.functions import FunctionContext

Message = dict[str, Any]
StopReason = Literal["final", "max_iterations", "quota_exceeded", "needs_confirmation"]
DEFAULT_MAX_RESULT_BYTES = 20_000
IMAGE_KEYS = frozenset({"data_base64", "png_base64", "screenshot", "screenshot_before", "screenshot_after"})


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LlmTurn:
    tool_calls: Sequence[ToolCall] = ()
    final_text: str | None = None


Llm = Callable[[list[Message], list[dict[str, Any]]], Awaitable[LlmTurn]]


@dataclass(frozen=True)
class ConfirmationRequest:
    """What the person must answer: built from the server's proposal, never from the model's text."""

    call: ToolCall
    operation: str  # the gated operation (e.g. persist_competence)
    summary: str
    approval_mode: str  # token | human
    approval_url: str | None
    token: str | None
    deferred: tuple[ToolCall, ...]
    result: dict[str, Any]


@dataclass(frozen=True)
class Confirmation:
    approved: bool
    message: str = ""


ConfirmHook = Callable[[ConfirmationRequest], Awaitable["Confirmation | bool"]]


@dataclass
class ToolRecord:
    """One tool call of the run as the loop handled it."""

    call: ToolCall
    result: dict[str, Any]
    status: Literal["executed", "deferred", "refused"]
    reissued: bool = False


@dataclass
class RunResult:
    stopped: StopReason
    final_text: str | None
    messages: list[Message]
    records: list[ToolRecord]
    iterations: int
    tool_calls: int
    pending: ConfirmationRequest | None = None


# --- truncation -----------------------------------------------------------------------------
def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode())


def _drop_images(value: Any, key: str = "") -> tuple[Any, int]:
    if isinstance(value, dict):
        out, dropped = {}, 0
        for k, v in value.items():
            out[k], n = _drop_images(v, k)
            dropped += n
        return out, dropped
    if isinstance(value, list):
        items = [_drop_images(v, key) for v in value]
        return [i for i, _ in items], sum(n for _, n in items)
    if isinstance(value, str) and key in IMAGE_KEYS and len(value) > 256:
        return f"[image data dropped: {len(value)} base64 characters; fetch it through MCP or the REST API]", 1
    return value, 0


def _cut_strings(value: Any, limit: int) -> Any:
    if isinstance(value, dict):
        return {k: _cut_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_strings(v, limit) for v in value]
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + f"… [cut: {len(value) - limit} more characters]"
    return value


def _cut_lists(value: Any, limit: int) -> Any:
    if isinstance(value, dict):
        return {k: _cut_lists(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        kept = [_cut_lists(v, limit) for v in value[:limit]]
        if len(value) > limit:
            kept.append(f"[{len(value) - limit} more items cut]")
        return kept
    return value


def truncate_result(result: dict[str, Any], max_bytes: int = DEFAULT_MAX_RESULT_BYTES) -> dict[str, Any]:
    """The result itself when its JSON fits in `max_bytes`; else a smaller copy with the same structure."""
    if _size(result) <= max_bytes:
        return result
    original = _size(result)
    value: dict[str, Any]  # each helper below maps a dict to a dict
    value, dropped = _drop_images(copy.deepcopy(result))
    limit = 4096
    while _size(value) > max_bytes and limit >= 32:
        value = _cut_strings(value, limit)
        limit //= 2
    items = 64
    while _size(value) > max_bytes and items >= 1:
        value = _cut_lists(value, items)
        items //= 2
    note = f"result truncated from {original} bytes to fit {max_bytes}"
    if dropped:
        note += f"; {dropped} image(s) dropped"
    if isinstance(value, dict):
        value = {"_truncated": note, **value}
        if _size(value) > max_bytes:  # pathological (thousands of keys): keep the note only
            value = {"_truncated": note + "; content too large to show, ask for less"}
    return value


# --- the loop ---------------------------------------------------------------------------------
def _tool_message(call_id: str, result: dict[str, Any]) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result, ensure_ascii=False)}


def _assistant_message(calls: Sequence[ToolCall], content: str | None = None) -> Message:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in calls
        ],
    }


def _deferred(gate: ToolCall) -> dict[str, Any]:
    return {
        "status": "deferred",
        "reason": f"not run: {gate.name} (an earlier call of this turn) waits for the person's confirmation; "
        "this call is issued again automatically once they confirm, and not at all if they decline",
    }


def _needs_person(call: ToolCall, result: dict[str, Any]) -> bool:
    if call.name.startswith("propose_") and not functions.is_error(result) and result.get("token"):
        return True
    return (
        call.name.startswith("apply_") and functions.is_error(result) and result["error"]["code"] == "approval-pending"
    )


class AgentLoop:
    def __init__(
        self,
        llm: Llm,
        context: FunctionContext,
        *,
        confirm: ConfirmHook | None = None,
        max_iterations: int = 10,
        max_tool_calls: int = 25,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        tool_format: Literal["openai", "anthropic"] = "openai",
        system_prompt: str | None = None,
    ) -> None:
        self.llm, self.context, self.confirm = llm, context, confirm
        self.max_iterations, self.max_tool_calls, self.max_result_bytes = (
            max_iterations,
            max_tool_calls,
            max_result_bytes,
        )
        registry, services = context.get_registry(), context.services
        self.tools = (
            functions.openai_tools(registry, services)
            if tool_format == "openai"
            else functions.anthropic_tools(registry, services)
        )
        self.system_prompt = system_prompt

    async def run(self, user_message: str | None = None, *, messages: list[Message] | None = None) -> RunResult:
        """Start (or continue, with `messages`) a conversation until a final answer or a limit."""
        self._messages: list[Message] = list(messages or [])
        if not self._messages and self.system_prompt:
            self._messages.append({"role": "system", "content": self.system_prompt})
        if user_message is not None:
            self._messages.append({"role": "user", "content": user_message})
        self._records: list[ToolRecord] = []
        self._calls = 0
        self._reissue_seq = 0
        for iteration in range(1, self.max_iterations + 1):
            turn = await self.llm(list(self._messages), self.tools)
            if not turn.tool_calls:
                self._messages.append({"role": "assistant", "content": turn.final_text or ""})
                return self._result("final", turn.final_text, iteration)
            self._messages.append(_assistant_message(turn.tool_calls, turn.final_text))
            stop, pending = await self._run_batch(list(turn.tool_calls), reissued=False)
            if stop is not None:
                return self._result(stop, None, iteration, pending)
        return self._result("max_iterations", None, self.max_iterations)

    def _result(self, stopped: StopReason, text: str | None, iterations: int, pending: Any = None) -> RunResult:
        return RunResult(stopped, text, self._messages, self._records, iterations, self._calls, pending)

    async def _execute(self, call: ToolCall, *, reissued: bool) -> tuple[dict[str, Any], bool]:
        """Run one call (or refuse it over quota); append its tool message. Returns (result, over_quota)."""
        if self._calls >= self.max_tool_calls:
            result = functions.error_payload(
                ToolQuotaExceeded(
                    f"this run used its {self.max_tool_calls} tool calls; the call was not executed",
                    quota=self.max_tool_calls,
                )
            )
            self._records.append(ToolRecord(call, result, "refused", reissued))
            self._messages.append(_tool_message(call.id, result))
            return result, True
        self._calls += 1
        result = await functions.call(call.name, call.arguments, self.context)
        self._records.append(ToolRecord(call, result, "executed", reissued))
        self._messages.append(_tool_message(call.id, truncate_result(result, self.max_result_bytes)))
        return result, False

    async def _run_batch(self, calls: list[ToolCall], *, reissued: bool) -> tuple[StopReason | None, Any]:
        while True:
            gate: tuple[ToolCall, dict[str, Any]] | None = None
            rest: list[ToolCall] = []
            for i, call in enumerate(calls):
                result, over = await self._execute(call, reissued=reissued)
                if over:
                    for other in calls[i + 1 :]:
                        refused = functions.error_payload(
                            ToolQuotaExceeded("not executed: the run's tool quota is used")
                        )
                        self._records.append(ToolRecord(other, refused, "refused", reissued))
                        self._messages.append(_tool_message(other.id, refused))
                    return "quota_exceeded", None
                if _needs_person(call, result):
                    gate, rest = (call, result), calls[i + 1 :]
                    break
            if gate is None:
                return None, None
            call, result = gate
            for other in rest:
                placeholder = _deferred(call)
                self._records.append(ToolRecord(other, placeholder, "deferred", reissued))
                self._messages.append(_tool_message(other.id, placeholder))
            request = self._request(call, result, rest)
            if self.confirm is None:
                return "needs_confirmation", request
            answer = await self.confirm(request)
            if inspect.isawaitable(answer):  # a hook may return an awaitable of the answer
                answer = await answer
            decision = answer if isinstance(answer, Confirmation) else Confirmation(bool(answer))
            said = f" They said: {decision.message}" if decision.message else ""
            if not decision.approved:
                deferred_note = f" The {len(rest)} deferred call(s) were not run." if rest else ""
                self._messages.append(
                    {
                        "role": "user",
                        "content": f"[confirmation] The person declined: {request.summary}.{said}{deferred_note}",
                    }
                )
                return None, None
            self._messages.append(
                {"role": "user", "content": f"[confirmation] The person approved: {request.summary}.{said}"}
            )
            calls = [self._reissue(self._gated_call(call, result))] + [self._reissue(c) for c in rest]
            self._messages.append(_assistant_message(calls))
            reissued = True

    def _request(self, call: ToolCall, result: dict[str, Any], rest: list[ToolCall]) -> ConfirmationRequest:
        if functions.is_error(result):  # apply_* waiting for approval
            operation = call.name.removeprefix("apply_")
            details = result["error"].get("details", {})
            return ConfirmationRequest(
                call,
                operation,
                result["error"]["message"],
                "human",
                details.get("approval_url"),
                call.arguments.get("token"),
                tuple(rest),
                result,
            )
        return ConfirmationRequest(
            call,
            str(result.get("operation", call.name.removeprefix("propose_"))),
            str(result.get("summary", "")),
            str(result.get("approval_mode", "token")),
            result.get("approval_url"),
            result.get("token"),
            tuple(rest),
            result,
        )

    def _gated_call(self, call: ToolCall, result: dict[str, Any]) -> ToolCall:
        if call.name.startswith("propose_"):
            operation = str(result.get("operation") or call.name.removeprefix("propose_"))
            return ToolCall(call.id, f"apply_{operation}", {"token": result["token"]})
        return call

    def _reissue(self, call: ToolCall) -> ToolCall:
        self._reissue_seq += 1
        return ToolCall(f"{call.id}~r{self._reissue_seq}", call.name, dict(call.arguments))


# --- an OpenAI-compatible endpoint -------------------------------------------------------------
class OpenAICompatibleLlm:
    """`llm(messages, tools)` over `POST {base_url}/chat/completions` (OpenAI, vLLM, Ollama, LM Studio...).

    Configuration only: `base_url` (e.g. `http://127.0.0.1:11434/v1`), `model`, optional `api_key`.
    Pass `client` to reuse an `httpx2.AsyncClient` (tests give one on an in-memory ASGI app).
    A provider that refuses `tools` (HTTP 400/404/422) is asked once more without them.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        client: httpx2.AsyncClient | None = None,
        timeout_s: float = 120.0,
        temperature: float | None = 0.0,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.client, self.timeout_s, self.temperature = (
            model,
            api_key,
            client,
            timeout_s,
            temperature,
        )

    async def __call__(self, messages: list[Message], tools: list[dict[str, Any]]) -> LlmTurn:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if tools:
            body |= {"tools": tools, "tool_choice": "auto"}
        response = await self._post(body)
        if tools and response.status_code in (400, 404, 422):
            response = await self._post({k: v for k, v in body.items() if k not in ("tools", "tool_choice")})
        if response.status_code >= 400:
            raise Unavailable(
                f"the model endpoint answered HTTP {response.status_code}: {response.text[:300]}",
                status=response.status_code,
            )
        return parse_chat_completion(response.json())

    async def _post(self, body: dict[str, Any]) -> httpx2.Response:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            if self.client is not None:
                return await self.client.post(self.url, json=body, headers=headers, timeout=self.timeout_s)
            async with httpx2.AsyncClient(timeout=self.timeout_s) as client:
                return await client.post(self.url, json=body, headers=headers)
        except httpx2.TransportError as exc:
            raise Unavailable(f"the model endpoint {self.url} is unreachable: {exc}") from exc


def parse_chat_completion(data: dict[str, Any]) -> LlmTurn:
    """An OpenAI chat-completion answer as an `LlmTurn`; unparsable arguments reach the tool as text."""
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise Unavailable("the model endpoint returned no choices") from exc
    calls: list[ToolCall] = []
    for raw in message.get("tool_calls") or []:
        fn = raw.get("function") or {}
        arguments: Any = fn.get("arguments") or {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                arguments = {"(unparsable)": arguments}
        calls.append(ToolCall(str(raw.get("id") or f"call_{len(calls)}"), str(fn.get("name", "")), arguments))
    if calls:
        return LlmTurn(tool_calls=calls, final_text=message.get("content"))
    return LlmTurn(final_text=message.get("content") or "")


__all__ = [
    "AgentLoop",
    "Confirmation",
    "ConfirmationRequest",
    "LlmTurn",
    "OpenAICompatibleLlm",
    "RunResult",
    "ToolCall",
    "ToolQuotaExceeded",
    "truncate_result",
]
