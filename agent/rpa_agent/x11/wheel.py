"""Where a mouse wheel only scrolls: the elements under the pointer, as the accessibility tree names them.

A wheel turned over a drop-down, a spin button, a slider, a calendar or a tab strip changes its value (GTK, Qt
and wx do, and a web page's number field may): a scroll meant to bring a target into view would change a record.
A web page's tabs are the exception: inside a document a browser scrolls the page over them.
The wheel may turn only where the deepest element is one whose value a wheel never changes (text, a text field,
a container, a list, a button, a check box, a link, an image: it passes the wheel on to its view, or scrolls its
own text), with none of those that take it on the way down to it.
"""

from __future__ import annotations

SCROLLS_ONLY = frozenset(
    {
        "label", "static", "paragraph", "heading", "caption", "image", "icon", "separator", "link", "push button",
        "panel", "filler", "section", "form", "grouping", "frame", "article", "landmark", "block quote",
        "document web", "document frame", "scroll pane", "viewport", "scroll bar",
        "table", "table row", "table cell", "column header", "row header", "list", "list item", "tree",
        "tree item", "tree table", "description list", "description term", "description value", "list box",
        "entry", "text", "password text", "check box", "radio button", "toggle button",
    }
)  # fmt: skip
TAKES_THE_WHEEL = frozenset(
    {
        "combo box", "spin button", "slider", "dial", "page tab", "page tab list",
        "calendar", "date editor", "menu", "menu bar", "menu item", "popup menu", "window", "color chooser",
        "font chooser", "editbar",
    }
)  # fmt: skip


WEB_DOCUMENTS = frozenset({"document web", "document frame"})
WEB_SCROLLS = frozenset({"page tab", "page tab list"})  # a web page's tabs: a browser scrolls the page over them


def refusal(roles: list[str]) -> str | None:
    """None when a wheel turned over this chain of elements (the frame first, the deepest last) only scrolls;
    else why it may not turn there."""
    if not roles:
        return "the accessibility tree names nothing under the pointer"
    on_a_page = any(role in WEB_DOCUMENTS for role in roles)
    taking = next((r for r in roles if r in TAKES_THE_WHEEL and not (on_a_page and r in WEB_SCROLLS)), None)
    if taking is not None:
        return f"the wheel would turn over a {taking}, which it may change ({' > '.join(roles)})"
    if roles[-1] not in SCROLLS_ONLY and not (on_a_page and roles[-1] in WEB_SCROLLS):
        return f"the wheel would turn over a {roles[-1]}, not known to pass the wheel on ({' > '.join(roles)})"
    return None
