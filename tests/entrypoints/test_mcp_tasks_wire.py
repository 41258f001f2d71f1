"""A task as each protocol version writes it."""

from __future__ import annotations

from rpa_mcp.entrypoints.mcp_tasks import Task
from rpa_mcp.entrypoints.mcp_tasks_wire import POLL_INTERVAL_MS, detailed, legacy
from rpa_mcp.identity import Identity


def ended() -> Task:
    owner = Identity("rpa-mcp", "alice")
    return Task("t1", owner, "get_replay_status", 1.0, ttl_ms=5000, status="completed", message="done", result={})


def test_the_2025_wire_names_ttl_and_poll_interval_without_units() -> None:
    body = legacy(ended())
    assert (body["ttl"], body["pollInterval"], body["statusMessage"]) == (5000, POLL_INTERVAL_MS, "done")
    assert "result" not in body and "ttlMs" not in body


def test_the_2026_wire_names_them_in_ms_and_carries_the_result() -> None:
    body = detailed(ended())
    assert (body["ttlMs"], body["pollIntervalMs"], body["statusMessage"]) == (5000, POLL_INTERVAL_MS, "done")
    assert body["result"] == {} and "ttl" not in body
