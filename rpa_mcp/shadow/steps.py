"""Steps as shown to a person, derived from the segments and their stored events.

Each step carries what the LLM needs to show a short numbered list and to ask the right
questions: intent, value (what it typed or chose), evidence (what named it) and
post-conditions (what proved it worked), a calibrated confidence, and suggestions.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Protocol

from rpa_mcp.shadow.calibration import Calibration
from rpa_mcp.shadow.choices import read_after, value_shown
from rpa_mcp.shadow.classes import step_class_of
from rpa_mcp.shadow.doubts import STILL, capped, click_on_no_control, doubts
from rpa_mcp.shadow.elements import is_button, screen_title
from rpa_mcp.shadow.events import CLICK_TYPES, normalize_keys
from rpa_mcp.shadow.intents import describe
from rpa_mcp.shadow.parameters import placeholder, type_of
from rpa_mcp.shadow.postconditions import (
    after_step,
    collect,
    identity_of,
    notified,
    outcome_of,
    shot_before,
    wants_toast,
)
from rpa_mcp.shadow.retarget import retargeted
from rpa_mcp.shadow.seen_boxes import seen_box, seen_box_candidate
from rpa_mcp.shadow.segment import Segment
from rpa_mcp.shadow.shots import SCREENSHOT_URI
from rpa_mcp.shadow.suggestions import stray_candidate, suggest
from rpa_mcp.shadow.targets import clean_label

LOOK_BEHIND = 3  # events before a step read for the screenshot it started from
PARAMETER_TARGET_DROPS = ("bbox", "frame_size", "anchor_ref", "anchor_offset", "x_pct", "y_pct")


class Screens(Protocol):
    """The screenshots behind the steps, read when a step's evidence needs them."""

    def toast(self, idx: int, before: str, after: str, exclude: list[int] | None) -> str | None:
        """A success message that appeared between two screenshots (cached on event `idx`)."""
        ...

    def opened(self, idx: int, before: str, after: str, exclude: list[int] | None) -> str | None:
        """The title of a form or dialog that opened over an unchanged screen (cached on event `idx`)."""
        ...

    def same_screen(self, a: str, b: str, *, max_change: float = ...) -> bool | None:
        """Whether two screenshots show the same screen, at most `max_change` of their pixels changed (None:
        cannot tell)."""
        ...

    def box_seen(self, idx: int, before: str, after: str, line: list[int]) -> tuple[dict[str, Any] | None, bool | None]:
        """(the check box or radio button beside a line on the screenshot before, as a step learns it: its
        kind and place, `rpa_mcp.vision.marks.Learned`, None when none stands there; the state it flipped to
        by the screenshot after: None when it did not flip or was not read on both, or when a radio was
        cleared: a click never clears one); cached on event `idx`."""
        ...

    def text_in(self, idx: int, shot: str, box: list[int]) -> str | None:
        """The text a box of a screenshot shows, e.g. a combo box's option (cached on event `idx`)."""
        ...


