"""Failed sign-ins are throttled per address; a valid credential from the same address always passes."""

from __future__ import annotations

import pytest

from rpa_mcp.auth.throttle import SignInThrottle
from rpa_mcp.testing import FakeClock
from tests.security.conftest import AGENT_TOKEN, client_for, make_services, operator

pytestmark = pytest.mark.anyio
CALL = "/api/v1/tools/get_catalog"
BODY = {"name": "dialogs"}


async def test_twenty_bad_tokens_do_not_lock_out_the_valid_users_behind_the_same_proxy(tmp_path):
    services = make_services(tmp_path, auth_lockout_failures=20)
    async with client_for(services, None) as client:  # every request comes from one address (the proxy)
        bad = [
            (await client.post(CALL, json=BODY, headers={"authorization": "Bearer guess"})).status_code
            for _ in range(25)
        ]
        valid_jwt = await client.post(CALL, json=BODY, headers={"authorization": f"Bearer {operator(services)}"})
        valid_agent = await client.post(CALL, json=BODY, headers={"authorization": f"Bearer {AGENT_TOKEN}"})
        mcp = await client.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"authorization": f"Bearer {operator(services)}", "accept": "application/json, text/event-stream"},
        )
        still_bad = await client.post(CALL, json=BODY, headers={"authorization": "Bearer guess"})
    assert bad[:20] == [401] * 20 and bad[20:] == [429] * 5
    assert valid_jwt.status_code == 200 and valid_agent.status_code == 200 and mcp.status_code != 429
    assert still_bad.status_code == 429 and int(still_bad.headers["retry-after"]) >= 1


async def test_a_request_without_credentials_is_discovery_not_a_failure(tmp_path):
    services = make_services(tmp_path, auth_lockout_failures=2)
    async with client_for(services, None) as client:
        statuses = [(await client.post(CALL, json=BODY)).status_code for _ in range(5)]
    assert statuses == [401] * 5  # each with its WWW-Authenticate challenge, never throttled


def test_the_budget_comes_back_with_time_and_addresses_are_counted_apart():
    clock = FakeClock()
    throttle = SignInThrottle(clock, failures=3, window_s=60)
    assert [throttle.failed("10.0.0.1") for _ in range(3)] == [None, None, None]
    retry = throttle.failed("10.0.0.1")
    assert retry is not None and retry == pytest.approx(20.0)  # one failure's worth of budget: window / failures
    assert throttle.failed("10.0.0.2") is None  # another address has its own budget
    clock.advance(20.0)
    assert throttle.failed("10.0.0.1") is None


def test_the_number_of_addresses_tracked_is_bounded():
    throttle = SignInThrottle(FakeClock(), failures=1, window_s=60, max_addresses=100)
    for i in range(1000):
        throttle.failed(f"10.0.{i // 256}.{i % 256}")
    assert len(throttle._buckets) == 100
