"""The observer state a shadow service keeps per session: cached, persisted and notified, with the OCR reads
the understanding waits for (done lazily, the first time it is read).

`SessionStates` is the base of `ShadowService`, which sets the attributes declared here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from rpa_mcp.clock import Clock
from rpa_mcp.errors import NotFound
from rpa_mcp.shadow.click_facts import ClickFacts
from rpa_mcp.shadow.elements import is_control, is_option
from rpa_mcp.shadow.observer import ObserverState
from rpa_mcp.shadow.popups import name_opener
from rpa_mcp.shadow.ports import TraceRepository
from rpa_mcp.shadow.understood import UnderstoodSteps

logger = logging.getLogger(__name__)

MAX_NOTIFICATIONS = 100


class SessionStates:
    traces: TraceRepository
    clock: Clock
    clicks: ClickFacts
    understood: UnderstoodSteps
    _notify: Callable[[str], None] | None
    _states: dict[str, ObserverState]
    _revs: dict[str, int]

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
                in_list = idx in options and facts.get("list_box")
                facts["ocr"] = self.clicks.option_at(facts) if in_list else self.clicks.ocr_at(facts, name=name)
                if not element.get("name") and (field := self.clicks.field_at(facts)):
                    facts["field_box"] = field  # a text field's own box, should a typing step follow
                if not is_control(element) and not in_list and (button := self.clicks.button_at(facts)):
                    facts["button_box"] = button  # no tree says what it is: its text is on a push button
            self.traces.update_facts(sid, idx, facts)
        for seg in state.segments:  # a drop-down seen opening: named by its label, not by what it shows
            if seg.choice is not None and seg.choice in state.ocr_pending:
                name_opener(self.clicks, self.traces, sid, seg)
        state.ocr_pending = []
        state.version += 1
        self._save(sid, state, self.clock.now(), segments_from=None)
