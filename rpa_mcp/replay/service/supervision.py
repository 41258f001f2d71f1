"""Supervision: what a report means — transport outcome, the validator's verdict, the dialog policy.

`Supervisor.decide` is pure (no writes): it turns a current-attempt report into a `Decision`
that the report path then applies with one conditional write. A missing or switched-off
collaborator (validator, dialog resolver) makes the replay pause, never guess.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rpa_mcp.dialogs.apps import ReportedWindow
from rpa_mcp.errors import RpaError
from rpa_mcp.replay import model as m
from rpa_mcp.replay.choices import option_expected, state_expected
from rpa_mcp.replay.identity import AMBIGUOUS, MISMATCH, PARTIAL
from rpa_mcp.replay.occlusion import METHOD as OCCLUDED_METHOD
from rpa_mcp.replay.occlusion import OCCLUDED
from rpa_mcp.replay.ports import DialogResolverPort, ValidatorPort
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service.evidence import (
    CLICK_BOX,
    CLICK_LABEL,
    box_to_read,
    button_entry,
    checker_evidence,
    crops_around,
    declared_modals,
    field_of,
    upper_name,
    validator_args,
    verdict_crops,
)
from rpa_mcp.replay.service.later_look import (
    OUTCOME_LOOK,
    TEXT_LOOK,
    TYPING_STEPS,
    WINDOW_LOOK,
    as_step_report,
    decided_by,
    first_crops,
    must_change,
    outcome_coming,
    typed_read,
    window_coming,
)
from rpa_mcp.replay.wire import ActionResult
from rpa_mcp.validation.model import CropPolicy
from rpa_mcp.validation.text import own_window as own_window_named
from rpa_mcp.validation.text import text_begins
from rpa_mcp.vision.images import DecodedFrames, decode_base64, decode_image


@dataclass
class Decision:
    """What to do with an action after a report (computed before the single conditional write)."""

    state: str
    outcome: str | None
    pause: str | None = None
    pause_detail: dict[str, Any] = field(default_factory=dict)
    resend: bool = False
    insert: dict[str, Any] | None = None  # an action to insert right after this one (dialog click)
    # typed text still being drawn, or a window not shown yet: held until a later look judges it (later_look)
    look_again: str | None = None  # TEXT_LOOK, WINDOW_LOOK or OUTCOME_LOOK
    warning: str | None = None
    verdict: dict[str, Any] | None = None
    evidence: list[dict[str, Any]] = field(default_factory=list)


def own_windows(actions: Sequence[ActionRow]) -> list[str]:
    """The titles of the workflow's own windows: each step's expected window before and after (templated)."""
    titles = {
        title
        for x in actions
        for title in (x.expected.get("window_before"), x.expected.get("window_after"))
        if isinstance(title, str) and title.strip()
    }
    return sorted(titles)


PASS_SCORE = 0.5  # a checker's score from which what it looked for counts as found


class Supervisor:
    """Asks the validator and the dialog resolver it was given (unless the config switches them off)."""

    def __init__(
        self,
        config: m.ReplayConfig,
        *,
        validator: ValidatorPort,
        dialogs: DialogResolverPort,
        frames: DecodedFrames | None = None,
    ) -> None:
        self.config = config
        self.validator = validator
        self.dialogs = dialogs
        self.frames = frames  # the screens decoded already (a report's "before" is the screen resolved on)

    def decide(
        self, a: ActionRow, replay: ReplayRow, msg: ActionResult, own_windows: Sequence[str] = ()
    ) -> tuple[Decision, bytes | None]:
        """Pure decision from a current-attempt report (no writes). `own_windows`: the titles of the
        workflow's own windows (`own_windows()`), never taken for a dialog."""
        cancelled = replay.state in m.TERMINAL_REPLAY_STATES
        screen_bytes = screen_after(msg)
        if not msg.executed:
            # No input was injected: safe to dispatch again later (new attempt), it never counts as done.
            if msg.system_dialog is not None:
                return Decision(
                    m.PENDING if not cancelled else m.ABANDONED,
                    "not_executed",
                    pause=m.SYSTEM_DIALOG,
                    pause_detail=_sysdlg(msg),
                ), screen_bytes
            if msg.human_takeover:
                return Decision(
                    m.PENDING if not cancelled else m.ABANDONED, "not_executed", pause=m.HUMAN_TAKEOVER
                ), screen_bytes
            if cancelled:
                return Decision(m.ABANDONED, "not_executed"), screen_bytes
            if a.resends < a.max_resends and msg.error_retryable is not False:
                return Decision(m.PENDING, "not_executed", warning=msg.error), screen_bytes
            return Decision(
                m.ABANDONED,
                "not_executed",
                pause=m.PAUSED_NEED_HELP,
                pause_detail={"error": msg.error or "the agent did not execute the action", **never_clicked(msg.error)},
            ), screen_bytes
        if cancelled:
            # cancel never interrupts an action in flight; its report is recorded when it comes
            return Decision(m.ACKED, "success_after_cancel" if msg.success else "failed_after_cancel"), screen_bytes
        if msg.system_dialog is not None:
            return Decision(m.HELD, "system_dialog", pause=m.SYSTEM_DIALOG, pause_detail=_sysdlg(msg)), screen_bytes
        if not msg.success:
            if msg.error_retryable is False:
                return Decision(
                    m.HELD, "failed", pause=m.PAUSED_NEED_HELP, pause_detail={"error": msg.error, "retryable": False}
                ), screen_bytes
            if a.resends < a.max_resends:
                return Decision(m.PENDING, "failed_retrying", warning=msg.error), screen_bytes
            return Decision(
                m.ABANDONED,
                "failed",
                pause=m.PAUSED_NEED_HELP,
                pause_detail={"error": msg.error, "resends": a.resends},
            ), screen_bytes
        decision = self.verify(a, replay, msg, screen_bytes, own_windows)
        if msg.human_takeover and decision.pause is None:
            decision.pause = m.HUMAN_TAKEOVER
        elif msg.human_takeover:  # what the screen shows may be the person's doing (their window in front)
            decision.pause_detail = {**decision.pause_detail, "human_takeover": True}
        return decision, screen_bytes

    # --- verification (supervision loop) --------------------------------------------------------
    def verify(
        self,
        a: ActionRow,
        replay: ReplayRow,
        msg: ActionResult,
        after_bytes: bytes | None,
        own_windows: Sequence[str] = (),
        *,
        may_look_again: bool = True,
    ) -> Decision:
        if not self.config.validator_enabled:
            return _unverified(
                a,
                msg,
                "validator switched off",
                "the validator is switched off (RPA_VALIDATOR_V2_ENABLED=false): nothing verified the action's effect",
            )
        if not (msg.screenshot_before and after_bytes):
            return _unverified(a, msg, "no screenshots", "the agent sent no before/after screenshots")
        try:
            before = decode_image(
                decode_base64(msg.screenshot_before, field="screenshot_before"),
                max_pixels=self.config.max_image_pixels,
                field="screenshot_before",
                cache=self.frames,
            )
            after = decode_image(
                after_bytes, max_pixels=self.config.max_image_pixels, field="screenshot_after", cache=self.frames
            )
        except RpaError as exc:
            return _held_unverified(exc.message)
        target = a.target if isinstance(a.target, dict) else {}
        point = msg.actual_position
        bbox = box_to_read(a.action_type, target, point, (after.shape[1], after.shape[0]))
        typed = a.action_type in ("type_text", "extract_text") and not a.params.get("secret")
        expected_text = a.params.get("text") if typed else option_expected(a.action_type, a.params)  # no secret
        vt, ve, vo = validator_args(
            label=target.get("label") or target.get("by_text"),
            bbox=bbox,
            point=(point[0], point[1]) if point else None,  # [x, y]: the wire model holds exactly 2
            after_shape=after.shape,
            window_title=a.expected.get("window_after"),
            text=expected_text if expected_text is not None else a.expected.get("text"),  # a toast seen
            observed={
                "window_title_before": msg.window_title_before,
                "window_title_after": msg.window_title,
                "process_after": msg.process_after,
            },
            recorded=target,
            outcome=a.expected.get("outcome"),  # the post-condition the demonstration showed
            own_windows=own_windows,
        )
        ve = state_expected(a.action_type, a.params, ve, msg.output)  # set_checked: the state read after
        warned_no_change = (msg.warning or "").lower() == "no_screen_change"
        try:
            # a success is shown by the crop around the click alone, unless the agent saw no change
            policy: CropPolicy = "always" if warned_no_change else "unless_success"
            verdict = self.validator.validate(a.action_type, before, after, vt, ve, vo, crops=policy)
        except Exception as exc:
            reason = exc.message if isinstance(exc, RpaError) else repr(exc)
            _log_attempt("verify_error", a, msg, error=reason)
            return _held_unverified(f"validator: {reason}")
        kind = upper_name(field_of(verdict, "verdict"))
        category = upper_name(field_of(verdict, "failure_category"))
        vdict = {
            "verdict": kind,
            "failure_category": category,
            "confidence": field_of(verdict, "confidence"),
            "reason": field_of(verdict, "reason"),
            "rule": field_of(verdict, "rule") or None,
            "evidence": checker_evidence(field_of(verdict, "evidence")),
        }
        _log_attempt(
            "verify", a, msg, agent_success=True, final=kind, failure_category=category, checkers=vdict["evidence"]
        )
        no_change = category == "NO_VISUAL_CHANGE" or warned_no_change
        clicked = crops_around(after, point, None, box_size=CLICK_BOX, label=CLICK_LABEL) if point else []
        if kind == "SUCCESS" and not no_change:
            return Decision(m.ACKED, "success", verdict=vdict, evidence=clicked)
        crops = (verdict_crops(verdict) or crops_around(after, point, bbox)) + clicked
        late = "NO_VISUAL_CHANGE" if no_change and category is None else category
        if may_look_again and window_coming(a, late, msg.window_title_before, msg.window_title):  # a slow window
            return Decision(m.HELD, m.AWAITING_LATER_LOOK, verdict=vdict, evidence=crops, look_again=WINDOW_LOOK)
        if (no_change and kind != "FAILURE") or category == "NO_VISUAL_CHANGE":
            # text typed that the screen never showed went nowhere a person sees: never gone on from: the run
            # pauses.
            typed_unseen = (
                category == "NO_VISUAL_CHANGE" and typed and bool(a.params.get("text")) and not _read_back(vdict)
            )
            if typed_unseen and may_look_again and _still_drawing(a, category, vdict):  # busy, drawing it later
                return Decision(m.HELD, m.AWAITING_LATER_LOOK, verdict=vdict, evidence=crops, look_again=TEXT_LOOK)
            # what the demonstration showed appear after the step proves it, and an irreversible step (a save)
            # that shows nothing may have done nothing: nothing changed is never their success
            unproved = kind != "SUCCESS" and must_change(a)
            if unproved and may_look_again:  # a server answering seconds later: one look at the screen first
                return Decision(m.HELD, m.AWAITING_LATER_LOOK, verdict=vdict, evidence=crops, look_again=OUTCOME_LOOK)
            if not a.success_strict and not typed_unseen and not unproved:
                return Decision(
                    m.ACKED, "success_with_warning", warning="no_screen_change", verdict=vdict, evidence=clicked
                )
            # sent again only when doing it twice is harmless: the agent never runs an action's input twice
            # otherwise (it would answer OUTCOME_UNKNOWN), and a click that showed nothing may still have acted
            if a.resends < a.max_resends and a.idempotent:
                return Decision(
                    m.PENDING, "no_change_retrying", warning="no_screen_change", verdict=vdict, evidence=crops
                )
            return _held_failed(vdict, crops, {"failure_category": "NO_VISUAL_CHANGE", "strict": True})
        if kind == "FAILURE" and category == "UNEXPECTED_DIALOG":
            return self._dialog(a, msg, before, after, vdict, crops, own_windows)
        if kind == "FAILURE" and may_look_again and _still_drawing(a, category, vdict):
            return Decision(m.HELD, m.AWAITING_LATER_LOOK, verdict=vdict, evidence=crops, look_again=TEXT_LOOK)
        if kind == "FAILURE" and may_look_again and outcome_coming(a, category, vdict["rule"]):
            return Decision(m.HELD, m.AWAITING_LATER_LOOK, verdict=vdict, evidence=crops, look_again=OUTCOME_LOOK)
        if kind == "FAILURE":
            return _held_failed(vdict, crops, {"failure_category": category, "agent_claimed_success": True})
        return Decision(
            m.HELD,
            "uncertain",
            pause=m.UNVERIFIED,
            verdict=vdict,
            evidence=crops,
            pause_detail={"why": "the validator is not sure", "verdict": kind},
        )

    def _dialog(
        self,
        a: ActionRow,
        msg: ActionResult,
        before: np.ndarray,
        after: np.ndarray,
        vdict: dict[str, Any],
        crops: list[dict[str, Any]],
        own_windows: Sequence[str] = (),
    ) -> Decision:
        if not self.config.dialog_resolver_enabled:
            return _held_for_dialog(
                vdict, crops, {"why": "the dialog resolver is switched off (RPA_DIALOG_RESOLVER_ENABLED=false)"}
            )
        # The foreground window's title/process identify the dialog only when the dialog is its own window
        # (the foreground changed during the action). An in-page modal leaves the browser in front: its
        # title and process say "msedge.exe", not which dialog is up, so the resolver goes by the pixels.
        own_window = msg.window_title_before is None or msg.window_title != msg.window_title_before
        if own_window and own_window_named(msg.window_title, own_windows):
            own_window = False  # the workflow's own window came in front: it names no dialog, the pixels decide
        try:
            res = self.dialogs.resolve(
                after,
                declared_modals=declared_modals(a.expected.get("expected_modals")),
                window_title=msg.window_title if own_window else None,
                process=msg.process_after if own_window else None,
                previous=before,
                # the focused window always confirms which application shows the dialog (never names it)
                windows=[ReportedWindow(msg.window_title, msg.process_after)],
            )
        except Exception as exc:
            return _held_for_dialog(vdict, crops, {"why": f"dialog resolver error: {exc}"})
        decision = str(upper_name(field_of(res, "decision")) or "PAUSE").lower()
        dialog_id = field_of(res, "dialog_id")
        cls = field_of(res, "classification")
        bbox = field_of(res, "bbox") or field_of(cls, "bbox")
        button = field_of(res, "button")
        label = field_of(button, "label", button) if button is not None else None
        click_at = field_of(res, "click_at")
        buttons = field_of(res, "buttons") or field_of(cls, "buttons") or []
        detail = {
            "dialog_id": dialog_id,
            "decision": decision,
            "reason": field_of(res, "reason"),
            "buttons": [field_of(b, "label", b) for b in buttons] or None,
            "button_points": [button_entry(b) for b in buttons if field_of(b, "bbox")] or None,
        }
        crop_b64 = field_of(res, "crop_png_base64")
        if crop_b64:
            dcrops = [
                {
                    "label": f"dialog {dialog_id}",
                    "bbox": list(bbox) if bbox else None,
                    "mime_type": "image/png",
                    "data_base64": crop_b64,
                }
            ]
        else:
            dcrops = crops_around(after, None, bbox) if bbox else crops
        _log_attempt("dialog", a, msg, dialog_id=dialog_id, decision=decision, button=label, click_at=click_at)
        vdict = {**vdict, "dialog": detail}
        if decision == "auto" and click_at:
            insert = {
                "action_id": f"{a.action_id}-dlg{secrets.token_hex(2)}",
                "intent": f"Answer dialog {dialog_id}",
                "action_type": "dialog_button",
                "target": {
                    "label": label,
                    "x": int(click_at[0]),
                    "y": int(click_at[1]),
                    "method": "dialog_resolver",
                    "dialog_id": dialog_id,
                },
                "params": {},
                "expected": {"expected_modals": []},
                "idempotent": 0,
                "success_strict": 0,
                "server_side": 0,
                "max_resends": self.config.max_resends,
                "origin": "dialog",
            }
            return Decision(m.ACKED, "success_dialog_auto", verdict=vdict, insert=insert, evidence=dcrops)
        if decision == "skip":
            return Decision(
                m.ACKED,
                "success_dialog_skipped",
                warning=f"dialog {dialog_id} left open (skip policy)",
                verdict=vdict,
                evidence=dcrops,
            )
        return _held_for_dialog(vdict, dcrops, detail)

    def judge_later(
        self, look: ActionRow, typed: ActionRow, replay: ReplayRow, msg: ActionResult, own_windows: Sequence[str] = ()
    ) -> tuple[Decision, bytes | None, Decision | None, ActionResult]:
        """A later look's report (`later_look`): the look's own decision (done, never a pause of its own), the
        screen it sent, the held step's decision judged on that screen (None when the run was cancelled),
        and the report as the held step's."""
        as_typed = as_step_report(msg, typed)
        if replay.state in m.TERMINAL_REPLAY_STATES:
            decision, screen = self.decide(look, replay, msg, own_windows)
            return decision, screen, None, as_typed
        screen = screen_after(msg)
        seen = msg.executed and msg.success and msg.system_dialog is None and bool(screen and typed.screen_before)
        if not seen:  # the look was not taken: the step's first judgement stands, as it would have without it
            look_decision = Decision(m.ACKED if msg.executed else m.ABANDONED, "not_seen", warning=msg.error)
            verdict = dict(typed.verdict or {})
            verdict["later_look"] = decided_by(look, msg, typed, seen=False)
            detail = {"failure_category": verdict.get("failure_category"), "agent_claimed_success": True}
            if msg.system_dialog is not None:
                detail |= _sysdlg(msg)
            held = _held_failed(verdict, list(typed.evidence or []), detail)
            return look_decision, screen, held, as_typed
        judged = self.verify(typed, replay, as_typed, screen, own_windows, may_look_again=False)
        if judged.state == m.PENDING:  # the input is never sent again from a look: a person decides
            judged = _held_failed(
                judged.verdict or {}, judged.evidence, {"failure_category": "NO_VISUAL_CHANGE", "later_look": True}
            )
        if msg.human_takeover and judged.pause is None:
            judged.pause = m.HUMAN_TAKEOVER
        elif msg.human_takeover:
            judged.pause_detail = {**judged.pause_detail, "human_takeover": True}
        judged.verdict = {**(judged.verdict or {}), "later_look": decided_by(look, msg, typed, seen=True)}
        judged.evidence = judged.evidence + first_crops(typed)
        return Decision(m.ACKED, "seen"), screen, judged, as_typed


