"""Thin surfaces generated from the registry: MCP, REST, function calling (the console lives in rpa_mcp/console)."""
