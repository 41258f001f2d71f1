"""ImageWork shares its slots fairly: a share per identity, a reserved part for the agents.

Units block on threading events the test releases; the test waits on events and on
`wait_all_tasks_blocked`, never on time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import anyio
import pytest

from rpa_mcp.errors import ImageWorkBusy
from rpa_mcp.vision.budget import ImageWork, Lane

pytestmark = pytest.mark.anyio
SAFETY_S = 30


class Held:
    """A unit of image work that runs until released; `started` is set once it runs."""

    def __init__(self) -> None:
        self.started, self.release = threading.Event(), threading.Event()

    def __call__(self) -> str:
        self.started.set()
        self.release.wait(SAFETY_S)
        return "held"

    async def running(self) -> None:
        assert await anyio.to_thread.run_sync(self.started.wait, SAFETY_S)


def call(
    work: ImageWork, fn: Callable[[], str], identity: str | None, lane: Lane, out: list[str]
) -> Callable[[], object]:
    async def run() -> None:
        out.append(await work.run(fn, identity=identity, lane=lane))

    return run


async def test_a_caller_over_its_share_is_refused_at_once_while_another_caller_is_served():
    work = ImageWork(3, reserved=1, per_identity=1, queue_per_identity=1)
    flood, done = Held(), []
    with anyio.fail_after(SAFETY_S):
        async with anyio.create_task_group() as group:
            group.start_soon(call(work, flood, "flooder", "people", done))
            group.start_soon(call(work, flood, "flooder", "people", done))
            await flood.running()
            await anyio.wait_all_tasks_blocked()
            assert work.waiting("flooder") == 2  # one running, one queued: its whole share

            with pytest.raises(ImageWorkBusy) as refused:
                await work.run(lambda: "third", identity="flooder", lane="people")
            assert await work.run(lambda: "small", identity="someone-else", lane="people") == "small"
            flood.release.set()
    assert refused.value.code == "image-work-busy" and refused.value.retryable
    assert refused.value.http_status == 429 and refused.value.retry_after_s >= 1
    assert done == ["held", "held"] and work.waiting("flooder") == 0


async def test_the_agents_validation_runs_in_the_reserved_slot_while_people_hold_the_others():
    work = ImageWork(3, reserved=1, per_identity=1, queue_per_identity=4)
    people, done = [Held(), Held()], []
    with anyio.fail_after(SAFETY_S):
        async with anyio.create_task_group() as group:
            for index, held in enumerate(people):
                group.start_soon(call(work, held, f"person-{index}", "people", done))
                await held.running()
            group.start_soon(call(work, lambda: "third person", "person-2", "people", done))
            await anyio.wait_all_tasks_blocked()
            assert done == [] and work.waiting("person-2") == 1  # the people's slots are all taken: it waits

            assert await work.run(lambda: "validated", identity="agent-m1", lane="agents") == "validated"
            assert await work.run(lambda: "report checked", lane="agents") == "report checked"  # a replay's own
            for held in people:
                held.release.set()
    assert sorted(done) == ["held", "held", "third person"]


async def test_one_identity_runs_one_unit_at_a_time_and_the_others_wait_their_turn():
    work = ImageWork(3, reserved=0, per_identity=1, queue_per_identity=4)
    first, done = Held(), []
    with anyio.fail_after(SAFETY_S):
        async with anyio.create_task_group() as group:
            group.start_soon(call(work, first, "olga", "people", done))
            await first.running()
            group.start_soon(call(work, lambda: "second", "olga", "people", done))
            await anyio.wait_all_tasks_blocked()
            assert work.running == 1 and done == []  # a free slot, but olga's share is busy
            first.release.set()
    assert done == ["held", "second"] and work.peak == 1


def test_the_reserved_slots_must_leave_one_for_people():
    with pytest.raises(ValueError):
        ImageWork(2, reserved=2)
