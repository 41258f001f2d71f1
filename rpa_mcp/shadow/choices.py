"""Steps that set a control's value by clicking: a drop-down's option, a check box's state.

- ``select_option``: the click that opened a combo box and the click that chose in its list
  (folded into one step by the segmenter, `Segment.choice`). The target is the combo box; the
  value is the option's text (``params.option``, parameterisable), read from the option's own
  element when the recorder saw a list item there, else by OCR around the click on the frame
  before it (the list was open on it). A page element reported under a native pop-up never
  names the option. A list seen opening on the screen (no accessibility tree, or one that names no
  control there) gives the option on the clicked row, and the drop-down, named only by what it
  showed, is named by the label left of it (`by_label`). An option reached with the arrow keys and
  chosen with Enter (or Tab) is read in the combo box on the screen after the step. No text found:
  the step is kept, uncertain, for the person to complete (`shadow_feedback` `set_value`).
- ``set_checked``: a click on a check box (radio button) with the state it left
  (``params.checked``): a radio button is set by a click; a check box flips from the state its
  element reported when pressed. A state the recorder did not report is assumed ticked and the
  step is uncertain (asked first), as is a state read too late to be sure (`checked_state`): at
  replay the state is read first and the box clicked only when it differs. Without an accessibility
  tree, a click on a line of text beside a check box or a radio button the screen shows is one too
  (`rpa_mcp.shadow.seen_boxes`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rpa_mcp.shadow.described import Described
from rpa_mcp.shadow.elements import checked_state, element_key, is_option
from rpa_mcp.shadow.events import CLICK_TYPES
from rpa_mcp.shadow.phrases import TEXTS
from rpa_mcp.shadow.segment import Segment
from rpa_mcp.shadow.targets import CONFIDENCE, clean_label, click_evidence, click_target, plain_text

Event = tuple[int, dict[str, Any], dict[str, Any]]
UNSURE = 0.45  # a value the demonstration did not show: below the "ask first" line whatever the evidence


def option_text(option: dict[str, Any], facts: dict[str, Any], combo: dict[str, Any]) -> tuple[str | None, str]:
    """The chosen option's text and what read it (uia | ocr | raw)."""
    element = option.get("element") or {}
    key = element_key(element)
    if is_option(element) and key is not None and key != element_key(combo.get("element")):
        text = plain_text(element.get("name"))
        if text:
            return text, "uia"
    text = plain_text((facts.get("ocr") or {}).get("text"))
    return (text, "ocr") if text else (None, "raw")


def by_label(facts: dict[str, Any]) -> dict[str, Any]:
    """A drop-down seen opening on the screen and named only by what it showed (its current option, read or
    as the accessibility tree names a div by its text): named by the label left of it (`label_line`), the
    drop-down found from that label at replay."""
    line = facts.get("label_line")
    shown = (facts.get("ocr") or {}).get("bbox") or facts.get("element_bbox") or (line or {}).get("control")
    if not line or not shown:
        return facts
    named = {"text": line["text"], "bbox": list(shown)}
    return {**facts, "ocr": named, "label_box": line["bbox"], "label_text": line["text"]}


def chosen_option(seg: Segment, actions: list[Event], t: dict[str, str]) -> Described:
    """A combo box opened and an option clicked in its list: one select_option step."""
    clicks = [(i, e, f) for i, e, f in actions if e.get("type") in CLICK_TYPES]
    chosen = next((c for c in clicks if c[0] == seg.choice), clicks[-1])
    combo = next((c for c in reversed(clicks) if c[0] < chosen[0]), chosen)
    facts = by_label(combo[2])
    ev = click_evidence(combo[1], facts)
    target = click_target(combo[1], facts, ev)
    label = ev.label if ev.source in ("uia", "ocr") else None
    # chosen by the arrows and Enter: the option is not under any click (read after the step: `read_after`)
    text, read_by = (None, "raw") if seg.keyed else option_text(chosen[1], chosen[2], combo[1])
    shown = clean_label(text, limit=40)
    if text is None:
        intent = t["choose_unknown"].format(label=label or ev.label or "?")
        return Described(
            intent, "select_option", min(ev.confidence, UNSURE), ev.source, target, {}, None, "uncertain", label
        )
    intent = t["choose_option"].format(value=shown, label=label) if label else t["choose_option_at"].format(value=shown)
    confidence = min(ev.confidence, CONFIDENCE[read_by]) if label else min(CONFIDENCE[read_by], UNSURE)
    pattern = "collapsed" if seg.collapsed else "plain"
    return Described(intent, "select_option", confidence, ev.source, target, {"option": text}, text, pattern, label)


def read_after(d: Described, text: str | None, locale: str) -> Described:
    """A select_option step whose option was chosen by the keyboard, with the option its combo box shows
    once the step is done (read on the screen after it): still uncertain, so the person is asked first."""
    shown = clean_label(text, limit=40)
    if d.action_type != "select_option" or d.params.get("option") or not text or not shown:
        return d
    t = TEXTS["fr" if locale == "fr" else "en"]
    label = d.field_label
    intent = t["choose_option"].format(value=shown, label=label) if label else t["choose_option_at"].format(value=shown)
    return replace(d, intent=intent, params={"option": text}, value=text)


def set_checked(
    event: dict[str, Any],
    target: dict[str, Any],
    label: str | None,
    evidence: str,
    confidence: float,
    pattern: str,
    t: dict[str, str],
) -> Described:
    """A click on a check box or a radio button: the state it left is the step's value."""
    state, sure = checked_state(event.get("element"))
    name = label or f"({event.get('x')}, {event.get('y')})"
    if state is None:  # the recorder did not say: ticked, most likely; the person confirms it
        intent = t["check"].format(label=name)
        params = {"checked": True}
        return Described(intent, "set_checked", min(confidence, UNSURE), evidence, target, params, None, "uncertain")
    intent = t["check" if state else "uncheck"].format(label=name)
    params = {"checked": state}
    if not sure:  # the state may have been read after the box flipped: the person confirms it
        return Described(intent, "set_checked", min(confidence, UNSURE), evidence, target, params, None, "uncertain")
    return Described(
        intent, "set_checked", confidence if label else min(confidence, UNSURE), evidence, target, params, None, pattern
    )


def value_shown(action_type: str, params: dict[str, Any]) -> dict[str, str] | None:
    """The post-condition of a step that sets a control: the option shown, the box's state."""
    if action_type == "select_option" and isinstance(params.get("option"), str):
        return {"kind": "option_shown", "text": params["option"]}
    if action_type == "set_checked" and isinstance(params.get("checked"), bool):
        return {"kind": "checked", "text": "checked" if params["checked"] else "unchecked"}
    return None
