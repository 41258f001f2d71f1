"""Where a mouse wheel only scrolls: the elements under the pointer, as the accessibility tree names them.

A wheel turned over a drop-down, a spin button, a slider, a calendar or a tab strip changes its value (GTK, Qt
and wx do, and a web page's number field may): a scroll meant to bring a target into view would change a record.
The wheel may turn only where the deepest element is one known to pass the wheel on to its view (text, a
container, a list, a button, a link, an image), with none of those that take it on the way down to it.
"""

from __future__ import annotations

SCROLLS_ONLY = frozenset(
    {
        "label", "static", "paragraph", "heading", "caption", "image", "icon", "separator", "link", "push button",
        "panel", "filler", "section", "form", "grouping", "frame", "article", "landmark", "block quote",
        "document web", "document frame", "scroll pane", "viewport", "scroll bar",
        "table", "table row", "table cell", "column header", "row header", "list", "list item", "tree",
        "tree item", "tree table", "description list", "description term", "description value",
    }
)  # fmt: skip
TAKES_THE_WHEEL = frozenset(
    {
        "combo box", "spin button", "slider", "dial", "page tab", "page tab list",
        "calendar", "date editor", "menu", "menu bar", "menu item", "popup menu", "window", "color chooser",
        "font chooser", "editbar",
    }
)  # fmt: skip


def refusal(roles: list[str]) -> str | None:
    """None when a wheel turned over this chain of elements (the frame first, the deepest last) only scrolls;
    else why it may not turn there."""
    if not roles:
        return "the accessibility tree names nothing under the pointer"
    taking = next((role for role in roles if role in TAKES_THE_WHEEL), None)
    if taking is not None:
        return f"the wheel would turn over a {taking}, which it may change"
    if roles[-1] not in SCROLLS_ONLY:
        return f"the wheel would turn over a {roles[-1]}, not known to pass the wheel on"
    return None
