"""How the X11 agent carries out the steps that set a control: `select_option` and `set_checked`.

- ``select_option``: click the drop-down (resolved like any target), wait for its list, find the
  option's text in the opened list through the server's `resolve_target` (its OCR and quality
  guard, around the drop-down: the same words elsewhere on the page are beyond its drift guard;
  the option is never clicked at a guessed place), click it. An option not found closes
  the list (Escape) and the step is reported not resolved: the replay pauses.
- ``set_checked``: read the box's state (AT-SPI `checked` where the application exposes it, else the
  server's reading of the box beside its label, `resolve_target` with `check_state`), click only
  when it differs from the wanted one, read it again; the state read after goes back in the
  result's `output.checked`, which the server's check compares with the wanted one. A state that
  cannot be read is never guessed: nothing is clicked and the step is reported not resolved.

The agent reaches this module through `ChoicePort` (its hands, its screen, the server, the
accessibility bus), so the module moves with the agent and is tested without a display.
"""

from __future__ import annotations

import base64
import functools
import os
from dataclasses import dataclass
from typing import Any, Protocol

from rpa_mcp.agent_x11.atspi import Accessibility
from rpa_mcp.agent_x11.locate import RESOLVE_PATH, Located
from rpa_mcp.replay.choices import wanted_state
from rpa_mcp.replay.wire import NextAction

KINDS = frozenset({"select_option", "set_checked"})


class ChoiceFailed(Exception):
    """The control could not be set; `reason` is the result's error (the replay pauses)."""

    def __init__(self, reason: str, *, clicked: bool) -> None:
        super().__init__(reason)
        self.reason, self.clicked = reason, clicked


class ChoicePort(Protocol):
    def click(self, x: int, y: int) -> None: ...

    def press(self, keys: str) -> None: ...

    def screen_size(self) -> tuple[int, int]: ...

    def settled_png(self) -> bytes:
        """The screen once it stopped changing, as PNG."""
        ...

    def find(self, spec: dict[str, Any], png: bytes) -> Located:
        """The server's resolution of a target spec on this screenshot."""
        ...

    def checked_at(self, x: int, y: int) -> bool | None:
        """The check box's state at a point from the accessibility tree, None when it does not say."""
        ...

    def checked_on_screen(self, spec: dict[str, Any], png: bytes) -> bool | None:
        """The server's reading of the box's state beside its label, None when it cannot tell."""
        ...


def carry_out(port: ChoicePort, action: NextAction, position: tuple[int, int]) -> dict[str, Any] | None:
    """Set the control; the output to report (set_checked: the state read after). Raises ChoiceFailed."""
    if action.action_type == "select_option":
        choose_option(port, action, position)
        return None
    return {"checked": set_checked(port, action, position)}


def choose_option(port: ChoicePort, action: NextAction, position: tuple[int, int]) -> None:
    option = action.params.get("option")
    if not isinstance(option, str) or not option:
        raise ChoiceFailed("INVALID_ACTION: select_option needs params.option (the option's text)", clicked=False)
    port.click(*position)
    width, height = port.screen_size()
    # looked for around the drop-down (its list opens beside it), never as the same words elsewhere on the page
    spec: dict[str, Any] = {
        "label": option,
        "by_text": option,
        "rel_x": position[0] / width,
        "rel_y": position[1] / height,
    }
    if action.target is not None and action.target.window_title:
        spec["window_title"] = action.target.window_title
    found = port.find(spec, port.settled_png())
    if not found.found:
        port.press("escape")  # close the list: nothing chosen
        raise ChoiceFailed(f"target_not_resolved: option {option!r} not in the list: {found.reason}", clicked=True)
    port.click(int(found.x or 0), int(found.y or 0))


def set_checked(port: ChoicePort, action: NextAction, position: tuple[int, int]) -> bool:
    wanted = wanted_state(action.params)
    if wanted is None:
        raise ChoiceFailed("INVALID_ACTION: set_checked needs params.checked (true or false)", clicked=False)
    before = _state(port, action, position, None)
    if before is None:
        raise ChoiceFailed("target_not_resolved: the box's state cannot be read: it is not clicked", clicked=False)
    if before == wanted:
        return before  # already so: nothing to click
    port.click(*position)
    after = _state(port, action, position, port.settled_png())
    if after is None:
        raise ChoiceFailed("TEXT_MISMATCH: the box's state cannot be read after the click", clicked=True)
    return after


def _state(port: ChoicePort, action: NextAction, position: tuple[int, int], png: bytes | None) -> bool | None:
    state = port.checked_at(*position)
    if state is not None:
        return state
    label = action.target.label if action.target is not None else None
    if not label:
        return None
    return port.checked_on_screen({"label": label, "by_text": label, "check_state": True}, png or port.settled_png())


@dataclass
class AgentPort:
    """The X11 agent's own hands, screen, server and accessibility bus, as `ChoicePort` (and `ScrollPort`)."""

    agent: Any  # rpa_mcp.agent_x11.agent.X11Agent (not imported: the agent imports this module)
    action: NextAction

    def click(self, x: int, y: int) -> None:
        self.agent.hands.click(x, y)

    def press(self, keys: str) -> None:
        self.agent.hands.combo(keys)

    def scroll(self, x: int, y: int, direction: str, amount: int) -> None:
        self.agent.hands.scroll(x, y, direction=direction, amount=amount)

    def screen_size(self) -> tuple[int, int]:
        size: tuple[int, int] = self.agent.windows.size  # (width, height) of the screen
        return size

    def settled_png(self) -> bytes:
        frame, _ = self.agent._settle(None, self.action, quiet_s=0.2)
        return bytes(self.agent._encode(frame))

    def find(self, spec: dict[str, Any], png: bytes) -> Located:
        data = self._resolve(spec, png)
        if data is None or not data.get("resolved"):
            reason = (data or {}).get("reason") or "not found"
            return Located(None, None, str((data or {}).get("method") or "not_found"), reason)
        return Located(int(data["x"]), int(data["y"]), str(data.get("method") or "server"))

    def checked_on_screen(self, spec: dict[str, Any], png: bytes) -> bool | None:
        data = self._resolve(spec, png)
        state = (data or {}).get("checked")
        return state if isinstance(state, bool) else None

    def checked_at(self, x: int, y: int) -> bool | None:
        access = accessibility(os.environ.get("DBUS_SESSION_BUS_ADDRESS"))
        front = self.agent.windows.foreground()
        element = access.element_at(x, y, front.title if front else None)
        return element.checked if element is not None else None

    def _resolve(self, spec: dict[str, Any], png: bytes) -> dict[str, Any] | None:
        body = {
            "image": {"png_base64": base64.b64encode(png).decode("ascii")},
            "target_spec": spec,
            "machine_id": self.agent.machine_id,
        }
        response = self.agent.client.post(RESOLVE_PATH, json=body, headers=self.agent.headers)
        return dict(response.json()) if response.status_code < 400 else None


@functools.cache
def accessibility(session_bus: str | None) -> Accessibility:
    """One accessibility connection per bus, opened on first use (answers None without a bus)."""
    return Accessibility(session_bus)