def derive_steps(
    rows: list[dict[str, Any]],
    segments: Sequence[Segment],
    locale: str,
    *,
    positions: Sequence[int],
    calibration: Calibration,
    screens: Screens | None = None,
    window_now: str | None = None,
) -> dict[int, dict[str, Any]]:
    """Steps (by segment position); `rows` must hold their events, a few before and a few after."""
    by_idx = {r["idx"]: r for r in rows}
    position = {r["idx"]: p for p, r in enumerate(rows)}
    count = len(segments)
    out = {}
    for p in positions:
        seg = segments[p]
        evs = [(i, by_idx[i]["event"], by_idx[i]["facts"]) for i in seg.events if i in by_idx]
        if not evs:
            continue
        first_event, first_facts = evs[0][1], evs[0][2]
        before = (
            first_facts.get("wb")
            if first_event.get("type") == "focus" or seg.kind == "detour"
            else (first_event.get("window_title") or first_facts.get("wb"))
        )
        last_pos = position.get(seg.events[-1])
        after = window_after(evs, rows, last_pos, window_now, is_last=p == count - 1)
        if seg.kind == "detour":
            after = (seg.detour or {}).get("back_to") or after
            before = after
        d = describe(seg, evs, locale, window_after=after)
        notes, shot_after = after_step(rows, last_pos)
        if screens is not None and shot_after and (line := seen_box_candidate(d, evs)):
            mark, flipped_to = screens.box_seen(evs[-1][0], line[0], shot_after, line[1])
            stayed = mark is not None and flipped_to is None and screens.same_screen(line[0], shot_after) is True
            d = seen_box(d, mark, flipped_to, locale, stayed=stayed)
        if seg.keyed and screens is not None and shot_after and d.target.get("bbox"):
            d = read_after(d, screens.text_in(seg.events[-1], shot_after, d.target["bbox"]), locale)
        notes = notified(evs) + notes
        actions = [(i, e, f) for i, e, f in evs if e.get("type") != "screenshot"]
        toast = opened = shot = None
        if actions:
            principal = next((x for x in reversed(actions) if x[1].get("type") != "focus"), actions[-1])
            shot = shot_before(rows, position.get(principal[0]), principal[2])
        if screens is not None and shot and shot_after and shot != shot_after and wants_toast(d.action_type, actions):
            toast = screens.toast(actions[-1][0], shot, shot_after, d.target.get("bbox"))
            if toast is None and after == before:  # a form opened inside the same window
                opened = screens.opened(actions[-1][0], shot, shot_after, d.target.get("bbox"))
        post, expected = collect(
            action_type=d.action_type,
            window_before=before,
            window_after=after,
            came_back=functools.partial(_began_on, segments, p, after),
            notes=notes,
            toast=toast,
            answered=_answers(evs),
        )
        if opened:
            post.append({"kind": "dialog_opened", "text": opened})
        if shown := value_shown(d.action_type, {**d.params, **(seg.value or {})}):
            post.insert(0, shown)
        same = None
        if seg.kind == "detour" and screens is not None:
            shot_then = (seg.detour or {}).get("shot_before")
            same = screens.same_screen(shot_then, shot_after) if shot_then and shot_after else None
        elif stray_candidate(d) and screens is not None and actions:  # a click on nothing: did anything change?
            shot_then = shot_before(rows, position.get(actions[0][0]), actions[0][2])
            same = screens.same_screen(shot_then, shot_after) if shot_then and shot_after else None
        still = None  # a click on no control: did the screen stay still, to the pixel (a caret aside)?
        if click_on_no_control(d) and screens is not None and actions and shot_after:
            shot_then = shot_before(rows, position.get(actions[0][0]), actions[0][2])
            still = screens.same_screen(shot_then, shot_after, max_change=STILL) if shot_then else None
        suggestions = suggest(seg, d, locale, screen_same=same)  # names settled over all steps by the caller
        params, target, intent, value = dict(d.params), dict(d.target), d.intent, d.value
        if seg.retarget:  # a person named another element of the step's screenshot
            intent = _renamed(intent, target.get("label") or target.get("by_text"), seg.retarget["label"])
            target = retargeted(target, seg.retarget)
        if seg.value:  # a person set what the step types, chooses or leaves ticked
            params |= seg.value
            if "checked" not in seg.value:
                intent, value = _renamed(intent, value, next(iter(seg.value.values()))), next(iter(seg.value.values()))
        # before a parameter replaces the label; a button seen on the screen only for the text the person clicked
        pushed = not seg.retarget and any(f.get("button_box") for _, e, f in evs if e.get("type") in CLICK_TYPES)
        identity = identity_of(d.action_type, target, seg.parameter, seen_button=pushed)
        parameter = None
        if seg.parameter:
            parameter, intent = _parameterized(seg.parameter, d.action_type, params, target, intent, value)
        confidence = calibration.confidence(d.action_type, d.evidence, d.pattern, d.confidence)
        if d.pattern == "uncertain":  # what the step does was not seen whole: no table makes it surer
            confidence = min(confidence, d.confidence)
        doubted = doubts(
            d.action_type,
            target,
            params,
            field_label=None if seg.retarget else d.field_label,
            suggestions=suggestions,
            screen_still=still,
            value_assumed=d.pattern == "uncertain" and not seg.value,
        )
        confidence = 1.0 if seg.intent else round(capped(confidence, doubted), 2)
        step: dict[str, Any] = {
            "index": p + 1,
            "intent": seg.intent or intent,
            "action_type": d.action_type,
            "confidence": confidence,
            "evidence": "person" if seg.intent else d.evidence,
            "shape": d.pattern,
            "value": value,
            "events": list(seg.events),
            "target": target,
            "screenshot": f"{SCREENSHOT_URI}{shot}" if shot else None,  # the screen the step began on
            "params": params,
            "status": seg.status,
            "window_before": before,
            "window_after": after,
            "post_conditions": post,
            "expected": expected,
            # set (or cleared: {}) by the person's feedback, else what the demonstration showed
            "expected_outcome": (seg.outcome or None)
            if seg.outcome is not None
            else outcome_of(post, answered=_answers(evs)),
            "identity": identity,
            "suggestions": suggestions,
            "doubts": [] if seg.intent else doubted,
            "parameter": parameter,
            "step_class": seg.step_class
            or step_class_of({"action_type": d.action_type, "target": target, "intent": intent, "params": params}),
            "uncheckable": seg.uncheckable,
            "updated_at": seg.updated_at,
        }
        if seg.intent:
            step["original_intent"] = d.intent
        if seg.record_confirmed and identity:
            step["record_confirmed"] = True
        out[p] = step
    return out


