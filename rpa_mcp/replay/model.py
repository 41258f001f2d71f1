"""Replay domain vocabulary: states, pause reasons, per-action-type policies, the time base.

Action states (transport, docs/replay-wire-contract.md), persisted per action:

    PENDING ──claim──> DISPATCHED ──report──> ACKED            (terminal)
                        │    ▲   └─report, not done─> HELD     (a report came, a person must decide)
                 lease  │    │ resend (new attempt_id)
               expired  ▼    │
                       ORPHAN ──budget spent──> ABANDONED     (terminal)

`HELD` is the state for a report that settles nothing: the agent reported, but the action is not
done (validator failure, unverified, system dialog after input...). It is never dispatched
again by itself; only a person's answer (retry / skip / click / abort) moves it on, or, for a step held
for a later look (its typed text or its window still coming: `AWAITING_LATER_LOOK`, no pause), that look's
report.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from rpa_mcp.vision.ocr import normalize_text

logger = logging.getLogger("rpa_mcp.replay")

# --- action states -------------------------------------------------------------------------
PENDING = "PENDING"
DISPATCHED = "DISPATCHED"
ORPHAN = "ORPHAN"
HELD = "HELD"
ACKED = "ACKED"
ABANDONED = "ABANDONED"
TERMINAL_ACTION_STATES = frozenset({ACKED, ABANDONED})
OPEN_ACTION_STATES = frozenset({PENDING, DISPATCHED, ORPHAN, HELD})

# --- replay states -------------------------------------------------------------------------
RUNNING = "running"
PAUSED = "paused"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
TERMINAL_REPLAY_STATES = frozenset({COMPLETED, FAILED, CANCELLED})

# --- agent journal (v2 acks) ----------------------------------------------------------------
J_NONE = ""
J_RECEIVED = "received"
J_STARTED = "started"
J_DONE = "done"

# --- pause reasons (stable names; shown to people and in logs) ------------------------------
PAUSED_NEED_HELP = "paused_need_help"  # resend budget spent / non-retryable error / poison
OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN"  # started (or v1) and never reported
HUMAN_TAKEOVER = "HUMAN_TAKEOVER"
SYSTEM_DIALOG = "SYSTEM_DIALOG"
UNEXPECTED_DIALOG = "UNEXPECTED_DIALOG"
VALIDATION_FAILED = "VALIDATION_FAILED"  # the validator said FAILURE (e.g. WRONG_APPLICATION)
UNVERIFIED = "UNVERIFIED"  # no validator / switched off / uncertain / no screenshots
USER_PAUSE = "USER_PAUSE"
SERVER_ACTION_FAILED = "SERVER_ACTION_FAILED"
WORKSTATION_NOT_READY = "WORKSTATION_NOT_READY"  # the screen observed first does not show what the first step needs

PAUSE_HELP: dict[str, str] = {
    PAUSED_NEED_HELP: "The action failed or went unanswered too many times. Look at the screen, then answer "
    "retry, skip or abort.",
    OUTCOME_UNKNOWN: "The agent started the action but never said how it ended: it may or may not have happened. "
    "Check the screen, then answer skip (it happened), retry (it did not) or abort.",
    HUMAN_TAKEOVER: "Someone used the mouse or keyboard during the replay. When they are done, resume: the screen "
    "is checked against the next action first.",
    SYSTEM_DIALOG: "A Windows system dialog (UAC, Windows Hello, SmartScreen, credentials) is up. It is never "
    "answered automatically: a person must deal with it, then resume (or answer retry/skip/abort).",
    UNEXPECTED_DIALOG: "A dialog appeared that the workflow did not declare. Answer click:<button label>, skip "
    "(leave it) or abort.",
    VALIDATION_FAILED: "The screen after the action does not show the expected effect (see the verdict and the "
    "evidence crop). Fix the screen if needed, then answer retry, skip or abort.",
    UNVERIFIED: "The action's effect could not be verified. Check the screen, then answer skip (it is fine), "
    "retry or abort.",
    USER_PAUSE: "Paused on request. Resume to continue.",
    WORKSTATION_NOT_READY: "Nothing was executed: the workstation's screen does not show what the first step "
    "needs (see missing). Bring the application's window to the front (unlock the session if it is locked), then "
    "answer retry (the screen is observed again) or abort.",
    SERVER_ACTION_FAILED: "A server-side step (text extraction, decision) failed; it is never retried "
    "automatically. Answer retry, skip or abort.",
}

# Looks at the screen the server asks for (no input): the one a replay begins with, the one after its last
# step, and a later one at a field whose typed text was still being drawn. None of them is a workflow step.
LATER_LOOK_ORIGIN = "later_look"
LOOK_ORIGINS = frozenset({"preflight", "closing", LATER_LOOK_ORIGIN})
AWAITING_LATER_LOOK = "awaiting_later_look"  # a step held, no pause, until a later look judges it

SERVER_SIDE_ACTIONS = frozenset({"extract_text", "t2a_decision"})
# Types whose second execution has no further effect (clicking an active tab is SUCCESS).
IDEMPOTENT_ACTIONS = frozenset(
    {"switch_tab", "focus_window", "wait", "wait_for_element", "screenshot_evidence", "navigate_url", "pause_for_human"}
    | {"select_option", "set_checked"}  # they set a value: done twice, the value is the same
)
MAX_RESENDS_BY_TYPE = {"extract_text": 1}


def max_resends_for(action_type: str, default: int) -> int:
    if action_type in SERVER_SIDE_ACTIONS and action_type != "extract_text":
        return 0
    return min(MAX_RESENDS_BY_TYPE.get(action_type, default), default)


@dataclass(frozen=True)
class ReplayConfig:
    orphan_timeout_s: float = 30.0
    scan_interval_s: float = 10.0
    max_resends: int = 2
    validator_enabled: bool = True
    dialog_resolver_enabled: bool = True
    watchdog_enabled: bool = True
    max_image_pixels: int = 40_000_000
    preflight: bool = True
    presence_s: float = 90.0
    screen_fresh_s: float = 120.0
    readback_urls: tuple[str, ...] = ()  # the read-back's allow-list
    readback_timeout_s: float = 10.0

    @classmethod
    def from_settings(cls, settings: Any) -> ReplayConfig:
        return cls(
            orphan_timeout_s=settings.watchdog_orphan_timeout_s,
            scan_interval_s=settings.watchdog_scan_interval_s,
            max_resends=settings.watchdog_max_resends,
            validator_enabled=settings.validator_v2_enabled,
            dialog_resolver_enabled=settings.dialog_resolver_enabled,
            watchdog_enabled=settings.watchdog_enabled,
            max_image_pixels=settings.max_image_pixels,
            preflight=settings.replay_preflight,
            presence_s=settings.replay_presence_s,
            screen_fresh_s=settings.replay_screen_fresh_s,
            readback_urls=tuple(settings.readback_urls),
            readback_timeout_s=settings.readback_timeout_s,
        )


class ClockLike(Protocol):
    def now(self) -> float: ...

    def monotonic(self) -> float: ...


class ServerTime:
    """The server's reference time for deadlines: epoch seconds that advance with the monotonic clock.

    Anchored once to the wall clock when the process starts, so a wall-clock jump while the
    server runs moves no deadline (no resend storm); persisted deadlines are epoch seconds, so
    after a restart they are compared against the (re-anchored) wall clock and leases resume.
    """

    def __init__(self, clock: ClockLike) -> None:
        self._clock = clock
        self._anchor_wall = clock.now()
        self._anchor_mono = clock.monotonic()

    def now(self) -> float:
        return self._anchor_wall + (self._clock.monotonic() - self._anchor_mono)


def screen_signature(window_title: str | None) -> str:
    """First 16 hex of sha256(normalized window title): the screen key of the target memory."""
    return hashlib.sha256(normalize_text(window_title or "").encode("utf-8")).hexdigest()[:16]


def target_key(target: Mapping[str, Any] | None) -> str:
    """Stable key of a target inside a screen: its label when it has one, else its recorded spot."""
    target = target or {}
    label = target.get("label") or target.get("by_text") or target.get("text")
    if label:
        return "label:" + normalize_text(str(label))
    spot = {k: target.get(k) for k in ("x_pct", "y_pct", "rel_x", "rel_y", "bbox", "anchor_ref") if target.get(k)}
    return "spot:" + hashlib.sha256(json.dumps(spot, sort_keys=True, default=str).encode()).hexdigest()[:16]


def log_event(
    event: str, *, replay_id: str | None, action_id: str | None = None, attempt_id: str | None = None, **fields: Any
) -> None:
    """One JSON line per decision: grep a replay id to read its whole story."""
    record = {"event": event, "replay_id": replay_id, "action_id": action_id, "attempt_id": attempt_id}
    record.update({k: v for k, v in fields.items() if v is not None})
    logger.info(json.dumps(record, default=str, ensure_ascii=False, sort_keys=False))
