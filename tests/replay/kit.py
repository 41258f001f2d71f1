"""Replay test kit: an in-process fake desktop agent (journal + LRU dedup), fakes, a drain and a checker."""

from __future__ import annotations

import base64
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np

from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoServerActionRunner, NoVlmLocator
from rpa_mcp.replay.wire import ActionResult, Heartbeat, NextAction, ReceiptAck, StartAck, SystemDialog
from rpa_mcp.settings import Settings
from rpa_mcp.store.db import Database
from rpa_mcp.store.replay import ReplayRepository
from rpa_mcp.testing import FakeClock, FakeOcr
from rpa_mcp.vision.budget import FrameCache


def png_b64(value: int = 0, size: int = 16) -> str:
    img = np.full((size, size, 3), value, dtype=np.uint8)
    ok, buf = cv2.imencode(".png", img)
    assert ok
    return base64.b64encode(bytes(buf)).decode()


SHOT_BEFORE = png_b64(10, 240)
SHOT_AFTER = png_b64(200, 240)


@dataclass
class Verdict:
    verdict: str = "SUCCESS"
    failure_category: str | None = None
    confidence: float = 0.95
    evidence: list[dict[str, Any]] = field(default_factory=list)
    rule: str = ""


class FakeValidator:
    """SUCCESS unless scripted: `script` is consumed in order, `by_type` per action type; `error` is raised."""

    def __init__(self) -> None:
        self.script: list[Verdict] = []
        self.by_type: dict[str, Verdict] = {}
        self.calls: list[str] = []
        self.crops: list[str] = []  # the crop policy of each call
        self.expected: list[Any] = []  # what each call expected
        self.targets: list[Any] = []  # where each call looked
        self.observed: list[Any] = []  # what the agent reported of each call's windows
        self.error: Exception | None = None

    def validate(
        self,
        action_type: str,
        before: Any,
        after: Any,
        target: Any = None,
        expected: Any = None,
        observed: Any = None,
        *,
        crops: str = "always",
    ) -> Verdict:
        self.calls.append(action_type)
        self.crops.append(crops)
        self.expected.append(expected)
        self.targets.append(target)
        self.observed.append(observed)
        if self.error is not None:
            raise self.error
        if self.script:
            return self.script.pop(0)
        return self.by_type.get(action_type, Verdict())


class FakeDialogs:
    def __init__(self, decision: str = "pause") -> None:
        self.decision = decision
        self.calls = 0
        self.context: dict[str, Any] = {}

    def resolve(self, image: Any, *, declared_modals: Any = None, **context: Any) -> dict[str, Any]:
        self.calls += 1
        self.context = context
        return {
            "decision": self.decision,
            "dialog_id": "easily-save-confirm",
            "button": {"label": "Oui"},
            "click_at": [100, 120],
            "bbox": [2, 2, 10, 10],
            "reason": "scripted",
        }


class RecordingNotifier:
    def __init__(self) -> None:
        self.uris: list[str] = []

    def resource_updated(self, uri: str) -> None:
        self.uris.append(uri)

    def tools_changed(self) -> None:
        self.uris.append("tools_changed")


class RecordingLedger:
    """The audit chain's side of a run's end: every call, in order."""

    def __init__(self) -> None:
        self.ended: list[dict[str, Any]] = []
        self.read_back: list[dict[str, Any]] = []

    def replay_ended(self, replay_id: str, **facts: Any) -> None:
        self.ended.append({"replay_id": replay_id, **facts})

    def replay_read_back(self, replay_id: str, **facts: Any) -> None:
        self.read_back.append({"replay_id": replay_id, **facts})


class JumpClock(FakeClock):
    def jump_wall(self, seconds: float) -> None:
        self._now += seconds


def make_services(tmp_path: Path, **overrides: Any) -> SimpleNamespace:
    """The replay engine's collaborators, all fakes (a test scripts them before the replay starts)."""
    settings = Settings(data_dir=tmp_path / "data", **overrides.pop("settings", {}))
    return SimpleNamespace(
        settings=settings,
        db=overrides.pop("db", None) or Database(tmp_path / "replay.sqlite3"),
        clock=overrides.pop("clock", None) or JumpClock(),
        ocr=overrides.pop("ocr", None) or FakeOcr(),
        notifier=RecordingNotifier(),
        ledger=RecordingLedger(),
        validator=FakeValidator(),
        dialogs=FakeDialogs(),
        vlm=overrides.pop("vlm", None) or NoVlmLocator(),
        server_actions=overrides.pop("server_actions", None) or NoServerActionRunner(),
        frames=overrides.pop("frames", None) or FrameCache(settings.frame_cache_bytes),  # decoded screens, shared
        **overrides,
    )


