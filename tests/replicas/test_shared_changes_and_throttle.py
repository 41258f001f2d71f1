"""What one replica changes is told on the others at once, and failed sign-ins share one budget.

Three real `rpa-mcp serve` processes on one PostgreSQL database: an MCP client subscribed on
replica B hears a change made through replica A; a console page open on B is pushed it before
its first keep-alive (the re-read it would otherwise wait for); failures from one address spread
over the three replicas meet one budget, and a valid token still passes everywhere.
"""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.replay import model as m
from tests.replicas.conftest import AGENT, LOCKOUT_FAILURES, Cluster, Replica
from tests.replicas.test_three_replicas import Side
from tests.subscriptions import updates_until

pytestmark = pytest.mark.anyio
CALL = "/api/v1/tools/get_catalog"


async def test_an_mcp_client_subscribed_on_one_replica_hears_a_change_made_through_another(cluster: Cluster) -> None:
    a, b = cluster.replicas[0], cluster.replicas[1]
    side = Side(cluster, a)
    replay_id = await side.start()
    uri = f"rpa://replays/{replay_id}"
    http = cluster.client(headers={"Authorization": f"Bearer {cluster.operator_token()}"})
    async with Client(streamable_http_client(f"{b.base}/mcp", http_client=http)) as client:
        async with client.listen(resource_subscriptions=[uri]) as sub:
            await side.call("pause_replay", {"replay_id": replay_id})  # through replica A
            heard = await updates_until(sub, uri, timeout_s=60)
        assert heard and heard[-1] == uri  # the stream ended on the update, not by running dry
        status = json.loads((await client.read_resource(uri)).contents[0].text)
    assert status["state"] == m.PAUSED  # told once committed: replica B reads the new state


async def test_a_console_page_on_one_replica_is_pushed_a_change_made_on_another(cluster: Cluster) -> None:
    a, b = cluster.replicas[0], cluster.replicas[2]
    side = Side(cluster, a)
    replay_id = await side.start()
    web = cluster.client(base_url=b.base)
    await _sign_in(web, b, cluster.console_credential())
    before_keepalive: list[str] = []
    async with web.stream("GET", f"/console/live/replays/{replay_id}") as stream:
        assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.aiter_lines()
        assert (await anext(lines)).startswith("retry:")  # the stream watches the replay from here on
        await side.call("pause_replay", {"replay_id": replay_id})  # through replica A
        patch: list[dict[str, str]] = []
        with anyio.fail_after(60):
            async for line in lines:
                before_keepalive.append(line)
                if line.startswith(": keepalive"):
                    break  # the periodic re-read: too late, the change was not pushed
                if line.startswith("data: "):
                    patch = json.loads(line[6:])
                    if any("state-paused" in p["html"] for p in patch):
                        break
    assert not any(line.startswith(": keepalive") for line in before_keepalive), before_keepalive
    assert any(p["id"] == "replay-head" and "state-paused" in p["html"] for p in patch)


async def test_failed_sign_ins_from_one_address_over_three_replicas_meet_one_budget(cluster: Cluster) -> None:
    replicas = cluster.replicas
    bad = {"Authorization": "Bearer not-a-token"}
    statuses: list[int] = []
    for i in range(LOCKOUT_FAILURES - 1):  # round robin: each replica sees a third of them
        async with httpx2.AsyncClient(base_url=replicas[i % 3].base, timeout=60) as http:
            statuses.append((await http.post(CALL, json={"name": "dialogs"}, headers=bad)).status_code)
    console = cluster.client(base_url=replicas[2].base)
    statuses.append(await _console_sign_in_status(console, replicas[2], "also-not-a-token"))  # the same budget
    assert statuses == [401] * LOCKOUT_FAILURES
    over, valid = [], []
    operator = {"Authorization": f"Bearer {cluster.operator_token()}"}
    for replica in replicas:  # each replica alone has seen at most a third of the budget, yet refuses
        async with httpx2.AsyncClient(base_url=replica.base, timeout=60) as http:
            refused = await http.post(CALL, json={"name": "dialogs"}, headers=bad)
            over.append((refused.status_code, int(refused.headers.get("retry-after", "0")) >= 1))
            for good in ({"Authorization": f"Bearer {AGENT}"}, operator):  # the same address, a valid token
                valid.append((await http.post(CALL, json={"name": "dialogs"}, headers=good)).status_code)
    assert over == [(429, True)] * 3
    assert valid == [200] * 6
    assert await _console_sign_in_status(console, replicas[2], "still-not-a-token") == 429
    assert await _console_sign_in_status(console, replicas[2], cluster.console_credential()) == 303  # never locked out


async def _console_sign_in_status(web: httpx2.AsyncClient, replica: Replica, token: str) -> int:
    page = await web.get("/console/login")
    nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
    assert nonce is not None, page.text
    answer = await web.post(
        "/console/login", data={"token": token, "login_csrf": nonce[1]}, headers={"origin": replica.base}
    )
    return answer.status_code


async def _sign_in(web: httpx2.AsyncClient, replica: Replica, token: str) -> Any:
    assert await _console_sign_in_status(web, replica, token) == 303
