"""A plausible agent written from the prose, not the algorithm: receipt, start, execute, report.

`journal=False`: it remembers nothing, so a re-delivered or re-sent action runs again.
`local_clock=True`: it judges `not_after` on its own clock (else not at all). It never sends heartbeats.
`person_retry=False`: it refuses every new attempt of an action it ran, a person's `retry_of` included.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx2

from rpa_mcp.replay.wire import PROTOCOL_HEADER

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgAB4iG8MwAAAABJRU5ErkJggg=="


class NaiveAgent:
    def __init__(
        self,
        client: httpx2.AsyncClient,
        machine: str,
        token: str,
        *,
        journal: bool = False,
        local_clock: bool = False,
        person_retry: bool = True,
    ) -> None:
        self.client, self.machine = client, machine
        self.headers = {"Authorization": f"Bearer {token}", PROTOCOL_HEADER: "2"}
        self.journal: dict[str, dict[str, Any]] | None = {} if journal else None
        self.done_actions: set[str] = set()
        self.local_clock = local_clock
        self.person_retry = person_retry

    async def run(self, *, stop: anyio.Event) -> None:
        while not stop.is_set():
            response = await self.client.get(
                "/api/v1/replay/next", params={"machine_id": self.machine, "wait": 1}, headers=self.headers
            )
            if response.status_code == 200:
                await self.handle(response.json())

    async def handle(self, action: dict[str, Any]) -> None:
        ref = {k: action[k] for k in ("replay_id", "action_id", "attempt_id")}
        key = f"{action['action_id']}/{action['attempt_id']}"
        if self.journal is not None:
            if key in self.journal:
                await self.post("result", self.journal[key])
                return
            if action["action_id"] in self.done_actions and not (self.person_retry and action.get("retry_of")):
                result = ref | {"success": False, "executed": False, "error": "ALREADY_EXECUTED"}
                self.journal[key] = result
                await self.post("result", result)
                return
        await self.post("receipt", ref)
        if self.local_clock and time.time() > action["not_after"]:  # its own clock, not the server's
            result = ref | {"success": False, "executed": False, "error": "EXPIRED"}
        else:
            start = await self.post("start", ref)
            if start is None or not start.get("proceed", False):
                result = ref | {"success": False, "executed": False, "error": "NOT_STARTED"}
            else:
                result = ref | {"success": True, "screenshot_before": PNG, "screenshot_after": PNG}
                self.done_actions.add(action["action_id"])
        if self.journal is not None:
            self.journal[key] = result
        await self.post("result", result)

    async def post(self, kind: str, body: dict[str, Any]) -> dict[str, Any] | None:
        for _ in range(3):
            response = await self.client.post(f"/api/v1/replay/{kind}", json=body, headers=self.headers)
            if response.status_code < 500:
                data: dict[str, Any] = response.json()
                return data
        return None