def screen_after(msg: ActionResult) -> bytes | None:
    """The report's screenshot after, decoded; None when it has none or it does not decode."""
    if not msg.screenshot_after:
        return None
    try:
        return decode_base64(msg.screenshot_after, field="screenshot_after")
    except RpaError:
        return None


def _still_drawing(a: ActionRow, category: str | None, vdict: dict[str, Any]) -> bool:
    """A typing step's text check failed only because the field shows none of the text yet or its first
    characters, not all of them (an application busy when the keys came draws them later); a wrong or an
    extra character is no text still being drawn."""
    text = a.params.get("text")
    if a.action_type not in TYPING_STEPS or a.params.get("secret") or not isinstance(text, str):
        return False
    if category == "NO_VISUAL_CHANGE":
        return True
    read = typed_read(vdict)
    return category == "TEXT_MISMATCH" and (read is None or not read.strip() or text_begins(read, text))


def never_clicked(error: str | None) -> dict[str, Any]:
    """A record whose identity did not match or that more than one row reads, or a target another window
    covers, was never clicked: say so, with the category."""
    if error and (OCCLUDED in error or OCCLUDED_METHOD in error):
        return {"failure_category": OCCLUDED, "executed": False, "why": "another window covers the target"}
    if error and AMBIGUOUS in error:
        return {"failure_category": AMBIGUOUS, "executed": False, "why": "more than one row reads the record"}
    if error and PARTIAL in error:
        return {"failure_category": PARTIAL, "executed": False, "why": "the run's values name the record only in part"}
    if not error or MISMATCH not in error:
        return {}
    return {"failure_category": MISMATCH, "executed": False, "why": "the record at the target is not the one chosen"}


