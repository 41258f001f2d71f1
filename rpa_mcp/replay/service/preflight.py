"""Refuse before the first input: is the workstation there, and does it show what the first step needs?

What the server knows of a workstation when a replay is asked for (`replay_machines`):
- when it last polled for replay actions (`polled_at`, written at most every few seconds):
  older than `presence_s` (RPA_REPLAY_PRESENCE_S) and the workstation is not connected;
- the last screen it reported with an action's result (`reported_at`, its foreground window
  title, the screenshot and its size). A screen smaller than the recorded one is refused. When that
  report is at most `screen_fresh_s` old (RPA_REPLAY_SCREEN_FRESH_S) and shows what the first step
  needs (the window it expects in front, its target found there), the replay starts with it.
  Otherwise the report is not evidence of the screen now (a person may have used the workstation
  since): the replay begins by observing the workstation (`observe_first`: a screenshot, no input)
  and checks the first step against that observation before anything else is sent; a screen that
  does not show what it needs pauses the replay (WORKSTATION_NOT_READY, nothing executed, what is
  missing named), and `retry` observes again.

Another of the workflow's own windows in front (the application left on the previous patient's
record) may stand in for the recorded one when the first step's target is found there and the
leading steps only search for the run's record (`rpa_mcp.replay.start_window`): those steps then
expect that window. Only the observation made for the run decides it (a last report showing such
a window is observed again first: the application may have been restarted since).

A first target OCR does not read anywhere on the observed screen may be found by the accessibility tree
of the window in front, as the agent finds it at step time (`rpa_mcp.replay.tree_fallback`): the look
asks, the agent answers, and the evidence says the target was found by the tree, not by OCR.

A refusal changes nothing (no replay row, no action dispatched) and says "nothing was executed".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.errors import RpaError, WorkstationNotReady
from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow, MachineRow
from rpa_mcp.replay.service.core import ReplayCore
from rpa_mcp.replay.start_window import own_template, same_screen
from rpa_mcp.replay.tree_fallback import found_by_tree, tree_answer
from rpa_mcp.vision.images import decode_image

POLL_WRITE_EVERY_S = 5.0  # a workstation's poll is written at most this often (per replica)
# The first step brings the expected window itself: its "window before" is not a precondition.
BRINGS_ITS_WINDOW = frozenset({"focus_window", "open_application", "navigate_url", "switch_tab"})
OBSERVE = "screenshot_evidence"  # the observation a replay begins with when the last screen is not fresh
OBSERVED_ORIGIN = "preflight"


@dataclass(frozen=True)
class FirstStepCheck:
    """What the first desktop step needs and the screen does not show (`missing`), the workflow's own window
    it may begin on instead of the recorded one (`starts_on`), and, when OCR did not read its target but the
    accessibility tree named it, what the evidence says of it (`by_tree`)."""

    missing: list[str] = field(default_factory=list)
    starts_on: str | None = None
    by_tree: dict[str, Any] | None = None


class Preflight(ReplayCore):
    def _polled(self, machine_id: str) -> None:
        now = self.time.now()
        if now - self._poll_written.get(machine_id, -1e18) < POLL_WRITE_EVERY_S:
            return
        self._poll_written[machine_id] = now
        self.store.machine_polled(machine_id, now=now)

    def _reported_screen(self, machine_id: str | None, window_title: str | None, png: bytes) -> None:
        if machine_id:
            self.store.machine_screen(
                machine_id, now=self.time.now(), window_title=window_title, size=png_size(png), png=png
            )

    def _fresh(self, machine: MachineRow | None) -> bool:
        return (
            machine is not None
            and machine.reported_at is not None
            and self.time.now() - machine.reported_at <= self.config.screen_fresh_s
            and machine.screenshot is not None
        )

    def preflight(self, machine_id: str, planned: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """What was checked (for the preview), or WorkstationNotReady naming what is missing."""
        if not self.config.preflight:
            return {"checked": False, "why": "switched off (RPA_REPLAY_PREFLIGHT=false)"}
        now = self.time.now()
        machine = self.store.get_machine(machine_id)
        if machine is None or machine.polled_at is None or now - machine.polled_at > self.config.presence_s:
            seen = "never" if machine is None or machine.polled_at is None else f"{now - machine.polled_at:.0f} s ago"
            _refuse(machine_id, [f"the workstation {machine_id} is not connected (last poll: {seen})"])
        assert machine is not None
        first = next((a for a in planned if not a.get("server_side")), None)
        fresh = self._fresh(machine)
        if first is None:
            return {"checked": True, "connected": True, "screen_checked": False, "why": "no step on the desktop"}
        if not fresh:
            age = "never" if machine.reported_at is None else f"{now - machine.reported_at:.0f} s ago"
            return {
                "checked": True,
                "connected": True,
                "screen_checked": False,
                "observe_first": True,
                "why": f"the workstation's last screen is not recent (reported: {age}): it is observed again, and "
                "the first step checked against it, before any input",
            }
        too_small = _size_gap(machine, first)
        if too_small:  # a property of the workstation, not of what it shows now
            _refuse(machine_id, [too_small])
        checked = self._first_step_gaps(machine, first, observed=False)
        missing, starts_on = checked.missing, checked.starts_on
        if starts_on:  # its steps would expect that window: only a screen observed for this run says it is there
            missing = [f"the workstation showed {starts_on!r}, another of the workflow's own windows"]
        if missing:  # the screen may have changed since it was reported: what it shows now decides
            return {
                "checked": True,
                "connected": True,
                "screen_checked": False,
                "observe_first": True,
                "why": f"the last screen ({now - (machine.reported_at or now):.0f} s ago): {'; '.join(missing)}. "
                "It is observed again, and the first step checked against it, before any input",
            }
        return {"checked": True, "connected": True, "screen_checked": True, "window_title": machine.window_title}

    def observed_gaps(self, observation: ActionRow, output: Any = None) -> FirstStepCheck:
        """What the first desktop step after `observation` needs and the screen just observed does not show,
        and the workflow's own window it may begin on instead of the recorded one (None: the recorded one);
        `output`: the look's output, with the agent's answer about the first target in its window's tree."""
        replay = self.store.get_replay(observation.replay_id)
        machine = self.store.get_machine(observation.machine_id or (replay.machine_id if replay else None) or "")
        first = next(
            (
                a
                for a in self.store.actions(observation.replay_id)
                if a.seq > observation.seq and not a.server_side and a.origin != OBSERVED_ORIGIN
            ),
            None,
        )
        if machine is None or machine.screenshot is None or first is None:
            return FirstStepCheck()
        planned = {"action_type": first.action_type, "target": first.target, "expected": first.expected}
        return self._first_step_gaps(machine, planned, tree=output)

    def _first_step_gaps(
        self, machine: MachineRow, first: Mapping[str, Any], *, observed: bool = True, tree: Any = None
    ) -> FirstStepCheck:
        """`observed`: the screen was observed for this run; a report from before it (False) showing another of
        the workflow's own windows is observed again whatever it shows: its target is not searched there.
        `tree`: the observation's output, whose tree answer may show a target OCR did not read."""
        missing = []
        found = first.get("target")
        target: dict[str, Any] = found if isinstance(found, dict) else {}
        expected = first.get("expected") or {}
        wanted = target.get("window_title") or expected.get("window_before")
        seen = machine.window_title
        starts_on = None
        if (
            first.get("action_type") not in BRINGS_ITS_WINDOW
            and isinstance(wanted, str)
            and wanted
            and seen is not None
            and not same_screen(wanted, seen)
        ):
            if own_template(seen, expected.get("start_windows") or []):
                starts_on = seen  # another of the workflow's own windows: its target must be there too
            else:
                missing.append(f"the window {wanted!r} is not in front (the workstation shows {seen!r})")
        too_small = _size_gap(machine, first)
        if too_small:
            missing.append(too_small)
        if starts_on and not observed:
            return FirstStepCheck(missing, starts_on if not missing else None)
        by_tree, answer = None, None
        if not missing and (target.get("label") or target.get("by_text") or target.get("anchor_png_base64")):
            try:
                image = decode_image(machine.screenshot or b"", max_pixels=self.config.max_image_pixels)
            except RpaError as exc:
                return FirstStepCheck([f"the workstation's last screen cannot be read ({exc.message})"])
            spec = {**target, "step_class": expected.get("step_class")}
            if starts_on:
                spec["window_title"] = starts_on
            res = self.resolver.resolve(image, spec, window_title=seen, machine_id=machine.machine_id)
            own_in_front = isinstance(wanted, str) and bool(wanted) and seen is not None and same_screen(wanted, seen)
            if not res.resolved and (res.method or "").startswith(MOVED_AWAY if own_in_front else MOVED_AWAY[:1]):
                # its window may stand elsewhere now (the step itself follows it): on the screen is enough here;
                # a field beside its label, too far from where it was, is answered not found (never a guess) —
                # searched anywhere only when its own window is known to be in front: else not found is the
                # answer (the same words in another window are no reason to start)
                anywhere = {k: v for k, v in spec.items() if k not in RECORDED_PLACE}
                res = self.resolver.resolve(image, anywhere, window_title=seen, machine_id=None)
            if not res.resolved and not starts_on:  # found by the tree as the agent finds it at step time
                size = (machine.screen_w, machine.screen_h) if machine.screen_w and machine.screen_h else None
                answer = tree_answer(tree)
                by_tree = found_by_tree(first, answer, seen, size) if observed else None
            if not res.resolved and by_tree is None:
                label = target.get("label") or target.get("by_text") or "its anchor"
                where = f" of the workflow's window {starts_on!r}" if starts_on else ""
                nor = "; the window's accessibility tree did not show it there either" if answer is not None else ""
                missing.append(f"the first step's target {label!r} is not on the screen{where} ({res.reason}){nor}")
        return FirstStepCheck(missing, starts_on if not missing else None, by_tree if not missing else None)


