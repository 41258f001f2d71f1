"""ShadowService: events in, steps with intents out, corrections, workflow IR (docs/concepts/shadow.md).

Sessions and machines register on their first event. Every accepted event is stored
with the observer's state in one transaction before the caller is answered, so a restart
(a new service over the same database) resumes the understanding exactly. OCR of the
region around a click is done lazily, the first time the understanding is read, so the
agent's stream is never held up by it.

Typing into a password field is masked before the event is stored (`rpa_mcp.shadow.masking`):
the observer only remembers whether the focus is in a secret field (its label), never what
was typed there.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from rpa_mcp.clock import Clock
from rpa_mcp.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from rpa_mcp.shadow.calibration import Calibration
from rpa_mcp.shadow.click_facts import ClickFacts
from rpa_mcp.shadow.elements import app_key, is_option
from rpa_mcp.shadow.events import CLICK_TYPES, TraceEvent, normalize_locale, parse_events
from rpa_mcp.shadow.feedback import FeedbackRejected, apply_feedback
from rpa_mcp.shadow.ir import build_ir
from rpa_mcp.shadow.language import vote
from rpa_mcp.shadow.masking import mask_event
from rpa_mcp.shadow.observer import ObserverState
from rpa_mcp.shadow.ports import TraceRepository
from rpa_mcp.shadow.retarget import retarget_spec
from rpa_mcp.shadow.screens import StoredScreens
from rpa_mcp.shadow.segmenter import IDLE_GAP_S, place
from rpa_mcp.shadow.shots import SCREENSHOT_URI, BatchShots, Shot
from rpa_mcp.shadow.understood import UnderstoodSteps
from rpa_mcp.vision.budget import FrameCache
from rpa_mcp.vision.images import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_PIXELS,
)
from rpa_mcp.vision.ocr import OcrEngine

logger = logging.getLogger(__name__)

MAX_NOTIFICATIONS = 100
NO_SESSION = "no active session — do something on the workstation first so I can see it"


class ShadowService:
    def __init__(
        self,
        traces: TraceRepository,
        ocr: OcrEngine,
        clock: Clock,
        *,
        notify: Callable[[str], None] | None = None,
        max_pixels: int = DEFAULT_MAX_PIXELS,
        max_image_bytes: int = DEFAULT_MAX_BYTES,
        idle_gap_s: float = IDLE_GAP_S,
        default_locale: str = "en",
        calibration: Calibration | None = None,
        frames: FrameCache | None = None,
        max_request_pixels: int | None = None,
    ) -> None:
        self.traces, self.ocr, self.clock = traces, ocr, clock
        self.calibration = calibration if calibration is not None else Calibration()
        self._notify = notify
        self.max_pixels, self.max_image_bytes = max_pixels, max_image_bytes
        self.idle_gap_s, self.default_locale = idle_gap_s, default_locale
        self._lock = threading.RLock()
        self._states: dict[str, ObserverState] = {}
        # decoded screenshots by id, under the byte budget shared by every session (and the server)
        self.frames = frames if frames is not None else FrameCache(4 * DEFAULT_MAX_PIXELS * 3)
        self.max_request_pixels = max_request_pixels or 2 * max_pixels
        self.shots = BatchShots(traces, max_pixels, max_image_bytes, self.max_request_pixels)
        self.clicks = ClickFacts(traces, ocr, self.frames, max_pixels=max_pixels)
        self.understood = UnderstoodSteps(traces, ocr, self.calibration, max_pixels=max_pixels, locale=default_locale)
        self._revs: dict[str, int] = {}  # the store's save count of each cached state

    # --- ingestion -----------------------------------------------------------------------
    def ingest(self, raw: Sequence[Any], *, prefix: str = "events") -> dict[str, Any]:
        """Validate, store and observe a batch (all or nothing)."""
        events = parse_events(raw, prefix=prefix)
        shots = self.shots.decode(events, prefix)
        now = self.clock.now()
        touched: dict[str, dict[str, Any]] = {}
        accepted = duplicates = 0
        with self._lock:
            sids = {ev.session_id for ev in events}
            try:
                with self.traces.transaction():
                    for sid in sorted(sids):  # other replicas ingesting for these sessions wait for this batch
                        self.traces.lock_session(sid)
                        self._state(sid)  # drops a cached state another replica has changed since
                    for ev, shot in zip(events, shots, strict=True):
                        info = touched.setdefault(
                            ev.session_id,
                            {
                                "session_id": ev.session_id,
                                "machine_id": ev.machine_id,
                                "new_session": False,
                                "accepted": 0,
                                "steps_changed": False,
                            },
                        )
                        if self.traces.touch_session(ev.session_id, ev.machine_id, now=now, locale=None):
                            info["new_session"] = True
                        stored = self._store_and_observe(ev, shot, now, info)
                        accepted += stored
                        duplicates += 1 - stored
                    for sid, info in touched.items():
                        if "segments_from" not in info:  # only duplicates: the observer did not change
                            continue
                        # place() only changes the last segment and appends: rewrite from there on
                        self._save(sid, self._states[sid], now, segments_from=info["segments_from"])
            except BaseException:
                for sid in sids:  # the transaction rolled back: reload what is on disk when next needed
                    self._forget(sid)
                raise
        for sid, info in touched.items():
            info.pop("segments_from", None)
            if info.pop("steps_changed"):
                self._changed(sid)
            with self._lock:
                state = self._state(sid, create=True)  # loaded here when the batch held only duplicates
            assert state is not None
            info["observing"] = state.observing
        return {"accepted": accepted, "duplicates": duplicates, "sessions": list(touched.values())}

    def _store_and_observe(self, ev: TraceEvent, shot: Shot | None, now: float, info: dict[str, Any]) -> int:
        sid = ev.session_id
        if ev.event_id is not None and self._seen(sid, ev.event_id):
            return 0
        state = self._state(sid, create=True, check=False)
        assert state is not None
        if "segments_from" not in info:  # what is on disk is what this batch starts from
            info["segments_from"] = max(len(state.segments) - 1, 0)
        ctx = state.ctx
        window_changed = ev.type == "focus" and (
            (ev.window_title or ctx.window) != ctx.window or (ev.app or ctx.app) != ctx.app
        )
        ev, state.secret_field = mask_event(ev, state.secret_field, window_changed=window_changed)  # before storing
        locale = normalize_locale(ev.locale)
        if locale and locale != state.locale:
            state.locale = locale
            self.traces.set_session_locale(sid, locale)
        if ev.window_title and ev.window_title != ctx.window:
            vote(ev.window_title, state.ui_votes)
        if ev.element is not None and ev.element.name:
            vote(ev.element.name, state.ui_votes)
        data = ev.model_dump(mode="json", exclude_none=True, exclude={"screenshot"})
        own_shot = None
        if shot is not None:
            h, w = shot.image.shape[:2]
            own_shot = self.traces.put_screenshot(
                shot.data, session_id=sid, kind="frame", mime=shot.mime, width=w, height=h, now=now
            )
            self.frames.put(own_shot, shot.image)
            data["screenshot_ref"] = SCREENSHOT_URI + own_shot
        elif ev.screenshot_ref is not None:
            own_shot = ev.screenshot_ref.removeprefix(SCREENSHOT_URI)
        facts: dict[str, Any] = {"wb": state.ctx.window}
        if ev.type == "focus" and ev.app:
            facts["new_app"] = app_key(ev.app) not in state.ctx.apps_seen
        if ev.type in CLICK_TYPES or (ev.type == "scroll" and ev.x is not None):
            facts |= self.clicks.facts(sid, ev, own_shot or state.last_shot, now)
        if own_shot is not None:
            state.last_shot = own_shot
        idx = self.traces.append_event(sid, data, ts=ev.ts, type=ev.type, event_id=ev.event_id, facts=facts, now=now)
        if idx is None:
            return 0
        info["accepted"] += 1
        if state.mode == "idle":
            state.mode, state.start_idx = "auto", idx
        state.cursor = idx + 1
        if state.observing and not state.cancelled:
            before = len(state.segments)
            seg, changed = place(
                state.segments, state.ctx, idx, ev, now=now, idle_gap_s=self.idle_gap_s, shot=state.last_shot
            )
            info["segments_from"] = min(info["segments_from"], changed)
            if seg is not None:
                if (
                    facts.get("ocr_pending")
                    or facts.get("label_pending")
                    or (seg.choice == idx and facts.get("anchor"))
                ):
                    state.ocr_pending.append(idx)  # a drop-down's option is named by what the list showed
                if len(state.segments) > before:
                    self._notice(
                        state,
                        now,
                        "step_started",
                        f"step {len(state.segments)} started ({ev.type})",
                        len(state.segments),
                    )
                state.version += 1
                info["steps_changed"] = True
        else:
            place([], state.ctx, idx, ev, now=now)  # keep the window context current
        return 1

    def _seen(self, sid: str, event_id: str) -> bool:
        return self.traces.has_event(sid, event_id)

    # --- observer lifecycle --------------------------------------------------------------
    def resolve_session(self, session_id: str | None, *, prefer_observing: bool = False) -> str:
        """The given session, or the active session of the only machine that has one."""
        if session_id is not None:
            if self.traces.get_session(session_id) is None:
                raise NotFound(
                    f"I can't find session {session_id!r}: the workstation has sent nothing for it. "
                    "Do something on the workstation first so I can see it.",
                    session_id=session_id,
                )
            return session_id
        machines = [m for m in self.traces.list_machines() if m.get("active_session_id")]
        if prefer_observing:
            watched = [m for m in machines if (st := self._state(m["active_session_id"])) and st.observing]
            if len(watched) == 1:
                return str(watched[0]["active_session_id"])
        if not machines:
            raise PreconditionFailed(NO_SESSION)
        if len(machines) > 1:
            listing = ", ".join(f"{m['machine_id']} (session {m['active_session_id']})" for m in machines)
            raise InvalidInput(
                f"several machines are connected: {listing} — ask the person which one, then pass its session_id",
                field="session_id",
                machines=[
                    {
                        "machine_id": m["machine_id"],
                        "active_session_id": m["active_session_id"],
                        "last_seen": m["last_seen"],
                    }
                    for m in machines
                ],
            )
        return str(machines[0]["active_session_id"])

    def start(self, session_id: str | None = None, language: str | None = None) -> dict[str, Any]:
        """Observe a session; `language` (fr/en) chooses the language of the intents."""
        chosen = normalize_locale(language) if language else None
        if language and chosen is None:
            raise InvalidInput(f"language {language!r} is not supported: use 'fr' or 'en'", field="language")
        sid = self.resolve_session(session_id)
        with self._lock:
            state = self._state(sid, create=True)
            assert state is not None
            if state.mode == "observing":
                if chosen and chosen != state.language:
                    state.language, state.version = chosen, state.version + 1
                    self._put(sid, state, self.clock.now())
                return {
                    "status": "already_observing",
                    "session_id": sid,
                    "message": "I am already observing this session; nothing was reset.",
                }
            now = self.clock.now()
            fresh = self._fresh(sid, state, "observing")
            fresh.language = chosen or state.language
            self._notice(fresh, now, "started", "observation started")
            self._put(sid, fresh, now)
        self._changed(sid)
        return {
            "status": "shadow_started",
            "session_id": sid,
            "message": "I am observing: do the task on the workstation, then tell me when you are done.",
        }

    def stop(self, session_id: str | None = None) -> dict[str, Any]:
        sid = self.resolve_session(session_id, prefer_observing=True)
        with self._lock:
            state = self._state(sid)
            if state is None or not state.observing:
                raise Conflict(
                    f"I was not observing session {sid}: there is nothing to stop.",
                    session_id=sid,
                    reason="not_observing",
                )
            now = self.clock.now()
            if state.segments:
                state.segments[-1].closed = True
            state.mode = "stopped"
            state.version += 1
            self._notice(state, now, "stopped", f"observation stopped with {len(state.segments)} step(s)")
            self._put(sid, state, now)
            steps = self._understood(sid, state)
        self._changed(sid)
        return {"status": "shadow_stopped", "session_id": sid, "steps_count": len(steps), "understanding": steps}

    def _fresh(self, sid: str, state: ObserverState, mode: str) -> ObserverState:
        """An empty understanding that starts after the events stored so far (context and focus kept)."""
        count = int((self.traces.get_session(sid) or {}).get("events", 0))
        state.ctx.trip = None  # a trip's step positions belong to the understanding being replaced
        return ObserverState(
            mode=mode,
            start_idx=count,
            cursor=count,
            ctx=state.ctx,
            locale=state.locale,
            last_shot=state.last_shot,
            version=state.version + 1,
            secret_field=state.secret_field,
            ui_votes=dict(state.ui_votes),
        )

    def reset(self, session_id: str) -> None:
        """Forget the understanding (after persisting it); the next event starts afresh."""
        with self._lock:
            state = self._require(session_id)
            self._put(session_id, self._fresh(session_id, state, "idle"), self.clock.now())
        self._changed(session_id)

    # --- reading -------------------------------------------------------------------------
    def understanding(self, session_id: str, since_ts: float | None = None) -> dict[str, Any]:
        with self._lock:
            state = self._require(session_id)
            steps = self._understood(session_id, state)
            notes = state.notifications
            summary = self.understood.review(session_id, steps)
        current = None
        if state.observing and state.segments and not state.segments[-1].closed and steps:
            current = steps[-1]
        if since_ts is not None:
            steps = [s for s in steps if s["updated_at"] >= since_ts]
            notes = [n for n in notes if n["ts"] >= since_ts]
        return {
            "session_id": session_id,
            "mode": state.mode,
            "observing": state.observing,
            "cancelled": state.cancelled,
            "locale": self.understood.locale(session_id, state),
            "steps": steps,
            "current_step": current,
            "notifications": list(notes),
            "review": summary,
            "server_time": self.clock.now(),
        }

    def events(self, session_id: str, start: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        if self.traces.get_session(session_id) is None:
            raise NotFound(f"no session {session_id!r}", session_id=session_id)
        return [{"idx": e["idx"], **e["event"]} for e in self.traces.events(session_id, start, start + limit)]

    def history(self, session_id: str) -> list[dict[str, Any]]:
        return self.traces.feedback_history(session_id)

    def list_machines(self) -> list[dict[str, Any]]:
        return self.traces.list_machines()

    async def list_machines_async(self) -> list[dict[str, Any]]:
        """`list_machines` without leaving the event loop when the store can answer at once."""
        return await self.traces.list_machines_async()

    def list_sessions(self, machine_id: str | None = None, active_only: bool = True) -> list[dict[str, Any]]:
        return self.traces.list_sessions(machine_id, active_only)

    # --- feedback and build ----------------------------------------------------------------
    def feedback(
        self,
        session_id: str,
        action: str,
        *,
        step_index: int | None = None,
        new_intent: str | None = None,
        at_event_index: int | None = None,
        name: str | None = None,
        description: str | None = None,
        step_class: str | None = None,
        uncheckable: bool | None = None,
        outcome_text: str | None = None,
        outcome_kind: str | None = None,
        target_label: str | None = None,
        target_point: tuple[int, int] | None = None,
        value: str | None = None,
        checked: bool | None = None,
    ) -> dict[str, Any]:
        args = {
            "step_index": step_index,
            "new_intent": new_intent,
            "at_event_index": at_event_index,
            "name": name,
            "description": description,
            "step_class": step_class,
            "uncheckable": uncheckable,
            "outcome_text": outcome_text,
            "outcome_kind": outcome_kind,
            "target_label": target_label,
            "target_point": list(target_point) if target_point else None,
            "value": value,
            "checked": checked,
        }
        args = {k: v for k, v in args.items() if v is not None}
        with self._lock:
            state = self._require(session_id)
            now = self.clock.now()
            try:
                if state.cancelled:
                    raise FeedbackRejected("this observation was cancelled: start a new one to teach the task again")
                types = None
                if action in ("merge_next", "split"):
                    types = {e["idx"]: e["event"]["type"] for e in self.traces.events(session_id, state.start_idx)}
                steps = self._understood(session_id, state) if action in ("parameterize", "set_value") else None
                target = None
                if action == "retarget":
                    target = self._retarget(session_id, state, step_index, target_label, target_point)
                segments, summary = apply_feedback(
                    state.segments,
                    action,
                    step_index=step_index,
                    new_intent=new_intent,
                    at_event_index=at_event_index,
                    name=name,
                    description=description,
                    steps=steps,
                    event_types=types,
                    now=now,
                    step_class=step_class,
                    uncheckable=uncheckable,
                    outcome_text=outcome_text,
                    outcome_kind=outcome_kind,
                    target=target,
                    value=value,
                    checked=checked,
                )
            except FeedbackRejected as rejected:
                self.traces.add_feedback(
                    session_id,
                    {"action": action, "args": args, "outcome": "rejected", "reason": rejected.reason},
                    now=now,
                )
                return {
                    "status": "feedback_rejected",
                    "session_id": session_id,
                    "reason": rejected.reason,
                    "steps": self._understood(session_id, state),
                }
            state.segments = segments
            state.ctx.trip = None  # the steps a trip would fold are no longer where it saw them
            if action == "cancel":
                state.cancelled, state.mode, state.ocr_pending = True, "stopped", []
            state.version += 1
            self._notice(state, now, "feedback", summary)
            self._put(session_id, state, now)
            self.traces.add_feedback(
                session_id, {"action": action, "args": args, "outcome": "applied", "summary": summary}, now=now
            )
            steps = self._understood(session_id, state)
        self._changed(session_id)
        return {"status": "feedback_applied", "session_id": session_id, "message": summary, "steps": steps}

    def _retarget(
        self,
        sid: str,
        state: ObserverState,
        step_index: int | None,
        label: str | None,
        point: tuple[int, int] | None,
    ) -> dict[str, Any] | None:
        """The element a person named for a step, found on the step's screenshot (None: arguments missing,
        refused by `apply_feedback`)."""
        if step_index is None or (label is None and point is None):
            return None
        if not 1 <= step_index <= len(state.segments):
            count = len(state.segments)
            raise FeedbackRejected(f"step_index {step_index} does not exist: steps are numbered 1 to {count}")
        step = self._understood(sid, state)[step_index - 1]
        shot = (step.get("screenshot") or "").removeprefix(SCREENSHOT_URI)
        if not shot:
            raise FeedbackRejected(f"step {step_index} has no screenshot to find the element on: correct its intent")
        frame = StoredScreens(self.traces, self.ocr, sid, max_pixels=self.max_pixels).frame(shot)
        if frame is None:
            raise FeedbackRejected(f"step {step_index}'s screenshot cannot be read back: correct its intent")
        bbox = step.get("target", {}).get("bbox")
        near = (int(bbox[0] + bbox[2] / 2), int(bbox[1] + bbox[3] / 2)) if bbox else None
        return retarget_spec(frame, self.ocr.read(frame), step_index=step_index, label=label, point=point, near=near)

    def build(
        self, session_id: str, name: str, domain: str = "generic", require_all_validated: bool = False
    ) -> dict[str, Any]:
        name = " ".join(name.split())
        if not name:
            raise InvalidInput("name: give the workflow a name", field="name")
        with self._lock:
            state = self._require(session_id)
            if state.cancelled:
                return {
                    "status": "cancelled",
                    "session_id": session_id,
                    "workflow_ir": None,
                    "message": "the observation was cancelled: there is nothing to build",
                }
            steps = self._understood(session_id, state)
        if not steps:
            raise PreconditionFailed("nothing to build: no step was observed in this session", session_id=session_id)
        reviewed = [s["index"] for s in steps if s["status"] in ("validated", "corrected")]
        if require_all_validated and not reviewed:
            raise PreconditionFailed(
                "cannot build the workflow — no step has been validated yet",
                session_id=session_id,
                reason="nothing_validated",
            )
        missing = [s["index"] for s in steps if s["index"] not in reviewed]
        if require_all_validated and missing:
            raise PreconditionFailed(
                f"cannot build the workflow — steps {missing} are not validated yet",
                session_id=session_id,
                reason="not_all_validated",
                unvalidated=missing,
            )
        session = self.traces.get_session(session_id) or {}
        ir = build_ir(
            steps,
            name=name,
            domain=domain,
            session_id=session_id,
            machine_id=session.get("machine_id"),
            created_at=self.clock.now(),
        )
        return {"status": "workflow_built", "session_id": session_id, "workflow_ir": ir}

    # --- internals ---------------------------------------------------------------------------
    def _state(self, sid: str, *, create: bool = False, check: bool = True) -> ObserverState | None:
        """The cached state, reloaded when another replica saved the session since (`check`)."""
        state = self._states.get(sid)
        if state is not None and check and self.traces.observer_rev(sid) != self._revs.get(sid):
            self._forget(sid)
            state = None
        if state is None:
            data = self.traces.load_observer(sid)
            if data is not None:
                self._revs[sid] = data.pop("rev", 0)
                state = ObserverState.from_dict(data)
            elif create:
                self._revs[sid] = 0
                state = ObserverState()
            else:
                return None
            self._states[sid] = state
        return state

    def _forget(self, sid: str) -> None:
        self._states.pop(sid, None)
        self.understood.forget(sid)
        self._revs.pop(sid, None)

    def _require(self, sid: str) -> ObserverState:
        if self.traces.get_session(sid) is None:
            raise NotFound(f"I can't find session {sid!r}: the workstation has sent nothing for it.", session_id=sid)
        state = self._state(sid)
        if state is None:
            state = ObserverState(mode="idle")
            self._states[sid], self._revs[sid] = state, 0
        return state

    def _put(self, sid: str, state: ObserverState, now: float) -> None:
        self._save(sid, state, now, segments_from=0)
        self._states[sid] = state

    def _save(self, sid: str, state: ObserverState, now: float, *, segments_from: int | None) -> None:
        """Persist the state and its segments from `segments_from` on (None: segments unchanged)."""
        tail = [] if segments_from is None else [seg.to_dict() for seg in state.segments[segments_from:]]
        try:
            self._revs[sid] = self.traces.save_observer(
                sid,
                state.to_dict(),
                now=now,
                segments=tail,
                segments_from=segments_from,
                expect_rev=self._revs.get(sid),
            )
        except Exception:  # another replica saved meanwhile (Conflict) or the write failed: reload next time
            self._forget(sid)
            raise

    def _notice(self, state: ObserverState, now: float, kind: str, message: str, step: int | None = None) -> None:
        note: dict[str, Any] = {"ts": now, "kind": kind, "message": message}
        if step is not None:
            note["step_index"] = step
        state.notifications = [*state.notifications, note][-MAX_NOTIFICATIONS:]

    def _changed(self, sid: str) -> None:
        if self._notify is not None:
            try:
                self._notify(f"rpa://sessions/{sid}/understanding")
            except Exception:  # a listener's failure never loses an event
                logger.exception("notifying a change of session %s failed", sid)

    def _understood(self, sid: str, state: ObserverState) -> list[dict[str, Any]]:
        """The steps as shown to a person, OCR evidence included (the pending reads done first)."""
        if state.ocr_pending:
            self._run_ocr(sid, state)
            self.understood.forget(sid)
        return self.understood.steps(sid, state)

    def _run_ocr(self, sid: str, state: ObserverState) -> None:
        wanted = {i for seg in state.segments for i in seg.events}
        options = {seg.choice for seg in state.segments if seg.choice is not None}
        for idx in state.ocr_pending:
            if idx not in wanted:
                continue
            rows = self.traces.events(sid, idx, idx + 1)
            if not rows:
                continue
            facts = rows[0]["facts"]
            element = rows[0]["event"].get("element") or {}
            if facts.pop("label_pending", None) and (label := self.clicks.label_beside(facts, element.get("name"))):
                facts |= label  # where its label is read beside it, and its text when it names the field
            if facts.pop("ocr_pending", None) or (idx in options and facts.get("anchor")):
                # a click in a drop-down's list: the element reported may be the page beneath, never its name
                name = None if idx in options and not is_option(element) else element.get("name")
                facts["ocr"] = self.clicks.ocr_at(facts, name=name)
            self.traces.update_facts(sid, idx, facts)
        state.ocr_pending = []
        state.version += 1
        self._save(sid, state, self.clock.now(), segments_from=None)