def make_service(services: SimpleNamespace, **extra: Any) -> ReplayService:
    """The engine over its own database file, with each collaborator of `services` passed explicitly
    (`extra`: more of them, e.g. the read-back's `records` and `background`)."""
    return ReplayService(
        ReplayRepository(services.db),
        clock=services.clock,
        config=m.ReplayConfig.from_settings(services.settings),
        thresholds=load_thresholds(services.settings.catalog_path / "thresholds.yaml"),
        validator=services.validator,
        dialogs=services.dialogs,
        notifier=services.notifier,
        ocr=services.ocr,
        vlm=services.vlm,
        server_actions=services.server_actions,
        ledger=services.ledger,
        frames=services.frames,
        **extra,
    )


def steps(n: int, action_type: str = "click_anchor", **extra: Any) -> list[dict[str, Any]]:
    return [
        {
            "index": i,
            "intent": f"Step {i}",
            "action_type": action_type,
            "target": {"label": f"Button {i}", "window_title": "MédiDossier"},
            **extra,
        }
        for i in range(n)
    ]


class FakeAgent:
    """A desktop agent: durable journal RECEIVED -> STARTED -> DONE, LRU dedup of 50 (action_id+attempt_id).

    Faults are one-shot flags consumed by the next step. `executions` records every input injection.
    """

    def __init__(
        self,
        service: ReplayService,
        machine_id: str = "pc-1",
        *,
        version: int = 2,
        clock: FakeClock | None = None,
        skew_s: float = 0.0,
    ) -> None:
        self.service = service
        self.machine_id = machine_id
        self.version = version
        self.clock = clock
        self.skew_s = skew_s
        self.journal: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.executions: list[tuple[str, str, str]] = []
        self.received: set[tuple[str, str, str]] = set()
        self.faults: set[str] = set()
        self.outbox: list[ActionResult] = []  # results to (re)send: at-least-once reporting
        self.result_for: dict[str, dict[str, Any]] = {}  # action_type -> ActionResult overrides
        self.pending_start: NextAction | None = None
        self.alive = True

    def key(self, a: NextAction) -> str:
        return f"{a.action_id}+{a.attempt_id}"

    def _remember(self, key: str, entry: dict[str, Any]) -> None:
        self.journal[key] = entry
        self.journal.move_to_end(key)
        while len(self.journal) > 50:
            self.journal.popitem(last=False)

    async def flush(self) -> None:
        """Re-send results not acknowledged yet."""
        while self.outbox and "drop_report" not in self.faults:
            result = self.outbox[0]
            await self.service.report(result)
            self.outbox.pop(0)

    async def step(self) -> str:
        """One agent cycle. Returns what happened (for tests that care)."""
        if not self.alive:
            return "dead"
        await self.flush()
        action = await self.service.next_action(self.machine_id, wait=0, protocol_version=self.version)
        if action is None:
            return "idle"
        if "drop_poll" in self.faults:  # the response never reached the agent
            self.faults.discard("drop_poll")
            return "poll_lost"
        self.received.add((action.replay_id, action.action_id, action.attempt_id))
        key = self.key(action)
        seen = self.journal.get(key)
        if seen is not None:
            if seen["state"] == "DONE":
                await self.service.report(seen["result"])  # cached result, never a second execution
                return "dedup_report"
            return "dedup_busy"
        self._remember(key, {"state": "RECEIVED"})
        if self.version >= 2:
            await self.service.receipt(self._ref(ReceiptAck, action))
        if "die_after_receive" in self.faults:
            self.faults.discard("die_after_receive")
            self.alive = False
            return "died_after_receive"
        server_now = action.server_now
        local_now = (self.clock.now() if self.clock else server_now) + self.skew_s
        skew = local_now - server_now  # the agent corrects its clock with server_now
        if local_now - skew > action.not_after:
            self._finish(action, executed=False, success=False, error="expired")
            await self.flush()
            return "expired"
        if self.version >= 2:
            ack = await self.service.started(self._ref(StartAck, action))
            if not ack.proceed:
                self._finish(action, executed=False, success=False, error=f"start refused: {ack.reason}")
                await self.flush()
                return "start_refused"
        self.journal[key]["state"] = "STARTED"
        if "die_after_start" in self.faults:
            self.faults.discard("die_after_start")
            self.executions.append((action.replay_id, action.action_id, action.attempt_id))
            self.alive = False
            return "died_after_start"
        if "system_dialog" in self.faults:
            self.faults.discard("system_dialog")
            self._finish(
                action,
                executed=False,
                success=False,
                error="system dialog",
                system_dialog=SystemDialog(kind="uac", process="consent.exe"),
            )
            await self.flush()
            return "system_dialog"
        extra = dict(self.result_for.get(action.action_type, {}))
        if extra.get("success", True):  # a failing attempt (target not found...) injected nothing
            self.executions.append((action.replay_id, action.action_id, action.attempt_id))
        if "heartbeat" in self.faults:
            self.faults.discard("heartbeat")
            self.pending_start = action
            return "running_long"
        self._finish(action, **extra)
        if "lose_report" in self.faults:
            self.faults.discard("lose_report")
            self.faults.add("drop_report")
            return "report_lost"
        await self.flush()
        return "done"

    async def heartbeat(self) -> Any:
        assert self.pending_start is not None
        return await self.service.heartbeat(self._ref(Heartbeat, self.pending_start))

    async def finish_long(self) -> None:
        assert self.pending_start is not None
        self._finish(self.pending_start)
        self.pending_start = None
        await self.flush()

    def _ref(self, cls: Any, a: NextAction) -> Any:
        return cls(
            replay_id=a.replay_id,
            action_id=a.action_id,
            attempt_id=a.attempt_id,
            machine_id=self.machine_id,
            protocol_version=self.version,
        )

    def _finish(self, a: NextAction, *, executed: bool = True, success: bool = True, **extra: Any) -> None:
        fields: dict[str, Any] = {
            "screenshot_before": SHOT_BEFORE,
            "screenshot_after": SHOT_AFTER,
            "window_title": "MédiDossier",
            "actual_position": [100, 100] if executed else None,
            **extra,
        }
        result = ActionResult(
            replay_id=a.replay_id,
            action_id=a.action_id,
            attempt_id=a.attempt_id,
            machine_id=self.machine_id,
            protocol_version=self.version,
            success=success,
            executed=executed,
            **fields,
        )
        self._remember(self.key(a), {"state": "DONE", "result": result})
        self.outbox.append(result)

    def restart(self) -> None:
        """The process restarts: the durable journal survives, the faults do not."""
        self.alive = True
        self.faults.clear()