def _renamed(intent: str, old: Any, new: str) -> str:
    """The intent naming `new` where it quoted `old` (as the understanding quotes screen text)."""
    shown = clean_label(old, limit=40) if isinstance(old, str) else None
    return intent.replace(f"'{shown}'", f"'{clean_label(new, limit=40) or new}'") if shown else intent


def _began_on(segments: Sequence[Segment], p: int, window: str | None) -> bool:
    """Whether a step before position `p` began on this window (asked only when a step answered something)."""
    wanted = screen_title(window)
    return any(screen_title(s.window) == wanted for s in segments[:p])


def _answers(evs: Sequence[tuple[int, dict[str, Any], dict[str, Any]]]) -> bool:
    """The step pressed a button (the tree's, or one seen on the screen) or Enter/Escape: it answered a dialog."""
    for _, e, f in evs:
        if e.get("type") == "click" and (is_button(e.get("element")) or f.get("button_box")):
            return True
        if e.get("type") == "key" and normalize_keys(e.get("keys") or "") in ("enter", "escape"):
            return True
    return False


def _parameterized(
    spec: dict[str, Any],
    action_type: str,
    params: dict[str, Any],
    target: dict[str, Any],
    intent: str,
    value: str | None,
) -> tuple[dict[str, Any], str]:
    """The step types (or chooses) {{name}} instead of the demonstration's value. A record's part (the first
    name beside a surname another parameter names): its target keeps the row's text, which the build writes
    with both parameters ('{{nom}} {{prenom}}', `rpa_mcp.shadow.ir.templated`)."""
    name, mark = spec["name"], placeholder(spec["name"])
    kind = spec.get("type") or "string"
    if spec.get("part_of_record") and isinstance(part := spec.get("example"), str) and isinstance(value, str):
        shown = clean_label(value, limit=40)
        intent = intent.replace(f"'{shown}'", f"'{shown.replace(part, mark)}'") if shown else intent
        return {"name": name, "type": kind, "example": part, "description": spec.get("description") or ""}, intent
    if action_type == "type_text":
        params["text"] = mark
    elif action_type == "select_option":
        params["option"] = mark
    else:
        target["by_text"] = target["label"] = mark
        if isinstance(target.get("element"), dict):
            target["element"] = {k: v for k, v in target["element"].items() if k not in ("bbox", "rect")} | {
                "name": mark
            }
        for key in PARAMETER_TARGET_DROPS:  # they show the demonstration's item, not the one to choose
            target.pop(key, None)
    for shown in {clean_label(value, limit=40), clean_label(value)} - {None}:
        intent = intent.replace(f"'{shown}'", f"'{mark}'")
    return {
        "name": name,
        "type": type_of(kind) if kind not in ("string", "number", "date") else kind,
        "example": value,
        "description": spec.get("description") or "",
    }, intent


def window_after(
    evs: list[tuple[int, dict[str, Any], dict[str, Any]]],
    rows: list[dict[str, Any]],
    pos: int | None,
    window_now: str | None,
    *,
    is_last: bool,
) -> str | None:
    titles = [e.get("window_title") for _, e, _ in evs if e.get("type") == "focus" and e.get("window_title")]
    if titles:
        return titles[-1]
    if pos is not None:
        for row in rows[pos + 1 : pos + 6]:
            title = row["event"].get("window_title")
            if title:
                return str(title)
    return window_now if is_last else (evs[-1][1].get("window_title") or None)
