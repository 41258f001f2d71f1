"""A scripted fake LLM for agent-loop tests, and a checker of tool-calling protocol validity."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rpa_mcp.agent_loop import LlmTurn, ToolCall

Step = LlmTurn | Callable[[list[dict[str, Any]]], LlmTurn]


class ScriptedLlm:
    """Plays its turns in order; a turn may be a function of the messages (to read a token back)."""

    def __init__(self, *turns: Step) -> None:
        self.turns = list(turns)
        self.seen: list[list[dict[str, Any]]] = []
        self.tools: list[dict[str, Any]] = []

    async def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> LlmTurn:
        self.seen.append(messages)
        self.tools = tools
        if not self.turns:
            return LlmTurn(final_text="(script ended)")
        turn = self.turns.pop(0)
        return turn(messages) if callable(turn) else turn


def calls(*specs: tuple[str, dict[str, Any]], prefix: str = "c") -> LlmTurn:
    return LlmTurn(tool_calls=[ToolCall(f"{prefix}{i}", name, args) for i, (name, args) in enumerate(specs, 1)])


def last_result(messages: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The latest tool result of a call to `name` in the history."""
    names = {}
    for m in messages:
        for c in m.get("tool_calls") or []:
            names[c["id"]] = c["function"]["name"]
    for m in reversed(messages):
        if m["role"] == "tool" and names.get(m["tool_call_id"]) == name:
            result: dict[str, Any] = json.loads(m["content"])
            return result
    raise AssertionError(f"no result of {name} in the history")


def assert_protocol_valid(messages: list[dict[str, Any]]) -> None:
    """Every tool call id gets exactly one tool result, right after its assistant message."""
    i = 0
    while i < len(messages):
        m = messages[i]
        if m["role"] == "assistant" and m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            following = messages[i + 1 : i + 1 + len(ids)]
            assert [f.get("tool_call_id") for f in following] == ids, (ids, following)
            i += 1 + len(ids)
        else:
            assert m["role"] != "tool", f"orphan tool message {m}"
            i += 1
