"""Check boxes only the screen shows: a click on a line of text beside a box no accessibility tree names.

Without an accessibility tree (or when it names no control there: a check box drawn with divs, named
by its text), a plain click named by a line of text is a `set_checked` step when the frame before the
click shows a check box beside that line (or at its start: OCR may box the square with its text,
`rpa_mcp.vision.checkbox`):
- the box flipped between the frame before the click and the frame after the step: the step leaves the
  state seen after (`seen_checked`);
- no flip seen (the frame after taken before the repaint, a box drawn in a style whose state is not
  read, the box toggled twice in the step) while the rest of the screen stayed as it was (a click that
  opened a page or a form did something else: a button's first letter may look like a box at a small
  scale): the state is not known. Like a state the recorder did not report, it is assumed ticked and
  the step is uncertain, asked first (`unseen_checked`); the person says the state (`shadow_feedback`
  `set_value` with `checked`).
A radio button's round mark beside the line (`rpa_mcp.vision.radio`) is such a box too, with one
difference: a click sets a radio, never clears it, so only its selection counts as a flip (a radio seen
cleared was cleared by another's selection: no flip seen). The step is the one a radio button the tree
shows gives, `set_checked` with `checked: true`.
A line with no box beside it, or a click after which the screen changed and no box flipped, stays a click.
The step keeps the mark the frame before showed (`target.mark`, `rpa_mcp.vision.marks.Learned`): at replay
only a mark of that kind at that place beside the label is read, any other says no state.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rpa_mcp.shadow.choices import UNSURE
from rpa_mcp.shadow.described import Described
from rpa_mcp.shadow.elements import is_control
from rpa_mcp.shadow.events import CLICK_TYPES
from rpa_mcp.shadow.phrases import TEXTS
from rpa_mcp.shadow.targets import clean_label

Event = tuple[int, dict[str, Any], dict[str, Any]]


def seen_box_candidate(d: Described, actions: list[Event]) -> tuple[str, list[int]] | None:
    """(the frame before, the line that named it) of a plain click on no control the accessibility tree knows
    (only the screen named it, or the tree named static text, a section, by its own text): a check box beside
    that line on the frame before makes it a `set_checked` step (`seen_box`)."""
    clicks = [(e, f) for _, e, f in actions if e.get("type") in CLICK_TYPES]
    if d.action_type != "click_anchor" or d.evidence not in ("ocr", "uia") or not clicks:
        return None
    event, facts = clicks[-1]
    element = event.get("element") or {}
    if element.get("name") and is_control(element):
        return None  # the accessibility tree says what the control is (a check box says its state itself)
    line = (facts.get("ocr") or {}).get("bbox") or facts.get("element_bbox")  # read, or the text the tree named
    if not facts.get("shot") or not line:
        return None
    return str(facts["shot"]), list(line)


def seen_box(
    d: Described, mark: dict[str, Any] | None, flipped_to: bool | None, locale: str, *, stayed: bool
) -> Described:
    """A candidate click (`seen_box_candidate`) as the screen showed it: `mark`, the check box (radio button)
    beside its line on the frame before, as the step learns it (its kind and place); `flipped_to`, the state
    it flipped to by the frame after the step (None: no flip seen); `stayed`, the screen after the step is the
    one before, but for a few pixels."""
    if mark is None:
        return d
    if flipped_to is not None:
        return seen_checked(d, flipped_to, locale, mark)
    return unseen_checked(d, locale, mark) if stayed else d


def seen_checked(d: Described, state: bool, locale: str, mark: dict[str, Any]) -> Described:
    """A click after which the check box beside the line that named it flipped, seen on the screen (no
    accessibility tree said it was one): a `set_checked` step leaving the state the screen showed after."""
    t = TEXTS["fr" if locale == "fr" else "en"]
    label = clean_label(d.target.get("by_text")) or "?"
    intent = t["check" if state else "uncheck"].format(label=label)
    target = d.target | {"mark": mark}
    return replace(d, intent=intent, action_type="set_checked", params={"checked": state}, value=None, target=target)


def unseen_checked(d: Described, locale: str, mark: dict[str, Any]) -> Described:
    """A click beside a check box whose flip no frame showed: a `set_checked` step whose state is not known,
    assumed ticked and uncertain (as when the recorder did not report a state), for the person to confirm."""
    t = TEXTS["fr" if locale == "fr" else "en"]
    label = clean_label(d.target.get("by_text")) or "?"
    return replace(
        d,
        intent=t["check"].format(label=label),
        action_type="set_checked",
        confidence=min(d.confidence, UNSURE),
        params={"checked": True},
        value=None,
        pattern="uncertain",
        target=d.target | {"mark": mark},
    )
