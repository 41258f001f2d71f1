"""Ports of the replay domain: its store, and the collaborators it asks.

The collaborators belong to other areas (validation, dialogs, vision, a language model); the
replay engine relies only on the small shapes below and receives each one as a constructor
argument (`bootstrap.py` picks the implementations). A collaborator that is switched off in
the settings, or not configured, makes the replay pause with the reason, never guess.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from rpa_mcp.replay.rows import (
    ActionRow,
    AttemptRow,
    LeaseRow,
    MachineRow,
    MemoryRow,
    ReplayRow,
    ReplaySummary,
    ReportRow,
)
from rpa_mcp.validation.model import CropPolicy
from rpa_mcp.vision.ocr import OcrLine


class _Any:
    def __repr__(self) -> str:
        return "ANY"


ANY: Any = _Any()  # "do not check the attempt id" in ReplayStore.update_action


class RunLedger(Protocol):
    """Where the end of a run is recorded for good (the audit chain): its outcome and evidence digest."""

    def replay_ended(
        self, replay_id: str, *, outcome: str, evidence_sha256: str, competence: str, machine_id: str | None
    ) -> None: ...

    def replay_read_back(
        self,
        replay_id: str,
        *,
        outcome: str,
        readback: str,
        evidence_sha256: str,
        competence: str,
        machine_id: str | None,
    ) -> None: ...


class RecordUnreadable(Exception):
    """The record could not be read back: `detail` says why (never a credential); `timed_out` when too slow."""

    def __init__(self, detail: str, *, timed_out: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.timed_out = timed_out


class RecordReader(Protocol):
    """The read-back's second channel: GET `url` and return its JSON answer.

    Raises `RecordUnreadable` on anything else (an HTTP error status, not JSON, unreachable, or no
    answer within `timeout_s`). The adapter adds the credentials; the domain never sees them.
    """

    def get_json(self, url: str, *, timeout_s: float) -> Any: ...


class Background(Protocol):
    """Runs a job away from the caller (the report path, the event loop); its errors are the job's own."""

    def submit(self, job: Callable[[], None]) -> None: ...


class ReplayStore(Protocol):
    """Persistence of replays; every update_* is a compare-and-set that returns whether it won."""

    def atomic(self) -> AbstractContextManager[None]: ...
    def lock_machine(self, machine_id: str) -> None: ...
    def insert_replay(self, row: ReplayRow, actions: Sequence[ActionRow]) -> None: ...
    def insert_action(self, row: ActionRow, *, or_nothing: bool = False) -> bool: ...
    def get_replay(self, replay_id: str) -> ReplayRow | None: ...
    def list_replays(
        self, *, states: Sequence[str] | None = None, limit: int = 100, machines: Collection[str] | None = None
    ) -> list[ReplaySummary]: ...
    def runnable_replays(self, machine_id: str) -> list[ReplaySummary]: ...
    def update_replay(self, replay_id: str, *, expect_states: Sequence[str], now: float, **changes: Any) -> bool: ...
    def get_action(self, replay_id: str, action_id: str) -> ActionRow | None: ...
    def actions(self, replay_id: str) -> list[ActionRow]: ...
    def first_open_action(self, replay_id: str) -> ActionRow | None: ...
    def next_seq_after(self, replay_id: str, seq: float) -> float | None: ...
    def inflight_for_machine(self, machine_id: str) -> list[ActionRow]: ...
    def expired_leases(self, now: float, limit: int = 500) -> list[LeaseRow]: ...
    def update_action(
        self,
        replay_id: str,
        action_id: str,
        *,
        expect_states: Sequence[str],
        expect_attempt: Any,
        now: float,
        **changes: Any,
    ) -> bool: ...
    def abandon_open(self, replay_id: str, *, now: float, outcome: str, keep_inflight: bool) -> int: ...
    def add_attempt(self, row: AttemptRow) -> None: ...
    def get_attempt(self, attempt_id: str) -> AttemptRow | None: ...
    def set_attempt_status(self, attempt_id: str, status: str) -> None: ...
    def purge_attempts(self, replay_id: str) -> int: ...
    def scrub_secrets(self, replay_id: str) -> int: ...
    def count_attempts(self, replay_id: str) -> int: ...
    def add_report(self, row: ReportRow) -> bool: ...
    def has_accepted(self, replay_id: str, action_id: str, attempt_id: str, kind: str) -> bool: ...
    def reports(self, replay_id: str, action_id: str | None = None) -> list[ReportRow]: ...
    def known_action(self, replay_id: str, action_id: str) -> bool: ...
    def set_outcome_once(self, replay_id: str, *, outcome: str, evidence_sha256: str, now: float) -> bool: ...
    def set_readback_once(
        self, replay_id: str, *, result: dict[str, Any], outcome: str, evidence_sha256: str, now: float
    ) -> bool: ...
    def machine_polled(self, machine_id: str, *, now: float) -> None: ...
    def machine_screen(
        self, machine_id: str, *, now: float, window_title: str | None, size: tuple[int, int] | None, png: bytes
    ) -> None: ...
    def get_machine(self, machine_id: str) -> MachineRow | None: ...
    def memory_get(self, machine_id: str, signature: str, key: str) -> MemoryRow | None: ...
    def memory_put(
        self, machine_id: str, signature: str, key: str, *, x: int, y: int, successes: int, failures: int, now: float
    ) -> None: ...


