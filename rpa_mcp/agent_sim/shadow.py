"""Recording a person's demonstration on the virtual desktop as shadow events (docs/concepts/shadow.md).

`DemoRecorder` plays the person: each gesture is applied to the desktop as human input and
turned into the events a real agent would stream — a `focus` event when the foreground
window changes, then the gesture itself with the window title, the process and (for clicks)
the screenshot taken just before. Send them with `ReferenceAgent.stream_demonstration`.
"""

from __future__ import annotations

import base64
from typing import Any

from rpa_mcp.agent_sim.desktop import VirtualDesktop
from rpa_mcp.clock import Clock, SystemClock
from rpa_mcp.errors import NotFound


class DemoRecorder:
    def __init__(
        self,
        desktop: VirtualDesktop,
        *,
        session_id: str,
        machine_id: str,
        clock: Clock | None = None,
        screenshots: bool = True,
        uia: bool = True,
    ) -> None:
        self.desktop = desktop
        self.session_id = session_id
        self.machine_id = machine_id
        self.clock = clock or SystemClock()
        self.screenshots = screenshots
        self.uia = uia
        self.events: list[dict[str, Any]] = []
        self._window: str | None = None
        self._app = ""
        self._focus_if_changed()

    def click(self, x: int, y: int, *, kind: str = "click") -> dict[str, Any]:
        shot = self._shot()
        hotspot = self._label_at(x, y)
        control = self.desktop.element_at(x, y)  # looked up as the button goes down, like a recorder
        self.desktop.click(x, y, kind=kind, source="human")
        event = self._event(kind, x=x, y=y, button="right" if kind == "right_click" else "left")
        if control is not None and self.uia:
            event["element"] = control
        elif hotspot and self.uia:
            event["element"] = {"name": hotspot[0], "role": "", "automation_id": "", "bbox": hotspot[1]}
        if shot:
            event["screenshot"] = shot
        self._window_after()
        return event

    def click_label(self, label: str) -> dict[str, Any]:
        position = self.desktop.find_label(label)
        if position is None:
            raise NotFound(f"{label!r} is not on the current screen ({self.desktop.screen.id})", label=label)
        return self.click(*position)

    def type(self, text: str) -> dict[str, Any]:
        self.desktop.type_text(text, source="human")
        event = self._event("type", text=text)
        self._window_after()
        return event

    def key(self, keys: str) -> dict[str, Any]:
        self.desktop.press(keys, source="human")
        event = self._event("key", keys=keys)
        self._window_after()
        return event

    # --- internals ------------------------------------------------------------------------
    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        event = {
            "session_id": self.session_id,
            "machine_id": self.machine_id,
            "ts": self.clock.now(),
            "type": kind,
            "window_title": self._window or self.desktop.window_title,
            "app": self._app,
            **fields,
        }
        self.events.append(event)
        return event

    def _focus_if_changed(self) -> None:
        title = self.desktop.window_title
        if title != self._window:
            self._window = title
            self._app = self.desktop.process
            self._event("focus", window_title=title, app=self._app)

    def _window_after(self) -> None:
        self._focus_if_changed()

    def _shot(self) -> str | None:
        return base64.b64encode(self.desktop.screenshot_png()).decode("ascii") if self.screenshots else None

    def _label_at(self, x: int, y: int) -> tuple[str, list[int]] | None:
        """The name and rectangle (screen pixels) an accessibility tree gives the element at a point."""
        top = self.desktop.top_dialog
        boxes = (
            [(b.label, b.bbox) for b in top.buttons]
            if top
            else [(h.label, h.bbox) for h in self.desktop.spec.hotspots if h.screen == self.desktop.screen.id]
        )
        for label, (bx, by, bw, bh) in boxes:
            if bx <= x < bx + bw and by <= y < by + bh:
                return label, [bx, by, bw, bh]
        return None