MOVED_AWAY = ("rejected_drift", "not_found")  # resolutions a target whose window moved far may get
RECORDED_PLACE = ("rel_x", "rel_y", "x_pct", "y_pct", "bbox", "window_box")  # where the target was, on screen


def _size_gap(machine: MachineRow, first: Mapping[str, Any]) -> str | None:
    """The screen is smaller than the one the first step was recorded on."""
    target = first.get("target") if isinstance(first.get("target"), dict) else {}
    frame = (target or {}).get("frame_size")
    if isinstance(frame, list | tuple) and len(frame) == 2 and machine.screen_w and machine.screen_h:
        fw, fh = int(frame[0]), int(frame[1])
        if machine.screen_w < fw or machine.screen_h < fh:
            return f"the screen is {machine.screen_w}x{machine.screen_h}, smaller than the recorded {fw}x{fh}"
    return None


def _refuse(machine_id: str, missing: list[str]) -> None:
    m.log_event("replay_refused", replay_id=None, machine_id=machine_id, missing=missing)
    raise WorkstationNotReady(
        f"refused before the first input: {'; '.join(missing)}. Nothing was executed.",
        machine_id=machine_id,
        missing=missing,
        executed=0,
    )


def png_size(png: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's header (no decoding)."""
    if len(png) >= 24 and png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR":
        return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return None
