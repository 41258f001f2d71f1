"""A click in the list the step's own click opened, seen on the screen when no accessibility tree says so.

An application drawn without an accessibility tree (a Tk form, a custom-drawn page) reports no combo
box role: the segmenter cannot know that a click opened a list. The screen can: between the frame
before the step's click and the frame before this one, a pop-up appeared by the clicked control
(`rpa_mcp.vision.popup.opened_list`) and this click lands in it. The two clicks are then one
`select_option` step, the option named by OCR: the line of the list on the clicked row
(`ClickFacts.option_at`; an option's text is at the row's start, the click anywhere along it).
A click on a control the accessibility tree names (a list item, a button, a field) is left to the tree;
one on what it names by its own text only (static text, a section: a div drawn as a list or under it)
is read on the screen.
"""

from __future__ import annotations

from typing import Any

from rpa_mcp.shadow.click_facts import ClickFacts, frame_point
from rpa_mcp.shadow.elements import is_control
from rpa_mcp.shadow.events import CLICK_TYPES, TraceEvent
from rpa_mcp.shadow.ports import TraceRepository
from rpa_mcp.shadow.segment import Segment
from rpa_mcp.vision.popup import opened_list


def opened_list_at(
    clicks: ClickFacts, traces: TraceRepository, sid: str, seg: Segment | None, ev: TraceEvent, facts: dict[str, Any]
) -> list[int] | None:
    """The pop-up (frame pixels) the open step `seg`'s click opened, when the click `ev` (its `facts` just read)
    lands in it; None otherwise."""
    if ev.type != "click" or seg is None or seg.closed or seg.kind != "click" or seg.typed or seg.popup:
        return None
    element = ev.element.model_dump() if ev.element is not None else None
    if element and (element.get("name") or "").strip() and is_control(element):
        return None  # the accessibility tree names the control clicked: it knows better than pixels
    rows = traces.events(sid, seg.events[0], seg.events[-1] + 1)
    opener = next((r["facts"] for r in reversed(rows) if r["event"].get("type") in CLICK_TYPES), None)
    if opener is None:
        return None
    before, after = clicks.frame(opener.get("shot")), clicks.frame(facts.get("shot"))
    start, end = frame_point(opener), frame_point(facts)
    if before is None or after is None or start is None or end is None:
        return None
    box = opened_list(before, after, start, end)
    return list(box) if box is not None else None


def name_opener(clicks: ClickFacts, traces: TraceRepository, sid: str, seg: Segment) -> None:
    """A drop-down seen opening on the screen, named by the text it shows (its current option, which the
    choice replaces, as read or as the accessibility tree names a div by its text) or clicked beside that text
    (the drop-down's box then told by the list's column): name it by the label left of it instead, kept in its
    click's facts (`label_line`)."""
    if seg.choice is None:
        return
    rows = {r["idx"]: r for r in traces.events(sid, seg.events[0], seg.choice + 1)}
    if not (rows.get(seg.choice) or {}).get("facts", {}).get("list_box"):
        return  # the accessibility tree said it was a drop-down: it names it too
    opener = next((i for i in reversed(seg.events) if i < seg.choice and i in rows and _clicked(rows[i])), None)
    if opener is None or "label_line" in rows[opener]["facts"]:
        return
    facts = dict(rows[opener]["facts"])
    facts["label_line"] = clicks.label_left_of(facts, rows[seg.choice]["facts"]["list_box"])
    traces.update_facts(sid, opener, facts)


def _clicked(row: dict[str, Any]) -> bool:
    return row["event"].get("type") in CLICK_TYPES
