"""Long tool calls as tasks: answered at once with a handle, their result fetched later.

A client that opts in (the Tasks extension `io.modelcontextprotocol/tasks` of 2026-07-28, or
the `task` field of a 2025-11-25 `tools/call`) gets a task for the tools that can outlast a
request (`TASK_TOOLS`, every `apply_` and `run_` tool). The task is stored before the handle is
returned, runs the same `dispatch()` as the call would have, and keeps its result for
`TASK_TTL_MS`, whatever happens to the connection: a task belongs to the caller's identity
(issuer, subject), never to a session, so a client that reconnects with the same identity reads
it back, and any other identity is told it does not exist.

An apply that needs a second person's approval waits inside its task, which is then
`input_required` and carries the approval page's URL (a URL-mode elicitation); it goes on once
a person other than the proposer has approved on the page, and ends with `approval-pending` when
the client's person declines to open it or the task's time runs out. The client's answer is
never consent. Cancelling a task stops its wait for an approval; a call already in flight runs to
its end and the task reports what it did.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio

from rpa_mcp.clock import Clock
from rpa_mcp.confirmation.service import APPROVALS_URI
from rpa_mcp.errors import ApprovalPending, RateLimited
from rpa_mcp.identity import Identity
from rpa_mcp.notify import Notifier
from rpa_mcp.ops.replay_wait import HeardUri

logger = logging.getLogger(__name__)
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_TTL_MS = 3_600_000  # a task and its result are kept an hour after it was created
POLL_INTERVAL_MS = 1_000
MAX_LIVE_TASKS = 20  # per identity, tasks still running
MAX_TASKS = 200  # per identity, kept (the oldest finished ones go first)
TASK_TOOLS = frozenset({"get_replay_status", "shadow_build", "persist_competence", "run_competence"})
TERMINAL = frozenset({"completed", "failed", "cancelled"})
APPROVAL_MESSAGE = (
    "This request needs a second person's approval (nobody approves their own request). Open the approval page, "
    "or send the link to a colleague with the approver role; it goes ahead once they approve."
)


def runs_as_task(tool: str) -> bool:
    """Whether a tool may answer with a task: it can outlast a request (an approval, a replay's wait, a build)."""
    return tool in TASK_TOOLS or tool.startswith(("apply_", "run_"))


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Approval:
    """The person's approval a task waits for: the page's URL, the request's id, the key the client answers."""

    url: str
    request_id: str

    @property
    def key(self) -> str:
        return f"approval-{self.request_id}"

    def input_request(self) -> dict[str, Any]:
        """A URL-mode elicitation of the approval page, as `inputRequests` carry it."""
        params = {"mode": "url", "message": APPROVAL_MESSAGE, "url": self.url, "elicitationId": self.request_id}
        return {"method": "elicitation/create", "params": params}


@dataclass
class Task:
    task_id: str
    owner: Identity
    tool: str
    created_at: float
    ttl_ms: int = TASK_TTL_MS
    status: str = "working"
    message: str | None = None
    updated_at: float = 0.0
    result: dict[str, Any] | None = None  # the tool's result on the wire (completed)
    error: dict[str, Any] | None = None  # a JSON-RPC error (failed)
    approval: Approval | None = None  # while input_required
    declined: bool = False
    stop_asked: bool = False  # a cancel (or a declined approval) asked while a call was in flight
    job: asyncio.Task[None] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    watchers: list[Callable[[Task], Awaitable[None]]] = field(default_factory=list)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def expired(self, now: float) -> bool:
        return self.created_at + self.ttl_ms / 1000 < now


class TaskStore:
    """The tasks of every identity, in this process, bounded per identity."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._tasks: dict[str, Task] = {}

    def create(self, owner: Identity, tool: str) -> Task:
        self._forget_expired()
        mine = [t for t in self._tasks.values() if t.owner == owner]
        if sum(not t.terminal for t in mine) >= MAX_LIVE_TASKS:
            raise RateLimited(
                f"{MAX_LIVE_TASKS} tasks of yours are still running; wait for one to end or cancel one",
                retry_after_s=POLL_INTERVAL_MS / 1000,
            )
        finished = sorted((t for t in mine if t.terminal), key=lambda t: t.created_at)
        for old in finished[: max(0, len(mine) - MAX_TASKS + 1)]:
            del self._tasks[old.task_id]
        now = self.clock.now()
        task = Task(secrets.token_urlsafe(16), owner, tool, created_at=now, ttl_ms=TASK_TTL_MS, updated_at=now)
        self._tasks[task.task_id] = task
        return task

    def get(self, task_id: str, owner: Identity) -> Task | None:
        """The task, if it is the caller's and still kept; another identity's task does not exist for them."""
        task = self._tasks.get(task_id)
        if task is None or task.owner != owner:
            return None
        if task.terminal and task.expired(self.clock.now()):
            del self._tasks[task_id]
            return None
        return task

    def of(self, owner: Identity) -> list[Task]:
        self._forget_expired()
        return sorted((t for t in self._tasks.values() if t.owner == owner), key=lambda t: t.created_at)

    def _forget_expired(self) -> None:
        now = self.clock.now()
        for task in [t for t in self._tasks.values() if t.terminal and t.expired(now)]:
            del self._tasks[task.task_id]


class TaskRunner:
    """Runs a task's call in the background and keeps its state; waits for a person's approval inside it."""

    def __init__(self, store: TaskStore, notifier: Notifier) -> None:
        self.store, self.notifier = store, notifier
        self._jobs: set[asyncio.Task[None]] = set()

    def start(
        self, task: Task, call: Callable[[], Awaitable[dict[str, Any]]], decline: Callable[[Exception], Any]
    ) -> None:
        """Run `call` (the tool's wire result, or an exception) as `task`; `decline` answers a declined approval."""
        job = asyncio.get_running_loop().create_task(self._run(task, call, decline))
        task.job = job
        self._jobs.add(job)
        job.add_done_callback(self._jobs.discard)

    async def _run(
        self, task: Task, call: Callable[[], Awaitable[dict[str, Any]]], decline: Callable[[Exception], Any]
    ) -> None:
        heard = HeardUri(APPROVALS_URI)
        self.notifier.attach(heard)  # an approval made while the task waits is heard
        deadline = asyncio.get_running_loop().time() + task.ttl_ms / 1000  # a person who never approves
        pending: ApprovalPending | None = None
        try:
            while True:
                try:
                    result = await call()  # never interrupted: what it does is reported as it ended
                    break
                except ApprovalPending as exc:
                    pending = exc
                    url = str(exc.details.get("approval_url") or "")
                    if not url:
                        raise
                    if task.stop_asked:
                        raise asyncio.CancelledError from None
                    approval = Approval(url, url.rstrip("/").rsplit("/", 1)[-1])
                    await self.update(task, "input_required", f"{APPROVAL_MESSAGE} {url}", approval=approval)
                    with anyio.move_on_after(deadline - asyncio.get_running_loop().time()) as waited:
                        await heard.event.wait()
                    if waited.cancelled_caught:  # no approval within the task's time: approval-pending
                        await self.finish(task, "completed", result=decline(pending))
                        return
                    heard.event.clear()
                    await self.update(task, "working", None)
            await self.finish(task, "completed", result=result)
        except asyncio.CancelledError:
            if task.declined and pending is not None:
                await self.finish(task, "completed", result=decline(pending))
            else:
                await self.finish(task, "cancelled", "cancelled by the client before the call went through")
        except Exception as exc:  # the call's own errors are results; this is a fault of ours
            logger.exception("task %s of %s failed", task.task_id, task.tool)
            await self.finish(task, "failed", "internal error", error=failure(exc))
        finally:
            self.notifier.detach(heard)

    async def update(self, task: Task, status: str, message: str | None, *, approval: Approval | None = None) -> None:
        task.status, task.message, task.approval = status, message, approval
        task.updated_at = self.store.clock.now()
        await self._tell(task)

    async def finish(
        self,
        task: Task,
        status: str,
        message: str | None = None,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> None:
        if task.terminal:
            return
        task.result, task.error = result, error
        await self.update(task, status, message)
        task.done.set()

    def cancel(self, task: Task, *, declined: bool = False) -> None:
        """Ask the task to stop. Cooperative: only the wait for a person's approval is interrupted; a call
        in flight runs to its end and the task reports what it did (never a `cancelled` that went through)."""
        if task.terminal or task.job is None:
            return
        task.declined, task.stop_asked = declined, True
        if task.status == "input_required":
            task.job.cancel()

    async def _tell(self, task: Task) -> None:
        for watcher in list(task.watchers):
            with contextlib.suppress(Exception):  # a gone client must not stop the task
                await watcher(task)


def failure(exc: Exception) -> dict[str, Any]:
    """The JSON-RPC error of a task that failed (never the exception's text: it may hold internals)."""
    code = getattr(getattr(exc, "error", None), "code", None)
    message = getattr(getattr(exc, "error", None), "message", None)
    if isinstance(code, int) and isinstance(message, str):
        return {"code": code, "message": message}
    return {"code": -32603, "message": "internal error"}
