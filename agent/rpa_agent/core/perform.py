"""One action carried out on the desktop: screenshot, target, input, settle, screenshot, result.

`Performer.execute(action)` answers the result to report (a dict of the wire's `ActionResult`,
checked against its schema before it is sent). It records, per action, the moments of each phase
(`marks`: shot, resolved, focused, injected, settled, encoded) read by benchmarks and the evidence.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from rpa_agent.core import choices, locate, scrolling
from rpa_agent.core.actions import (
    ANY_CLICK,
    DOUBLE_CLICKS,
    KEYS,
    NEEDS_POINT,
    NO_INPUT,
    RIGHT_CLICKS,
    SELECT_ALL,
    SERVER_SIDE,
    TYPING,
    keys_of,
    replaces_field,
    wait_seconds,
)
from rpa_agent.core.caret import changed
from rpa_agent.core.focus import FocusEvidence, focus_region
from rpa_agent.core.http import Http
from rpa_agent.core.titles import title_matches, window_titled
from rpa_agent.core.wire import NextAction
from rpa_agent.port import Desktop, Frame, InputRefused, KeyboardFocus, Stacking, Window

SETTLE_MIN_S = 0.15  # with no change seen, the application is given this long to begin reacting
SETTLE_MAX_S = 3.0
QUIET_S = 0.3  # the screen still this long after an input: settled
LOOK_QUIET_S = 0.3  # a look's wait ends with the screen still this long (its last part, not after it)
SETTLE_STEP_S = 0.04  # a grab and a comparison cost a few ms: the end of the quiet time is seen within this
FOCUS_TIMEOUT_S = 2.0
TAKEOVER_POLL_S = 0.05
# a look that waits for a slow window: its wait ends once the front window's title is another than this one
TITLE_CHANGES_PARAM = "until_title_changes_from"
# a look that waits for a step's outcome: its wait ends once the screen is another than the last one sent
SCREEN_CHANGES_PARAM = "until_screen_changes"
OCCLUDED_METHOD = "window_occluded"  # resolve_target's answer for a target another window covers
MOVED_SHARE = 0.10  # of the pixels around a target found: the page moved under it since (a caret is far less)
AROUND_TARGET = (240, 80)  # px: the box around the point found that must still show what it showed


class InvalidAction(ValueError):
    """The action cannot be carried out as given (no text to type, no keys): nothing was injected."""


class KeyboardElsewhere(Exception):
    """The window in front is not the step's: its keys would go there (a dialog that came late, another
    program brought forward). `clicked`: the step's field was clicked before this was seen."""

    def __init__(self, reason: str, *, clicked: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.clicked = clicked


class Performer:
    def __init__(
        self,
        desktop: Desktop,
        http: Http,
        *,
        machine_id: str,
        say: Callable[[str], None],
        settle_ms: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.desktop = desktop
        self.sleep = sleep
        self.clock = clock
        self.http = http
        self.machine_id = machine_id
        self.say = say
        self.settle_ms = settle_ms
        self.offset = 0.0  # server clock - this machine's clock, from the last action's `server_now`
        self.marks: dict[str, float] = {}
        self.server_phases: dict[str, float] = {}  # phases the server timed for this attempt (identity)
        self.notes: dict[str, Any] = {}  # per action, beside the times: how the wait before typing ended
        self.foreign_seen: dict[str, int] = {}  # attempt_id -> a person's input count its result was judged on
        self._last_shot: tuple[Frame, bytes] | None = None  # the last frame sent after an action
        self._seen_still: tuple[Frame, float] | None = None  # the last settle's frame, still since when
        self._encoder: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            encoder, self._encoder = self._encoder, None
        if encoder is not None:
            encoder.shutdown(wait=True, cancel_futures=True)

    def begin(self, action: NextAction) -> None:
        self.marks = {"polled": time.time()}
        self.server_phases = {}
        self.notes = {}
        self.offset = action.server_now - time.time()

    def mark(self, name: str) -> None:
        self.marks[name] = time.time()

    def timing(self, action: NextAction) -> dict[str, Any]:
        ref = {"action_id": action.action_id, "attempt_id": action.attempt_id, "action_type": action.action_type}
        return ref | {"step_index": action.step_index, **self.notes, **self.marks}

    @property
    def foreign(self) -> int:
        return self.desktop.watch.foreign_count

    # --- the action ---------------------------------------------------------------------------------
    def execute(self, action: NextAction, *, accounted: int | None = None) -> dict[str, Any]:
        """`accounted`: the count of a person's inputs already accounted for when the agent checked, before the
        start was granted, that nobody was using the desktop; an input counted since is a takeover."""
        started = time.monotonic()
        kind = action.action_type.lower()
        foreign_before = self.foreign if accounted is None else accounted
        if self.foreign > foreign_before:  # since the check before input: nothing is injected, nothing waited
            self.say("paused: a person is using the mouse or keyboard; waiting for a person to resume")
            return self.not_executed(action, "HUMAN_TAKEOVER: the person is using the desktop", human=True)
        front_before = self.desktop.windows.foreground()
        frame_before = self.desktop.screen.grab()
        png_before = self.encode(frame_before)
        self.mark("shot")
        position: tuple[int, int] | None = None
        error: str | None = None
        output: dict[str, Any] | None = None
        warning: str | None = None
        executed = True
        reference: Frame | None = None
        still: tuple[Frame, float] | None = None
        controls = choices.DesktopChoices(
            self.desktop, self.http, self.machine_id, self._settled_png, clock=self.clock, sleep=self.sleep
        )
        try:
            if kind in SERVER_SIDE:
                executed, error = False, f"{kind} is a server-side action"
            elif kind in NO_INPUT:  # carried out (waited, screen captured): done, though no input was injected
                seconds = wait_seconds(action.params)
                limit = min(seconds, max(0.0, action.not_after - (time.time() + self.offset)))
                # the look's own quiet time (the screen still, watched) is the end of the wait, not added to it
                came = self._retitled(action.params.get(TITLE_CHANGES_PARAM)) or self._redrawn(
                    action.params.get(SCREEN_CHANGES_PARAM), frame_before
                )
                if seconds and self._person_came(foreign_before, max(0.0, limit - LOOK_QUIET_S), came):
                    # a person took over during the wait: it is not carried out; it is waited again on resume
                    self.say("paused: a person is using the mouse or keyboard; waiting for a person to resume")
                    return self.not_executed(
                        action, "HUMAN_TAKEOVER: the person is using the desktop", human=True, before=png_before
                    )
            elif kind == "focus_window":
                unfocused = self._focus(action)
                if unfocused is not None:
                    self.say(f"paused: {unfocused}")
                    return self._refused(action, unfocused, foreign_before, png_before)
                self.mark("resolved")
            else:
                needs_point = kind in NEEDS_POINT and action.target is not None
                found_on_screen = needs_point and locate.has_something_to_find(action)
                if found_on_screen:
                    seen = self._find(action, png_before, front_before.title if front_before else None, controls)
                    found = seen.found
                    warning = _joined(self.notes.get("raised"), seen.note)  # a raise is declared: the result says it
                    if found.identity_ms is not None:
                        self.server_phases["identity"] = found.identity_ms
                    if seen.png is not None:  # scrolled: the action goes on from the scrolled screen
                        frame_before, png_before = self.desktop.screen.grab(), seen.png
                    self.mark("resolved")
                    if not found.found:
                        reason = f"target_not_resolved: {found.method}: {found.reason}"
                        self.say(f"paused: {reason}")
                        return self._refused(action, reason, foreign_before, png_before)
                    position = (int(found.x or 0), int(found.y or 0))
                elif needs_point:
                    refusal = locate.refusal_at_recorded_point(action, kind)
                    if refusal is not None:
                        self.say(f"paused: {refusal}")
                        return self._refused(action, refusal, foreign_before, png_before)
                    position = locate.recorded_point(action, self.desktop.screen.size())
                    self.mark("resolved")
                reference = self.desktop.screen.grab()  # the screen just before the input: did it react?
                if found_on_screen and position is not None and self._moved_under(frame_before, reference, position):
                    # the page moved since the target was found (a record restoring its scroll, a late layout):
                    # found again on the screen once still, never clicked where it was
                    frame_before, _ = self._settle(quiet_s=0.2)
                    png_before = self.encode(frame_before)
                    again = self._find(action, png_before, front_before.title if front_before else None, controls)
                    if again.png is not None:
                        frame_before, png_before = self.desktop.screen.grab(), again.png
                    if not again.found.found:
                        reason = f"target_not_resolved: {again.found.method}: {again.found.reason} (the screen moved)"
                        self.say(f"paused: {reason}")
                        return self._refused(action, reason, foreign_before, png_before)
                    position = (int(again.found.x or 0), int(again.found.y or 0))
                    warning = _joined(warning, "the screen moved after the target was found: found again")
                    reference = self.desktop.screen.grab()
                if position is not None:
                    self.notes["position"] = list(position)  # where the input went (timings, the demo's film)
                if kind in choices.KINDS and position is not None:
                    controls.still = (frame_before, png_before)  # a box's state read before the click: no wait
                    self._seen_still = None
                    output = choices.carry_out(controls, action, position)
                    # a box's state read on the screen once still after its click: still since, no input after
                    still = self._seen_still if controls.looked_after_input else None
                else:
                    self._inject(kind, action, position, frame_before)
        except choices.ChoiceFailed as exc:  # nothing clicked: not executed; a click made: executed, failed
            if not exc.clicked:
                self.say(f"paused: {exc.reason}")
                return self._refused(action, exc.reason, foreign_before, png_before)
            error = exc.reason
        except KeyboardElsewhere as exc:  # nothing typed; a field clicked first: executed, failed
            self.say(f"paused: {exc.reason}")
            if not exc.clicked:
                return self._refused(action, exc.reason, foreign_before, png_before)
            error = exc.reason
        except (InvalidAction, InputRefused) as exc:
            return self._refused(action, f"INVALID_ACTION: {exc}", foreign_before, png_before)
        self.mark("injected")
        frame_after, encoding = (
            self._settle(
                LOOK_QUIET_S if kind in NO_INPUT else QUIET_S,
                encode=True,
                since=reference,
                reacting=kind not in NO_INPUT,
                still=still,
            )
            if executed
            else (frame_before, None)
        )
        self.mark("settled")
        if kind == "select_option" and error is None and position is not None and executed:
            output = choices.option_named(controls, position)
        front_after = self.desktop.windows.foreground()
        if kind in NO_INPUT and executed:  # a look asked whether the tree names the run's first target
            answer = locate.first_step_tree(action, front_after, self.desktop.windows, self.sleep)
            output = {locate.TREE_QUESTION: answer} if answer is not None else output
        png_after = encoding.result() if encoding is not None else self.encode(frame_after)
        self._last_shot = (frame_after, png_after)
        self.mark("encoded")
        foreign_after = self.foreign
        self.foreign_seen[action.attempt_id] = foreign_after
        human = foreign_after > foreign_before
        if human:
            self.say("a person touched the mouse or keyboard during this action")
        result: dict[str, Any] = action.ref | {
            "machine_id": self.machine_id,
            "success": error is None,
            "error": error,
            "error_retryable": False if error else None,
            "actual_position": list(position) if position else None,
            "screenshot_before": _b64(png_before),
            "screenshot_after": _b64(png_after),
            "window_title": front_after.title if front_after else None,
            "window_title_before": front_before.title if front_before else None,
            "process_after": front_after.process if front_after else None,
            "human_takeover": human,
            "executed": executed,
            "warning": warning,
            "output": output,
            "duration_ms": int((time.monotonic() - started) * 1000),
            "phases_ms": self._phases(),
        }
        return _without_none(result)

    def locate(self, action: NextAction, png: bytes, window_title: str | None, shift: int = 0) -> locate.Located:
        """Where the target is on this screenshot: the server's answer (`rpa_agent.core.locate`), given the
        windows shown (top-most first) when the backend knows their order, and how far the content moved down
        since the step's screen when the agent scrolled it (`shift`, pixels)."""
        return locate.locate_on_server(
            self.http, action, png, window_title, self.machine_id, self.stacked_windows(), shift
        )

    def _find(
        self, action: NextAction, png: bytes, window_title: str | None, hands: scrolling.ScrollPort
    ) -> scrolling.Scrolled:
        """The target on this screen; covered by another window, after raising the step's own (`_raise_own`); out
        of view, after a bounded scroll (`rpa_agent.core.scrolling`)."""
        found = self.locate(action, png, window_title)
        raised_png = None
        if found.method == OCCLUDED_METHOD and (raised := self._raise_own(action)) is not None:
            self.notes["raised"] = raised  # declared in the result's warning, kept in the evidence
            frame, _ = self._settle(quiet_s=0.2)
            png = raised_png = self.encode(frame)
            front = self.desktop.windows.foreground()
            window_title = front.title if front is not None else window_title
            found = self.locate(action, png, window_title)
        found = locate.by_tree(action, found, self.desktop.windows, self.sleep) or found  # not seen: by the tree
        size = self.desktop.screen.size()
        seen = scrolling.bring_into_view(
            hands, action, found, png, size, lambda shot, shift: self.locate(action, shot, window_title, shift)
        )
        if seen.note is not None:
            self.notes["scrolled"] = seen.note
        return seen if seen.png is not None or raised_png is None else replace(seen, png=raised_png)

    def _raise_own(self, action: NextAction) -> str | None:
        """Bring the step's own window (its title, `{{*}}` standing for a record's words) in front of the window
        covering its target: what was done, said in the result; None when there is no such window to raise or
        it did not come in front (the step then pauses, WINDOW_OCCLUDED)."""
        wanted = (action.target.window_title if action.target else None) or locate.spec_of(action).get("window_title")
        windows = self.desktop.windows
        window = window_titled(windows.windows(), wanted) if isinstance(wanted, str) and wanted else None
        front = windows.foreground()
        if window is None or _same(front, window):
            return None  # nothing of its own to raise, or already in front: covered by a window kept on top
        windows.activate(window.handle)
        deadline = self.clock() + FOCUS_TIMEOUT_S
        while not _same(windows.foreground(), window) and self.clock() < deadline:
            self.sleep(SETTLE_STEP_S)
        if not _same(windows.foreground(), window):
            return None
        covering = f" over {front.title!r}" if front is not None and front.title else ""
        return f"raised the step's window {window.title!r}{covering}: another window covered the target"

    def _moved_under(self, before: Frame, now: Frame, position: tuple[int, int]) -> bool:
        """The screen around `position` changed between the screen the target was found on and now."""
        width, height = AROUND_TARGET
        x, y = position
        box = (max(0, x - width // 2), max(0, y - height // 2), width, height)
        return self.desktop.screen.changed(before, now, box) >= MOVED_SHARE

    def stacked_windows(self) -> list[dict[str, Any]]:
        """The windows shown, top-most first, as the resolve request carries them ([] without `Stacking`)."""
        windows = self.desktop.windows
        if not isinstance(windows, Stacking):
            return []
        return [
            {"title": w.title[:1000], "process": (w.process or "")[:260] or None, "box": list(w.box) if w.box else None}
            for w in windows.stacked()[: locate.MAX_WINDOWS]
        ]

    def _person_came(self, seen: int, timeout: float, done: Callable[[], bool] | None = None) -> bool:
        """Wait up to `timeout` s for a person's input beyond the `seen` count; True as soon as there is some.
        The wait also ends (False) once `done` answers True."""
        deadline = self.clock() + max(0.0, timeout)
        while self.foreign <= seen:
            left = deadline - self.clock()
            if left <= 0 or (done is not None and done()):
                return False
            self.sleep(min(TAKEOVER_POLL_S, left))
        return True

    def _retitled(self, title: Any) -> Callable[[], bool] | None:
        """For a look waiting for a slow window: True once a window titled other than `title` is in front
        (a window with no title, or none, is no window come yet). None when the look waits for no window."""
        if not isinstance(title, str) or not title:
            return None

        def come() -> bool:
            front = self.desktop.windows.foreground()
            return front is not None and bool(front.title) and front.title != title

        return come

    def _redrawn(self, wanted: Any, first: Frame) -> Callable[[], bool] | None:
        """For a look waiting for a step's outcome: True once the screen is another than the last one sent (the
        step's screen after; the look's first frame when none was sent since the agent started), a text
        caret's blink apart. None when the look waits for no change."""
        if wanted is not True:
            return None
        reference = self._last_shot[0] if self._last_shot is not None else first
        return lambda: changed(reference, self.desktop.screen.grab())

    def _focus(self, action: NextAction) -> str | None:
        """Bring the recorded window to the front; the reason it cannot, else None."""
        wanted = (action.target.window_title if action.target else None) or action.params.get("window_title")
        if not isinstance(wanted, str) or not wanted:
            return "target_not_resolved: a focus_window step needs the window's title"
        windows = self.desktop.windows
        window = window_titled(windows.windows(), wanted)
        if window is None:
            return f"target_not_resolved: no window titled {wanted!r} is open"
        if not _same(windows.foreground(), window):
            windows.activate(window.handle)
            deadline = time.monotonic() + FOCUS_TIMEOUT_S
            while not _same(windows.foreground(), window) and time.monotonic() < deadline:
                self.sleep(SETTLE_STEP_S)
        return None

    def _inject(self, kind: str, action: NextAction, position: tuple[int, int] | None, before: Frame) -> None:
        hands, params = self.desktop.input, action.params
        if kind in TYPING:
            text = params.get("text")
            if not isinstance(text, str):
                raise InvalidAction("type_text needs params.text")
            if position is not None:
                hands.click(*position)
                if not self._focus_landed(action, position, before):
                    self._settle(quiet_s=0.2)  # no evidence: the screen quiet before typing
                self.mark("focused")
            self._keyboard_is_the_steps(action, clicked=position is not None)
            if replaces_field(kind, params):
                hands.combo(SELECT_ALL)  # the text replaces what the field held, never follows it
            hands.type_text(text)
            submit = params.get("submit_key") or ("enter" if kind == "paste_and_execute" else None)
            if isinstance(submit, str) and submit:
                hands.combo(submit)
        elif kind in KEYS or (kind == "save" and position is None):
            keys = keys_of(params, kind)
            if keys is None:
                raise InvalidAction(f"{kind} needs params.keys")
            self._keyboard_is_the_steps(action, clicked=False)
            hands.combo(keys)
        elif kind == "scroll":
            width, height = self.desktop.screen.size()
            x, y = position or (width // 2, height // 2)
            up = str(params.get("direction") or "down") == "up"
            hands.scroll(x, y, direction="up" if up else "down", amount=int(params.get("amount") or 3))
        elif kind in ANY_CLICK | {"save"}:
            if position is None:
                raise InvalidAction("no coordinates and no label to find the target")
            count = 2 if kind in DOUBLE_CLICKS else 1
            hands.click(*position, button="right" if kind in RIGHT_CLICKS else "left", count=count)
        elif kind in choices.KINDS:
            raise InvalidAction(f"{kind} needs a target: the control to set")
        else:
            raise InvalidAction(f"unsupported action type {action.action_type!r}")

    def _keyboard_is_the_steps(self, action: NextAction, *, clicked: bool) -> None:
        """Keys go to the window in front: it must be the step's (`target.window_title`, a template's fixed words
        in order) when the step names one. A window the backend cannot name lets the keys go, as before."""
        wanted = action.target.window_title if action.target is not None else None
        front = self.desktop.windows.foreground()
        if not wanted or front is None or (front.title and title_matches(front.title, wanted)):
            return
        shown = repr(front.title) if front.title else "a window without a title"
        raise KeyboardElsewhere(
            f"WRONG_WINDOW: the keyboard is with {shown}, not with the step's window {wanted!r}: nothing was typed",
            clicked=clicked,
        )

    def _focus_landed(self, action: NextAction, point: tuple[int, int], before: Frame) -> bool:
        """The clicked field has the keyboard (see `rpa_agent.core.focus`); False without evidence."""
        bbox = action.target.spec.get("bbox") if action.target is not None else None
        field = None
        if isinstance(bbox, list | tuple) and len(bbox) == 4 and all(isinstance(v, int | float) for v in bbox):
            field = (int(bbox[2]), int(bbox[3]))
        region = focus_region(point, field, (before.width, before.height))
        windows = self.desktop.windows
        keyboard = (lambda: windows.keyboard_at(*point)) if isinstance(windows, KeyboardFocus) else (lambda: True)
        screen = self.desktop.screen
        landed = FocusEvidence(screen.grab, screen.changed, keyboard, sleep=self.sleep).landed(before, region)
        self.notes["focus_evidence"] = landed
        return landed

    # --- screenshots ---------------------------------------------------------------------------------
    def _settled_png(self, since: Frame | None = None) -> bytes:
        """The screen once it stopped changing (a drop-down's list open, a box ticked), as PNG; `since`: the
        screen just before the input (unlike it, the application reacted before the first look)."""
        frame, _ = self._settle(quiet_s=0.2, since=since)
        return self.encode(frame)

    def encode(self, frame: Frame) -> bytes:
        """The frame's PNG; the last one sent when the screen has not changed by one pixel since."""
        last = self._last_shot
        if last is not None and last[0] == frame:
            return last[1]
        return self.desktop.screen.png(frame)

    def _encode_soon(self, frame: Frame) -> Future[bytes]:
        with self._lock:
            if self._encoder is None:
                self._encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="screen-encode")
            return self._encoder.submit(self.desktop.screen.png, frame)

    def _settle(
        self,
        quiet_s: float = QUIET_S,
        *,
        encode: bool = False,
        since: Frame | None = None,
        reacting: bool = True,
        still: tuple[Frame, float] | None = None,
    ) -> tuple[Frame, Future[bytes] | None]:
        """Wait until the screen stops changing, at most SETTLE_MAX_S: the same frame for `quiet_s` after the
        last change seen (the screen unlike `since`, the frame grabbed just before the input, is one: the
        application reacted before the first look); when no change is seen at all (the application slow
        to react, or an input that changes nothing), for `quiet_s` after SETTLE_MIN_S. A text caret's
        blink is no change (`core.caret`): a focused field would otherwise never be still. The screen is
        looked at every SETTLE_STEP_S from just after the input, so the wait ends as soon as the screen
        is still, not after a fixed delay. Without `reacting` (a look: no input made, nothing to begin
        reacting to), the screen still for `quiet_s` is enough. `still`: a frame seen still since a moment,
        after the last input (a box's state read once the screen was still): the same screen now has been
        still since then.

        With `encode`, the frame is encoded in the background as soon as it is seen still, while the
        rest of the quiet time is waited; the returned future holds the returned frame's encoding
        (None when the frame changed after its last encoding started: the caller encodes it).
        """
        clock = self.clock
        began = clock()
        deadline = began + (self.settle_ms / 1000.0 if self.settle_ms is not None else SETTLE_MAX_S)
        minimum = SETTLE_MIN_S if reacting else 0.0
        last = self.desktop.screen.grab()
        stable_since, moved = clock(), since is not None and changed(since, last)
        if still is not None and not changed(still[0], last):
            last, stable_since, moved = still[0], still[1], True
        encoding: tuple[Frame, Future[bytes]] | None = None
        while clock() < deadline:
            self.sleep(SETTLE_STEP_S)
            frame = self.desktop.screen.grab()
            now = clock()
            if not changed(last, frame):  # the frame seen still is the one kept and returned
                if encode and encoding is None:
                    encoding = (last, self._encode_soon(last))
                if now - stable_since >= quiet_s and (moved or now - began >= minimum + quiet_s):
                    break
            else:
                if encoding is not None:
                    encoding[1].cancel()
                    encoding = None
                last, stable_since, moved = frame, now, True
        self._seen_still = (last, stable_since)
        return last, (encoding[1] if encoding is not None and encoding[0] is last else None)

    # --- results --------------------------------------------------------------------------------------
    def _refused(self, action: NextAction, reason: str, foreign_before: int, before: bytes) -> dict[str, Any]:
        """Not carried out; a person's input since the attempt began makes it a takeover, not a failure."""
        counted = self.foreign_seen[action.attempt_id] = self.foreign
        human = counted > foreign_before
        if human:
            self.say("a person touched the mouse or keyboard during this action")
        return self.not_executed(action, reason, False, human=human, before=before)

    def not_executed(
        self,
        action: NextAction,
        error: str,
        retryable: bool | None = False,
        *,
        human: bool = False,
        system: dict[str, Any] | None = None,
        before: bytes | None = None,
    ) -> dict[str, Any]:
        """The result of an attempt that injected no input, with the screen and the window as they are."""
        front = self.desktop.windows.foreground()
        shot = self.desktop.screen.png(self.desktop.screen.grab())
        result: dict[str, Any] = action.ref | {
            "machine_id": self.machine_id,
            "success": False,
            "error": error[:2000],
            "error_retryable": retryable,
            "screenshot_before": _b64(before or shot),
            "screenshot_after": _b64(shot),
            "window_title": front.title if front else None,
            "window_title_before": front.title if front else None,
            "process_after": front.process if front else None,
            "human_takeover": human,
            "system_dialog": _without_none(system) if system else None,
            "executed": False,
        }
        return _without_none(result)

    def _phases(self) -> dict[str, float]:
        """The phases of the evidence bundle, from this attempt's marks (those that happened)."""
        spans = {"resolve": ("shot", "resolved"), "inject": ("resolved", "injected"), "settle": ("injected", "settled")}
        marks = self.marks
        return {
            name: round((marks[end] - marks[begin]) * 1000, 1)
            for name, (begin, end) in spans.items()
            if begin in marks and end in marks
        } | self.server_phases


def _same(a: Window | None, b: Window) -> bool:
    return a is not None and a.handle == b.handle


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _without_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _joined(*parts: str | None) -> str | None:
    return "; ".join(part for part in parts if part) or None
