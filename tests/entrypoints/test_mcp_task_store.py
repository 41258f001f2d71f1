"""The task store and runner alone: kept per identity, bounded, forgotten after their time, told to watchers."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from rpa_mcp.entrypoints import mcp_tasks
from rpa_mcp.entrypoints.mcp_tasks import TaskRunner, TaskStore
from rpa_mcp.errors import ApprovalPending, RateLimited
from rpa_mcp.identity import Identity
from rpa_mcp.notify import Notifier
from rpa_mcp.testing import FakeClock

pytestmark = pytest.mark.anyio
ALICE, BOB = Identity("rpa-mcp", "alice"), Identity("rpa-mcp", "bob")


def no_decline(exc: Exception) -> dict[str, Any]:
    raise AssertionError("no approval in these tests")


async def test_a_finished_task_is_kept_for_its_time_then_forgotten():
    clock = FakeClock()
    store = TaskStore(clock)
    runner = TaskRunner(store, Notifier())
    task = store.create(ALICE, "get_replay_status")

    async def call() -> dict[str, Any]:
        return {"content": [], "isError": False}

    runner.start(task, call, no_decline)
    with anyio.fail_after(5):
        await task.done.wait()
    clock.advance(task.ttl_ms / 1000 - 1)
    kept = store.get(task.task_id, ALICE)
    clock.advance(2)
    assert kept is task and store.get(task.task_id, BOB) is None
    assert store.get(task.task_id, ALICE) is None and store.of(ALICE) == []


async def test_too_many_running_tasks_of_one_identity_are_refused_and_others_are_not(monkeypatch):
    monkeypatch.setattr(mcp_tasks, "MAX_LIVE_TASKS", 2)
    store = TaskStore(FakeClock())
    store.create(ALICE, "apply_start_replay")
    store.create(ALICE, "apply_start_replay")
    with pytest.raises(RateLimited):
        store.create(ALICE, "apply_start_replay")
    assert store.create(BOB, "apply_start_replay").owner == BOB


async def test_every_change_of_status_is_told_to_the_watchers_and_a_failure_hides_its_text():
    store = TaskStore(FakeClock())
    runner = TaskRunner(store, Notifier())
    task = store.create(ALICE, "shadow_build")
    told: list[str] = []

    async def watcher(t: Any) -> None:
        told.append(t.status)

    async def broken() -> dict[str, Any]:
        raise RuntimeError("a secret internal detail")

    task.watchers.append(watcher)
    runner.start(task, broken, no_decline)
    with anyio.fail_after(5):
        await task.done.wait()
    assert told == ["failed"] and task.error == {"code": -32603, "message": "internal error"}


async def test_an_approval_nobody_gives_ends_the_task_with_approval_pending_after_its_time(monkeypatch):
    monkeypatch.setattr(mcp_tasks, "TASK_TTL_MS", 50)
    store = TaskStore(FakeClock())
    runner = TaskRunner(store, Notifier())
    task = store.create(ALICE, "apply_start_replay")
    pending = ApprovalPending("waiting for a person", approval_url="https://rpa.example/console/approvals/j1")
    told: list[str] = []

    async def watcher(t: Any) -> None:
        told.append(t.status)

    async def apply() -> dict[str, Any]:
        raise pending

    task.watchers.append(watcher)
    runner.start(task, apply, lambda exc: {"isError": True, "code": getattr(exc, "code", None)})
    with anyio.fail_after(5):
        await task.done.wait()
    assert told == ["input_required", "completed"]
    assert task.result == {"isError": True, "code": "approval-pending"}


async def test_a_cancel_during_a_call_lets_it_end_and_the_task_reports_what_it_did():
    store = TaskStore(FakeClock())
    runner = TaskRunner(store, Notifier())
    task = store.create(ALICE, "apply_start_replay")
    started, release = anyio.Event(), anyio.Event()

    async def apply() -> dict[str, Any]:
        started.set()
        await release.wait()
        return {"content": [], "isError": False}

    runner.start(task, apply, no_decline)
    with anyio.fail_after(5):
        await started.wait()
        runner.cancel(task)
        release.set()
        await task.done.wait()
    assert task.status == "completed" and task.result == {"content": [], "isError": False}
