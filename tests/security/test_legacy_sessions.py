"""One identity cannot use up legacy (2025-11-25) MCP sessions: it is capped, its oldest evicted."""

from __future__ import annotations

import pytest

from tests.conftest import token_for
from tests.security.conftest import client_for, make_services

pytestmark = pytest.mark.anyio
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


async def open_session(client, token: str) -> tuple[int, str | None]:
    r = await client.post("/mcp", json=INITIALIZE, headers={**ACCEPT, "authorization": f"Bearer {token}"})
    return r.status_code, r.headers.get("mcp-session-id")


async def ping(client, token: str, session_id: str) -> int:
    headers = {**ACCEPT, "authorization": f"Bearer {token}", "mcp-session-id": session_id}
    headers["mcp-protocol-version"] = "2025-11-25"
    return (await client.post("/mcp", json=PING, headers=headers)).status_code


async def test_one_identity_keeps_at_most_its_quota_and_others_still_get_sessions(tmp_path):
    services = make_services(tmp_path, mcp_sessions_per_identity=3, mcp_max_sessions=6)
    flood, alice = token_for(services, "flooder", "viewer"), token_for(services, "alice", "operator")
    async with client_for(services, None) as client:
        before = [await open_session(client, alice)]
        flooded = [await open_session(client, flood) for _ in range(40)]
        after = [await open_session(client, alice) for _ in range(2)]
        assert all(status == 200 and sid for status, sid in flooded + before + after)
        live_flood = [sid for _, sid in flooded if await ping(client, flood, sid) == 200]
        alice_live = [await ping(client, alice, sid) for _, sid in before + after]
    assert live_flood == [sid for _, sid in flooded[-3:]]  # only its three newest survive
    assert alice_live == [200, 200, 200]  # never evicted by someone else's flood


async def test_the_global_cap_still_holds_across_identities(tmp_path):
    services = make_services(tmp_path, mcp_sessions_per_identity=2, mcp_max_sessions=3)
    tokens = [token_for(services, f"user{i}", "viewer") for i in range(3)]
    async with client_for(services, None) as client:
        opened = [await open_session(client, tokens[0]), await open_session(client, tokens[1])]
        opened.append(await open_session(client, tokens[1]))
        full = await open_session(client, tokens[2])
        own = await open_session(client, tokens[1])  # its own oldest makes room
    assert [status for status, _ in opened] == [200, 200, 200]
    assert full[0] == 503
    assert own[0] == 200


async def test_a_session_is_bound_to_the_identity_that_opened_it(tmp_path):
    services = make_services(tmp_path)
    alice, mallory = token_for(services, "alice", "operator"), token_for(services, "mallory", "operator")
    async with client_for(services, None) as client:
        status, sid = await open_session(client, alice)
        assert status == 200 and sid
        assert await ping(client, alice, sid) == 200
        assert await ping(client, mallory, sid) == 404  # as if it did not exist
