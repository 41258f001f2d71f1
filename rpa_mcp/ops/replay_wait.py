"""`get_replay_status` with `wait_s`: answer at the replay's next step, pause or end, not by polling.

A replay that moves on tells the Notifier (`rpa://replays/<id>` updated), on this replica or,
through the relay, from another one. The wait listens for that one URI, reads the status again
when it hears it, and answers as soon as a step has finished, the state has changed (paused,
ended) or another action has become the current one; or when `wait_s` has passed. Each step
finished meanwhile is one progress notification (when the caller asked for progress).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import anyio
from pydantic import Field

from rpa_mcp.ops.registry import OpContext, StrictModel

MAX_WAIT_S = 50.0  # under the 60 s after which many clients give up on a call


class ReplayStatusInput(StrictModel):
    replay_id: str = Field(min_length=1, max_length=100, description="Id returned by apply_start_replay.")
    wait_s: float = Field(
        0,
        ge=0,
        le=MAX_WAIT_S,
        description="Wait up to this many seconds (<= 50) for the next step, a pause or the end before answering "
        "(a running replay only); 0 answers at once. Each step finished meanwhile is reported as progress.",
    )


class HeardUri:
    """A change listener that wakes one waiter when one URI is updated (from any thread)."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()

    def resource_updated(self, uri: str) -> None:
        if uri == self.uri:
            self.loop.call_soon_threadsafe(self.event.set)

    def tools_changed(self) -> None:
        pass


def _moved(before: dict[str, Any], now: dict[str, Any]) -> bool:
    current = (before.get("current_action") or {}).get("action_id"), (now.get("current_action") or {}).get("action_id")
    return now["state"] != before["state"] or now["done"] != before["done"] or current[0] != current[1]


async def wait_for_next(
    ctx: OpContext, replay_id: str, wait_s: float, read: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """The status once the replay has moved on (or after `wait_s`): `read()` gives it."""
    first = read()
    if wait_s <= 0 or first["state"] != "running":
        return first
    heard = HeardUri(f"rpa://replays/{replay_id}")
    notifier = ctx.services.notifier
    notifier.attach(heard)
    reported = first["done"]
    try:
        status = read()  # a change between the first read and listening is not missed
        with anyio.move_on_after(wait_s):
            while True:
                for done in range(reported + 1, status["done"] + 1):
                    await ctx.report_progress(done, status.get("steps_total"), f"step {done} finished")
                reported = max(reported, status["done"])
                if _moved(first, status):
                    break
                await heard.event.wait()
                heard.event.clear()
                status = read()
    finally:
        notifier.detach(heard)
    return status