async def drain(
    service: ReplayService, agents: list[FakeAgent], clock: FakeClock, *, rounds: int = 400, answer_pauses: bool = False
) -> None:
    """Run agents and the watchdog with time moving until nothing is running any more."""
    for _ in range(rounds):
        for agent in agents:
            if not agent.alive:
                agent.restart()
            agent.faults.discard("drop_report")
            await agent.step()
        clock.advance(service.config.orphan_timeout_s / 3)
        service.scan_once()
        running = service.store.list_replays(states=[m.RUNNING])
        if not running and not any(a.outbox for a in agents):
            if not answer_pauses:
                return
            paused = service.store.list_replays(states=[m.PAUSED])
            if not paused:
                return
            for replay in paused:
                await service.answer(replay["replay_id"], "skip")


def check(service: ReplayService, agents: list[FakeAgent]) -> dict[str, Any]:
    """Jepsen-style checker over every action of every replay."""
    executions = Counter((r, a) for agent in agents for (r, a, _t) in agent.executions)
    received = {t for agent in agents for t in agent.received}
    lost, from_nowhere, twice, bad_terminal = [], [], [], []
    for replay in service.store.list_replays(limit=10_000):
        rid = replay["replay_id"]
        state = replay["state"]
        full = service.store.get_replay(rid)
        for a in service.store.actions(rid):
            key = (rid, a["action_id"])
            # an idempotent action may run again after a lost report, within its resend budget
            if executions[key] > (1 + a["max_resends"] if a["idempotent"] else 1):
                twice.append(key)
            if a["state"] in m.TERMINAL_ACTION_STATES:
                if (
                    a["state"] == m.ACKED
                    and a["outcome"]
                    and a["outcome"].startswith("success")
                    and not a["server_side"]
                    and executions[key] == 0
                ):
                    bad_terminal.append(key)
                continue
            in_paused = state == m.PAUSED and bool(full and full["pause_reason"])
            in_flight_after_cancel = state == m.CANCELLED and a["state"] == m.DISPATCHED
            if not (in_paused or in_flight_after_cancel):
                lost.append((key, a["state"], state))
        for rep in service.store.reports(rid):
            if (
                rep["kind"] == "result"
                and rep["status"] == "accepted"
                and (rid, rep["action_id"], rep["attempt_id"]) not in received
            ):
                from_nowhere.append((rid, rep["action_id"], rep["attempt_id"]))
    return {"lost": lost, "executed_twice": twice, "from_nowhere": from_nowhere, "success_without_input": bad_terminal}


def assert_clean(service: ReplayService, agents: list[FakeAgent]) -> None:
    report = check(service, agents)
    assert report == {"lost": [], "executed_twice": [], "from_nowhere": [], "success_without_input": []}, report


def replay_of(service: ReplayService, rid: str) -> ReplayRow:
    """The replay's row (it exists)."""
    replay = service.store.get_replay(rid)
    assert replay is not None
    return replay


def later_looks(service: ReplayService, rid: str) -> list[ActionRow]:
    """The later looks queued in the replay (`later_look`)."""
    return [a for a in service.store.actions(rid) if a.origin == m.LATER_LOOK_ORIGIN]


def the_step(service: ReplayService, rid: str, action_type: str) -> ActionRow:
    """The replay's one action of `action_type`."""
    [step] = [a for a in service.store.actions(rid) if a.action_type == action_type]
    return step


def sent(agent: FakeAgent, action_id: str) -> int:
    """How many times the agent ran the action's input."""
    return [a for _r, a, _t in agent.executions].count(action_id)
