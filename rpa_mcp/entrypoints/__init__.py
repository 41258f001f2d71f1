"""Thin surfaces generated from the registry: MCP, REST, function calling, the approval web page."""
