"""The wheel may turn only over what it scrolls: read from the accessibility tree, never guessed.

The tree is the in-memory bus of test_atspi_popups (a labelled drop-down above a date field, and a pop-up list
when open); the window stack is a fake with the window in front and the one above it.
"""

from __future__ import annotations

from rpa_agent.x11 import wheel
from rpa_agent.x11.desktop import X11Windows
from rpa_agent.x11.windows import WindowInfo

from tests.agent_x11.test_atspi_popups import TITLE, HitTestTree, admission

FRONT = WindowInfo(7, TITLE, 42, "python3", "admission", (0, 0, 1920, 1080))
VIEWER = WindowInfo(9, "PACS viewer", 43, "pacs", "pacs", (100, 100, 400, 300))


class Stack:
    def __init__(self, *shown: WindowInfo) -> None:
        self.shown = list(shown)

    def foreground(self) -> WindowInfo:
        return FRONT

    def stacked(self) -> list[WindowInfo]:
        return self.shown


def refusal(x: int, y: int, *, popup_open: bool = False, stack: Stack | None = None) -> str | None:
    windows = X11Windows(stack or Stack(FRONT), HitTestTree(admission(popup_open)))  # type: ignore[arg-type]
    return windows.wheel_refusal(x, y)


def test_over_a_label_or_a_panel_the_wheel_only_scrolls() -> None:
    assert HitTestTree(admission(False)).roles_at(1500, 210, TITLE) == ["frame", "panel", "label"]
    assert refusal(1500, 210) is None
    assert refusal(1460, 160) is None  # the panel itself


def test_over_a_text_field_it_only_scrolls_over_a_drop_down_or_an_open_list_it_may_not() -> None:
    assert refusal(1700, 250) is None  # a field: the wheel scrolls its text or its page, never its value
    assert "combo box" in str(refusal(1700, 211))
    assert "window" in str(refusal(1700, 243, popup_open=True))  # the open list's pop-up is above everything


def test_outside_the_window_in_front_or_under_another_window_it_may_not() -> None:
    assert "not in the window in front" in str(refusal(200, 200, stack=Stack(VIEWER, FRONT)))
    assert "not in the window in front" in str(refusal(2500, 200))
    nothing = X11Windows(Stack(FRONT), HitTestTree({}))  # type: ignore[arg-type]
    assert "does not say" in str(nothing.wheel_refusal(1500, 210))


def test_a_control_that_takes_the_wheel_refuses_it_wherever_it_is_on_the_way_down() -> None:
    for taking in ("combo box", "spin button", "slider", "page tab list", "calendar", "menu"):
        assert taking in str(wheel.refusal(["frame", "panel", taking, "label"])), taking
    assert wheel.refusal(["frame", "scroll pane", "viewport", "table", "table cell"]) is None
    assert "canvas" in str(wheel.refusal(["frame", "canvas"]))  # unknown: it may zoom or draw
    assert wheel.refusal([]) is not None


def test_a_web_page_s_tabs_pass_the_wheel_on_a_toolkit_s_tab_strip_does_not() -> None:
    assert wheel.refusal(["frame", "document web", "section", "page tab list", "page tab"]) is None
    assert "page tab" in str(wheel.refusal(["frame", "filler", "page tab list", "page tab"]))  # GTK, Qt: switches
    assert "combo box" in str(wheel.refusal(["frame", "document web", "form", "combo box"]))