def _sysdlg(msg: ActionResult) -> dict[str, Any]:
    assert msg.system_dialog is not None
    return {
        "system_dialog": msg.system_dialog.model_dump(exclude_none=True),
        "why": "system dialogs are never answered automatically; no input was injected",
    }


def _unverified(a: ActionRow, msg: ActionResult, reason: str, why: str) -> Decision:
    """Nothing could verify the action: hold it for a person (never a success)."""
    _log_attempt("verify", a, msg, agent_success=True, final="UNVERIFIED", reason=reason)
    return _held_unverified(why)


def _held_unverified(why: str) -> Decision:
    """The action's effect could not be checked: hold it for a person."""
    return Decision(m.HELD, "unverified", pause=m.UNVERIFIED, pause_detail={"why": why})


def _held_failed(vdict: dict[str, Any], crops: list[dict[str, Any]], detail: dict[str, Any]) -> Decision:
    """The validator saw the action fail: hold it for a person."""
    return Decision(m.HELD, "failed", pause=m.VALIDATION_FAILED, verdict=vdict, evidence=crops, pause_detail=detail)


def _held_for_dialog(vdict: dict[str, Any], crops: list[dict[str, Any]], detail: dict[str, Any]) -> Decision:
    """An unexpected dialog is up and nothing answered it: hold the action for a person."""
    return Decision(m.HELD, "dialog", pause=m.UNEXPECTED_DIALOG, verdict=vdict, evidence=crops, pause_detail=detail)


def _log_attempt(event: str, a: ActionRow, msg: ActionResult, **fields: Any) -> None:
    """One decision log line about this attempt of action `a`."""
    m.log_event(event, replay_id=a.replay_id, action_id=a.action_id, attempt_id=msg.attempt_id, **fields)


def _read_back(vdict: dict[str, Any]) -> bool:
    """The typed text was read back in its field (it may have held it already: nothing changed)."""
    return any(
        isinstance(e, dict) and e.get("read") and (e.get("score") or 0) >= PASS_SCORE
        for e in vdict.get("evidence") or []
    )
