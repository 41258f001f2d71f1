"""Wire models of the desktop-agent replay protocol (the contract the agent is written against).

Transport (REST, see docs/replay-wire-contract.md):

    GET  /api/v1/replay/next?machine_id=M&wait=N   -> 200 NextAction | 204 (nothing within N s)
    POST /api/v1/replay/receipt    ReceiptAck       -> ReportAck   (v2: journal RECEIVED)
    POST /api/v1/replay/start      StartAck         -> ReportAck   (v2: journal STARTED; obey `proceed`)
    POST /api/v1/replay/heartbeat  Heartbeat        -> ReportAck   (extends the lease of a long action)
    POST /api/v1/replay/result     ActionResult     -> ReportAck   (journal DONE)

Header `X-Replay-Protocol-Version: 2` on every agent request selects the current protocol.
Without it the agent is a v1 agent: it sends no receipt/start acks, so a missing report for a
non-idempotent action can only be `OUTCOME_UNKNOWN` (the replay pauses for a person).

The REST adapter copies the header into the `protocol_version` field of the operation input
(the agent never sends that field itself). `GET /api/v1/replay/next` answers the `NextAction`
object itself as the body, or `204 No Content` when the output of `replay_next` has
`action = null`.

Fencing: `attempt_id` changes every time the server (re)dispatches an action. A report, ack or
heartbeat naming an older attempt is recorded as `late` and changes nothing. Every field of an
agent request is echoed back from the `NextAction` it received; the agent invents nothing.

This module is pure pydantic: no HTTP, no storage.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = 2  # current; 1 = legacy agent without the header
PROTOCOL_HEADER = "X-Replay-Protocol-Version"
MAX_WAIT_S = 60.0
SCREENSHOT_MAX_CHARS = 22_000_000  # ~16 MiB of image bytes once base64-encoded

ReportStatus = Literal["accepted", "late", "duplicate", "unknown"]
ReplayState = Literal["running", "paused", "completed", "failed", "cancelled"]
SystemDialogKind = Literal["uac", "windows_hello", "smartscreen", "defender", "credential", "other"]


class WireModel(BaseModel):
    """Unknown fields are refused (a typo in an agent must fail loudly, not be ignored)."""

    model_config = ConfigDict(extra="forbid")


# --- server -> agent ----------------------------------------------------------------------
class WireTarget(WireModel):
    """Where to act. `x`/`y` are set when the server already resolved the target on the last
    screenshot it saw; otherwise the agent resolves from `spec` with its own vision cascade
    (and reports where it acted in `ActionResult.actual_position`)."""

    label: str | None = Field(None, description="Visible text of the element (button label, tab name, field).")
    x: int | None = Field(None, description="Screen pixel X to act at, when resolved by the server.")
    y: int | None = Field(None, description="Screen pixel Y to act at, when resolved by the server.")
    method: str | None = Field(None, description="How the server resolved x/y (memory, hybrid_text_direct, ...).")
    score: float | None = Field(None, description="Score of that resolution (0..1).")
    rel_x: float | None = Field(None, description="Recorded position, fraction of the screen width (0..1).")
    rel_y: float | None = Field(None, description="Recorded position, fraction of the screen height (0..1).")
    window_title: str | None = Field(
        None,
        description="Title of the window the action is recorded in ({{*}}: a run's own words). Keys and typed text "
        "go only to it: with another window in front the agent types nothing (WRONG_WINDOW).",
    )
    spec: dict[str, Any] = Field(
        default_factory=dict,
        description="Full target spec from the workflow (anchor crop, resolve_order, bbox), for agent-side "
        "resolution (POST /api/v1/resolve_target).",
    )


class NextAction(WireModel):
    """One action to execute, exactly once. Journal it as RECEIVED (key action_id+attempt_id)
    before anything else; never execute it after `not_after` (server clock — the agent compares
    using `server_now` to correct its own clock skew)."""

    replay_id: str = Field(description="Replay this action belongs to.")
    action_id: str = Field(description="Stable id of the action within the replay (same across resends).")
    attempt_id: str = Field(description="Fencing token of this dispatch; changes on every resend. Echo it back.")
    not_after: float = Field(description="Absolute deadline, epoch seconds on the SERVER clock. Never start after it.")
    server_now: float = Field(description="Server clock (epoch s) when this answer was built, to correct skew.")
    action_type: str = Field(description="click, double_click, right_click, type_text, key_combo, scroll, wait, ...")
    target: WireTarget | None = Field(None, description="Where to act (absent for actions with no target).")
    params: dict[str, Any] = Field(default_factory=dict, description="Action parameters (text to type, keys, ...).")
    protocol_version: int = Field(PROTOCOL_VERSION, description="Protocol the server speaks for this answer.")
    step_index: int = Field(
        0, ge=0, description="The step's number in the workflow, counted from 1 as shown everywhere (0: not given)."
    )
    steps_total: int = Field(0, description="Number of actions in the replay.")
    idempotent: bool = Field(False, description="Safe to execute twice (the server may resend after a start).")
    success_strict: bool = Field(False, description="A click that changes nothing on screen is a failure.")
    resend: int = Field(0, description="0 for the first dispatch, 1.. for resends of the same action.")
    retry_of: str | None = Field(
        None,
        description="Set only when a person answered `retry` to a pause after looking at the screen: the attempt "
        "they saw. This attempt is then executed even though that attempt of the action ran, provided no attempt "
        "this agent received after it ran; an automatic resend never carries it.",
    )
    irreversible: bool = Field(
        False,
        description="The step saves, validates, signs, sends, deletes or dispenses: never click it at its recorded "
        "position alone; when its label or anchor cannot be found, do not execute it (report target_not_resolved).",
    )


class TreeQuestion(WireModel):
    """Carried by the look a replay begins with (`screenshot_evidence`, origin preflight) in
    `params.first_step_tree`: the first step as the agent's accessibility-tree fallback reads it (its action
    type, whether it is irreversible, its target trimmed to the label, the window and the recorded element).
    An agent that knows it answers in the look's `output.first_step_tree` (`TreeAnswer`), only when its own
    fallback would find the control at step time; an agent that does not ignores it (the server then checks
    the screen by OCR alone)."""

    action_type: str = Field(max_length=100, description="The first step's action type.")
    irreversible: bool = Field(False, description="The first step is irreversible (the tree never stands in).")
    target: WireTarget = Field(description="The first step's target: label, window_title, spec.element.")


class TreeAnswer(WireModel):
    """The agent's answer to a `TreeQuestion`, in the look's `output.first_step_tree`: the one showing element
    of the window in front with the recorded name and control type (found: its centre, box and that window's
    title and box), or `found: false` (none, several, another window in front, or a step the fallback never
    stands in for: `reason`)."""

    found: bool = Field(description="The tree names exactly one such element in the step's window, in front.")
    name: str | None = Field(None, max_length=1000, description="The element's name (echo of the question).")
    role: str | None = Field(None, max_length=100, description="The element's control type (echo).")
    point: list[int] | None = Field(None, min_length=2, max_length=2, description="[x, y]: the element's centre.")
    box: list[int] | None = Field(None, min_length=4, max_length=4, description="[x, y, w, h] of the element.")
    window_title: str | None = Field(None, max_length=1000, description="Title of the window in front.")
    window_box: list[int] | None = Field(
        None, min_length=4, max_length=4, description="[x, y, w, h] of the window in front, when known."
    )
    reason: str | None = Field(None, max_length=500, description="Why not found, when found is false.")


# --- agent -> server ----------------------------------------------------------------------
class _AttemptRef(WireModel):
    replay_id: str = Field(description="Echo of NextAction.replay_id.")
    action_id: str = Field(description="Echo of NextAction.action_id.")
    attempt_id: str = Field(description="Echo of NextAction.attempt_id (fencing token).")
    machine_id: str | None = Field(None, description="Machine sending the message (checked when given).")
    protocol_version: int = Field(
        1, description="Filled by the REST adapter from the X-Replay-Protocol-Version header; agents omit it."
    )


class ReceiptAck(_AttemptRef):
    """v2: the action is journaled RECEIVED on the agent (it will not be executed twice)."""


class StartAck(_AttemptRef):
    """v2: the agent is about to inject input (journal STARTED). Send it BEFORE the first input,
    and do not execute when the answer says `proceed=false`."""


class Heartbeat(_AttemptRef):
    """A long action is still running: extends its lease (the orphan deadline)."""

    progress: float | None = Field(None, ge=0.0, le=1.0, description="Fraction done, when known.")
    message: str | None = Field(None, max_length=500, description="Short progress note for the logs.")


class SystemDialog(WireModel):
    """A secure-desktop / OS dialog the agent identified from the process or desktop (not OCR)."""

    kind: SystemDialogKind = Field(description="uac, windows_hello, smartscreen, defender, credential, other.")
    process: str | None = Field(None, max_length=260, description="Owning process (consent.exe, ...).")
    title: str | None = Field(None, max_length=500, description="Window title, when readable.")


class ActionResult(_AttemptRef):
    """The outcome of one attempt. Screenshots let the server verify the real effect: a result
    without them can never be counted as a verified success."""

    success: bool = Field(description="The agent's own claim: the input was delivered without error.")
    error: str | None = Field(None, max_length=2000, description="What went wrong, when success=false.")
    error_retryable: bool | None = Field(
        None, description="false: do not retry this action (the replay pauses at once). None: unknown."
    )
    warning: str | None = Field(None, max_length=2000, description="Something odd but not failing.")
    actual_position: list[int] | None = Field(
        None, min_length=2, max_length=2, description="[x, y] where the agent actually acted (screen pixels)."
    )
    screenshot_before: str | None = Field(
        None, max_length=SCREENSHOT_MAX_CHARS, description="Base64 PNG/JPEG of the screen before the action."
    )
    screenshot_after: str | None = Field(
        None, max_length=SCREENSHOT_MAX_CHARS, description="Base64 PNG/JPEG of the screen after the action."
    )
    window_title: str | None = Field(None, max_length=1000, description="Foreground window title after the action.")
    window_title_before: str | None = Field(None, max_length=1000, description="Foreground window title before.")
    process_after: str | None = Field(None, max_length=260, description="Foreground process after the action.")
    output: Any = Field(None, description="Action output when the action produces one (extracted text, ...).")
    human_takeover: bool = Field(
        False, description="The person touched the mouse/keyboard during the replay: the replay pauses."
    )
    system_dialog: SystemDialog | None = Field(
        None, description="An OS/secure-desktop dialog is up: the replay pauses, no input is injected."
    )
    executed: bool = Field(
        True, description="false: the agent did NOT inject any input for this attempt (expired, refused)."
    )
    duration_ms: int | None = Field(None, ge=0, description="How long the execution took on the agent.")
    phases_ms: dict[str, float] | None = Field(
        None,
        description="Milliseconds per phase on the agent (resolve, identity, inject, settle), for the run's "
        "evidence bundle.",
    )


class ReportAck(WireModel):
    """Server answer to receipt/start/heartbeat/result."""

    status: ReportStatus = Field(
        description="accepted | late (older attempt or after a decision: stored, changes nothing) | "
        "duplicate (same message already recorded) | unknown (no such replay/action/attempt)."
    )
    replay_state: ReplayState | None = Field(None, description="State of the replay after this message.")
    proceed: bool = Field(
        True, description="For start acks: false means do NOT execute this attempt (report executed=false)."
    )
    not_after: float | None = Field(None, description="Current deadline of the attempt (epoch s, server clock).")
    reason: str | None = Field(None, description="Why the message was not accepted, when it was not.")


# --- long poll ---------------------------------------------------------------------------
class NextActionRequest(WireModel):
    """Input of GET /api/v1/replay/next (query string)."""

    machine_id: str = Field(min_length=1, max_length=200, description="The polling machine.")
    wait: float = Field(
        25.0, ge=0.0, le=MAX_WAIT_S, description="Long-poll seconds: answer as soon as an action is ready, else 204."
    )
    protocol_version: int = Field(
        1, description="Filled by the REST adapter from the X-Replay-Protocol-Version header; agents omit it."
    )


class NextActionResponse(WireModel):
    """Output of the `replay_next` operation. `GET /api/v1/replay/next` answers `action` itself as the
    body (no envelope), and HTTP 204 No Content when it is null."""

    action: NextAction | None = Field(None, description="The action to execute, or null when none is ready.")


__all__ = [
    "MAX_WAIT_S",
    "PROTOCOL_HEADER",
    "PROTOCOL_VERSION",
    "WIRE_MODELS",
    "ActionResult",
    "Heartbeat",
    "NextAction",
    "NextActionRequest",
    "NextActionResponse",
    "ReceiptAck",
    "ReplayState",
    "ReportAck",
    "ReportStatus",
    "StartAck",
    "SystemDialog",
    "TreeAnswer",
    "TreeQuestion",
    "WireTarget",
    "json_schemas",
]


WIRE_MODELS: dict[str, type[BaseModel]] = {
    "replay-next-action": NextAction,
    "replay-receipt": ReceiptAck,
    "replay-start": StartAck,
    "replay-heartbeat": Heartbeat,
    "replay-result": ActionResult,
    "replay-report-ack": ReportAck,
    "preflight-tree-question": TreeQuestion,
    "preflight-tree-answer": TreeAnswer,
}


def json_schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schemas of the wire models, as published under docs/schemas/ (file name -> schema)."""
    out = {}
    for name, model in WIRE_MODELS.items():
        schema = model.model_json_schema()
        schema["$id"] = f"https://rpa-mcp.local/schemas/{name}.schema.json"
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[f"{name}.schema.json"] = schema
    return out
