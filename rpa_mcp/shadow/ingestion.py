"""Events in: a batch validated, stored and observed in one transaction (`ShadowService.ingest`).

Every accepted event is stored with the observer's state before the caller is answered, so a
restart (a new service over the same database) resumes the understanding exactly. A click's facts
are read from its screenshot as it arrives (`rpa_mcp.shadow.click_facts`), a click into a list the
step's own click opened included (`rpa_mcp.shadow.popups`); the OCR waits for the understanding.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from rpa_mcp.shadow.elements import app_key
from rpa_mcp.shadow.events import CLICK_TYPES, TraceEvent, normalize_locale, parse_events
from rpa_mcp.shadow.language import vote
from rpa_mcp.shadow.masking import mask_event
from rpa_mcp.shadow.popups import opened_list_at
from rpa_mcp.shadow.segmenter import place
from rpa_mcp.shadow.session_states import SessionStates
from rpa_mcp.shadow.shots import SCREENSHOT_URI, BatchShots, Shot
from rpa_mcp.vision.budget import FrameCache


class Ingestion(SessionStates):
    shots: BatchShots
    frames: FrameCache
    idle_gap_s: float
    _lock: threading.RLock

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
        if state.observing and state.segments:
            box = opened_list_at(self.clicks, self.traces, sid, state.segments[-1], ev, facts)
            if box is not None:
                facts["list_box"] = box  # the pop-up the step's click opened, seen on the screen: an option
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
                state.segments,
                state.ctx,
                idx,
                ev,
                now=now,
                idle_gap_s=self.idle_gap_s,
                shot=state.last_shot,
                in_list="list_box" in facts,
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