class Verdict(Protocol):
    """What the engine reads of a validator's answer (fields are read by name, enums or strings)."""

    verdict: Any  # "SUCCESS" | "FAILURE" | "UNCERTAIN"
    failure_category: Any  # e.g. "UNEXPECTED_DIALOG", "NO_VISUAL_CHANGE", or None


class ValidatorPort(Protocol):
    """Judges an action's real effect from the screens before and after it (the validation area).

    `target`, `expected` and `observed` are the validation area's `Target`, `Expected` and
    `Observed`; `crops` which verdicts carry evidence crops (`CropPolicy`). It may raise: the
    action is then held for a person as unverified.
    """

    def validate(
        self,
        action_type: str,
        before: np.ndarray,
        after: np.ndarray,
        target: Any = None,
        expected: Any = None,
        observed: Any = None,
        *,
        crops: CropPolicy = "always",
    ) -> Any: ...


class DialogResolverPort(Protocol):
    """Decides what to do with an unexpected dialog on `image`: auto (which button), skip or pause.

    The answer is read by field name: `decision`, `dialog_id`, `button`, `click_at`, `bbox`,
    `buttons`, `reason`, `crop_png_base64` (the dialogs area's `Resolution`).
    """

    def resolve(
        self,
        image: np.ndarray,
        *,
        declared_modals: Any = None,
        window_title: str | None = None,
        process: str | None = None,
        previous: np.ndarray | None = None,
        windows: Sequence[Any] = (),
    ) -> Any: ...


class WakeBus(Protocol):
    """Wake-ups shared by every replica: "something became ready for machine M" (None: any)."""

    def subscribe(self, callback: Callable[[str | None], None]) -> None: ...
    def publish(self, key: str | None) -> None: ...


class Leader(Protocol):
    """Whether this replica is the one that runs the watchdog now (asked before each scan)."""

    def is_leader(self) -> bool: ...


class ChangeNotifier(Protocol):
    """Told when a replay changed, so listeners of `rpa://replays/<id>` hear about it."""

    def resource_updated(self, uri: str) -> None: ...


class TextReader(Protocol):
    """OCR of a small region: the text lines on it (used by extract_text and target resolution)."""

    def read(self, image: np.ndarray) -> list[OcrLine]: ...

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        """Recognition only, for a tight crop that holds one line (a label read again where it was)."""
        ...


class VlmLocator(Protocol):
    """A grounding model: where is `target` on `image`?

    Returns `(x, y, score, method)` in pixels of `image`, or None when it does not see the
    target. Raises `Unavailable` (with what to configure) when no model is configured: the
    resolver records that reason and goes on with the other methods.
    """

    def locate(self, image: np.ndarray, target: dict[str, Any]) -> tuple[int, int, float, str] | None: ...


class ServerActionRunner(Protocol):
    """Runs a server-side action other than extract_text (e.g. `t2a_decision`) and returns its output.

    `params` are the action's parameters, `variables` what earlier server-side actions of the
    replay produced. Raises an `RpaError` whose message a person can act on (e.g. `Unavailable`
    when no model is configured): the replay pauses with reason SERVER_ACTION_FAILED and that
    message. Never called twice for one action.
    """

    def run(self, action_type: str, params: dict[str, Any], variables: dict[str, Any]) -> Any: ...
