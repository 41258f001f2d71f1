"""The JSON schemas an operation publishes (MCP tools, function calling): lean, from its pydantic models."""

from __future__ import annotations

from typing import Any

from rpa_mcp.ops.registry import Operation


def input_schema(op: Operation) -> dict[str, Any]:
    """The arguments' schema, descriptions kept (they tell a model how to fill the arguments in)."""
    schema: dict[str, Any] = lean_schema(op.input.model_json_schema(by_alias=True), keep_descriptions=True)
    return schema


def output_schema(op: Operation) -> dict[str, Any]:
    """The result's schema, without descriptions: a model reads a result, it does not fill it in."""
    raw = op.output.model_json_schema(by_alias=True, mode="serialization")
    schema: dict[str, Any] = lean_schema(raw, keep_descriptions=False)
    return schema


def lean_schema(schema: Any, *, keep_descriptions: bool, in_properties: bool = False) -> Any:
    """A JSON schema without `title`s (pydantic's titles repeat the field names) and, unless kept, without
    `description`s: tool lists are sent to every client and read by its model. `$defs` stay shared within
    the schema; property and definition names are never touched."""
    if isinstance(schema, list):
        return [lean_schema(item, keep_descriptions=keep_descriptions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    drop = set() if in_properties else {"title"} | (set() if keep_descriptions else {"description"})
    return {
        key: lean_schema(value, keep_descriptions=keep_descriptions, in_properties=key in ("properties", "$defs"))
        for key, value in schema.items()
        if key not in drop
    }
