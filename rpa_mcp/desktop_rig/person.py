"""A scripted person at a virtual desk: finds elements the way they look (AT-SPI names, and what is drawn)
and acts with real XTEST input (`rpa_agent.x11.inject`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rpa_mcp.desktop_rig.harness import VirtualDisplay, wait_until

# roles whose name is drawn inside their own box (a field's name is its label, beside it)
NAMED_INSIDE = frozenset(
    {"push button", "link", "page tab", "menu item", "toggle button", "list item", "table cell", "heading", "label"}
)
REACTION_S = 0.3  # from seeing a button drawn to pressing it: a person's visual reaction and pointing


def drawn_text(desk: VirtualDisplay, ocr: Any) -> Callable[[str, tuple[int, int, int, int]], bool]:
    """`Person(sees=...)`: `name` read by `ocr` (an OcrEngine) in its box on the screen now."""
    from rpa_agent.x11.screen import Screen

    from rpa_mcp.desktop_rig import frame_array
    from rpa_mcp.vision.ocr import normalize_text

    def sees(name: str, box: tuple[int, int, int, int]) -> bool:
        x, y, w, h = box
        screen = Screen(desk.display)
        try:
            width, height = screen.size()
            left, top = max(0, x - 4), max(0, y - 4)
            right, bottom = min(width, x + w + 4), min(height, y + h + 4)
            if right <= left or bottom <= top:
                return False
            frame = screen.grab_region((left, top, right - left, bottom - top))
        finally:
            screen.close()
        read = " ".join(line.text for line in ocr.read(frame_array(frame)))
        return normalize_text(name) in normalize_text(read)

    return sees


class Person:
    """A scripted person at the desk: finds elements the way they look (AT-SPI names) and uses XTEST."""

    def __init__(
        self,
        desk: VirtualDisplay,
        *,
        pace: Callable[[str], None] | None = None,
        sees: Callable[[str, tuple[int, int, int, int]], bool] | None = None,
    ) -> None:
        """`pace(gesture)` is called after each click and key: a person looks before going on
        (tests pass a condition such as "the recorder has seen it"). `sees(name, box)` tells whether
        `name` is drawn on the screen in `box` (`drawn_text`): given, a button or link is clicked only
        once it is drawn and a person's reaction later — the accessibility tree holds a page's new
        elements before the browser paints them, and no person clicks what is not yet on the screen."""
        from rpa_agent.x11.atspi import Accessibility
        from rpa_agent.x11.inject import Injector

        self.desk = desk
        self.pace = pace or (lambda gesture: None)
        self.sees = sees
        self.hands = Injector(desk.display)
        self.eyes = Accessibility(desk.env.get("DBUS_SESSION_BUS_ADDRESS"))

    def close(self) -> None:
        self.hands.close()
        self.eyes.close()

    def find(self, name: str, role: str | None = None, *, timeout: float = 30.0) -> Any:
        def look() -> Any:
            front = self.desk.windows().foreground()
            return self.eyes.find(name, role=role, window_title=front.title if front else None)

        return wait_until(look, timeout=timeout, what=f"an element {name!r}{f' ({role})' if role else ''} on screen")

    def point(self, name: str, role: str | None = None) -> tuple[int, int]:
        element = self.find(name, role)
        if self.sees is not None and (element.role or "").lower() in NAMED_INSIDE:
            self._wait_drawn(name, role)
            element = self.find(name, role)
        x, y, w, h = element.bbox
        return x + w // 2, y + h // 2

    def _wait_drawn(self, name: str, role: str | None) -> None:
        """Until `name` is drawn where the tree puts it, then a person's reaction time."""
        assert self.sees is not None
        sees = self.sees

        def drawn() -> bool:
            element = self.find(name, role)
            return bool(sees(name, tuple(element.bbox)))

        wait_until(drawn, timeout=30, what=f"{name!r} drawn on the screen")
        time.sleep(REACTION_S)  # the person's pace, not a wait for the system: see it, then point and press

    def click(self, name: str, role: str | None = None) -> tuple[int, int]:
        x, y = self.point(name, role)
        self.hands.click(x, y)
        self.pace("click")
        return x, y

    def click_field(self, name: str, role: str | None = None) -> tuple[int, int]:
        """Click a text field and wait until it has the keyboard focus, as a person sees the caret."""
        point = self.click(name, role)
        self.find_focused(name, role)
        return point

    def find_focused(self, name: str, role: str | None = None, *, timeout: float = 30.0) -> Any:
        def look() -> Any:
            front = self.desk.windows().foreground()
            element = self.eyes.find(name, role=role, window_title=front.title if front else None)
            return element if element is not None and element.focused else None

        return wait_until(look, timeout=timeout, what=f"the keyboard focus in {name!r}")

    def type(self, text: str) -> None:
        self.hands.type_text(text)

    def press(self, keys: str) -> None:
        self.hands.combo(keys)
        self.pace("key")
