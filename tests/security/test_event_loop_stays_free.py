"""A real server in its own process keeps answering /healthz while hostile pattern probes run.

No timing is asserted: the test counts /healthz answers that arrived while probes were in
flight, with generous deadlines. On a backtracking engine the probes would never finish (the
client's deadline fails the test) and /healthz would answer nothing meanwhile.
"""

from __future__ import annotations

import anyio
import httpx2
import pytest

from rpa_mcp.bench.server import server_process
from tests.security.conftest import image_arg, png

pytestmark = pytest.mark.anyio
EVIL = "^(a+)+$"
PROBES = 4


def pattern_probe(items: int = 400, length: int = 20_000) -> dict:
    frame = image_arg(png())
    return {
        "action_type": "t2a_decision",
        "before": frame,
        "after": frame,
        "expected": {
            "json_schema": {"type": "array", "items": {"type": "string", "pattern": EVIL}},
            "output": ["a" * length + "!"] * items,
        },
    }


async def test_healthz_answers_while_catastrophic_pattern_probes_are_in_flight(tmp_path):
    with server_process(tmp_path / "server") as server:
        token = server.token("operator")
        async with httpx2.AsyncClient(base_url=server.base, timeout=120) as client:
            assert (await client.get("/healthz")).status_code == 200
            in_flight = 0
            answered_during: list[int] = []
            verdicts: list[str] = []
            probes_done = anyio.Event()

            async def one_probe() -> None:
                nonlocal in_flight
                in_flight += 1
                try:
                    r = await client.post(
                        "/api/v1/validate", json=pattern_probe(), headers={"authorization": f"Bearer {token}"}
                    )
                    assert r.status_code == 200, r.text[:300]
                    verdicts.append(r.json()["failure_category"])
                finally:
                    in_flight -= 1

            async def probes() -> None:
                async with anyio.create_task_group() as group:
                    for _ in range(PROBES):
                        group.start_soon(one_probe)
                probes_done.set()

            async def health() -> None:
                while not probes_done.is_set():
                    r = await client.get("/healthz")
                    assert r.status_code == 200
                    if in_flight:
                        answered_during.append(in_flight)

            with anyio.fail_after(300):
                async with anyio.create_task_group() as group:
                    group.start_soon(probes)
                    group.start_soon(health)
    assert verdicts == ["SCHEMA_INVALID"] * PROBES
    print(f"healthz answered {len(answered_during)} times while probes were in flight")
    assert len(answered_during) >= 1, "healthz never answered while a pattern probe was in flight"
