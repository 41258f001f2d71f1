"""How the agent carries out the steps that set a control: `select_option` and `set_checked`.

- ``select_option``: click the drop-down (resolved like any target), then find the option: an
  option the accessibility tree shows by that exact name in an opened pop-up (or in the drop-down's
  own list, Qt), asked once the list is still, clicked only when its centre lies inside the list the
  screen shows that click opened (what changed around the drop-down): the tree names options of every
  application's pop-ups and of a list kept inside its drop-down, never which list this click opened, so
  a tree's option beside the drop-down but outside that list, or with no list told, is not clicked;
  else, the list once still on the screen, the option's text through the server's `resolve_target`
  (its OCR and quality guard, around the drop-down; the option is never clicked at a guessed place),
  click it. When the screen shows where the list opened (`rpa_agent.core.opened_list`: what changed
  since the click, around the drop-down), the server reads that list only and accepts the option only
  inside it (`opened_list`), however far a long list reaches; otherwise within its drift guard's reach
  of the drop-down. Either way the same words elsewhere on the page are refused. An option not found
  closes the list (Escape) and the step is reported not resolved: the replay pauses.
- ``set_checked``: read the box's state (the accessibility tree's `checked` where the application
  exposes it, else the server's reading of the box beside its label, `resolve_target` with
  `check_state`, and `mark`, the mark the step was learned with, when it has one: only that mark is
  read), click only when it differs from the wanted one, read it again: the tree's state
  every `POLL_S` until it is the wanted one, for at most `STATE_WAIT_S` (the screen is only waited
  for and read when the tree does not say); the state read after goes back in the result's
  `output.checked`, which the server's check compares with the wanted one. A state that cannot be
  read is never guessed: nothing is clicked and the step is reported not resolved. A radio button
  (the tree's role, else the server's reading of its round mark) that is selected and wanted
  cleared is never clicked either: a click selects a radio button, never clears it; the step is
  reported not executed, naming the other option of its group as the step to make instead.

The performer reaches this module through `ChoicePort` (its hands, its screen, the server, the
accessibility tree), so it is tested without a desktop; `DesktopChoices` is that port over the
platform port and the server.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from rpa_agent.core.actions import CHOICES
from rpa_agent.core.caret import changed
from rpa_agent.core.http import Http
from rpa_agent.core.locate import Located, ask_server, located
from rpa_agent.core.opened_list import Box, opened_box
from rpa_agent.core.wire import NextAction
from rpa_agent.port import Desktop, Frame, ShownOptions, WheelPoints

KINDS = CHOICES
POLL_S = 0.02  # the tree asked again this often while a box's state flips
STATE_WAIT_S = 1.0  # a box's state the tree still shows unlike the wanted one by then is reported as read
TRUE_WORDS = frozenset({"true", "1", "yes", "oui"})
FALSE_WORDS = frozenset({"false", "0", "no", "non"})
MarkKind = Literal["box", "radio"]
ROLE_KINDS: dict[str, MarkKind] = {"CheckBox": "box", "RadioButton": "radio", "Radio Menu Item": "radio"}
SCREEN_KINDS: dict[object, MarkKind] = {"box": "box", "radio": "radio"}  # the server's answer's `mark`


@dataclass(frozen=True)
class Mark:
    """A control's state as read, and its kind when the reader says it (None: unknown, read as a box)."""

    state: bool | None = None  # ticked (selected); None when it cannot be told
    kind: MarkKind | None = None  # box: a click flips it; radio: a click selects it, never clears it


UNREAD = Mark()


class ChoiceFailed(Exception):
    """The control could not be set; `reason` is the result's error (the replay pauses).

    `clicked` says whether input was injected: False, the step is reported not executed.
    """

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

    def checked_at(self, x: int, y: int) -> Mark:
        """The check box's (radio button's) state and kind at a point from the accessibility tree; each None
        when it does not say."""
        ...

    def option_at(self, option: str, opener: tuple[int, int]) -> tuple[int, int] | None:
        """The centre of the option called `option` in the list opened by the drop-down at `opener`, from
        the accessibility tree; None when it does not say."""
        ...

    def shown_at(self, x: int, y: int) -> str | None:
        """The option the drop-down at a point shows, from the accessibility tree; None when it does not say."""
        ...

    def opened_list(self, opener: tuple[int, int]) -> Box | None:
        """The box (screen pixels) of the list the last click, on the drop-down at `opener`, opened: what changed
        on the screen since, around it (asked once the screen is still); None when the screen cannot tell."""
        ...

    def checked_on_screen(self, spec: dict[str, Any], png: bytes) -> Mark:
        """The server's reading of the mark beside the label: its state and kind, each None when it cannot tell
        (a server older than the kind never says it)."""
        ...

    def clock(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


def wanted_state(params: dict[str, Any]) -> bool | None:
    """The state a set_checked step wants (a parameter filled in as 'true'/'false' included).

    The same reading as the server's `rpa_mcp.replay.choices.wanted_state` (the agent imports
    nothing of the server): the two must agree, `tests/agent_core/test_choices.py` checks it.
    """
    value = params.get("checked")
    if isinstance(value, bool):
        return value
    word = value.strip().lower() if isinstance(value, str) else None
    if word in TRUE_WORDS | FALSE_WORDS:
        return word in TRUE_WORDS
    return None


def carry_out(port: ChoicePort, action: NextAction, position: tuple[int, int]) -> dict[str, Any] | None:
    """Set the control; the output to report (set_checked: the state read after; select_option: none yet, the
    option the drop-down shows is asked once the screen settled, `option_named`). Raises ChoiceFailed."""
    if action.action_type.lower() == "select_option":
        choose_option(port, action, position)
        return None
    return {"checked": set_checked(port, action, position)}


def option_named(port: ChoicePort, position: tuple[int, int]) -> dict[str, Any] | None:
    """The option the drop-down at `position` names after a choice, when the accessibility tree says it: asked
    after the step's settle wait (the list closed, the drop-down redrawn), never a wait of its own."""
    shown = port.shown_at(*position)
    return {"option": shown} if shown else None


def choose_option(port: ChoicePort, action: NextAction, position: tuple[int, int]) -> None:
    option = action.params.get("option")
    if not isinstance(option, str) or not option:
        raise ChoiceFailed("INVALID_ACTION: select_option needs params.option (the option's text)", clicked=False)
    port.click(*position)
    spec = _near(port, action, option, position)  # its list opens beside it: never the same words elsewhere
    # the list drawn and still: the tree is asked once then, never at each look while it opens (asking a
    # drop-down that keeps its list inside itself, Qt, while the list opens lost the option in 6 runs of 9)
    png = port.settled_png()
    opened = port.opened_list(position)
    shown = port.option_at(option, position)
    if shown is not None and _inside(shown, opened):  # the tree's option, taken only in the list this click opened
        port.click(*shown)
        return
    size = port.screen_size()
    if opened is not None:  # read in that list only, accepted inside it only, however far it reaches
        x, y, w, h = opened
        spec["opened_list"] = [x / size[0], y / size[1], w / size[0], h / size[1]]
    found = port.find(spec, png)
    if not found.found:
        port.press("escape")  # close the list: nothing chosen
        raise ChoiceFailed(f"target_not_resolved: option {option!r} not in the list: {found.reason}", clicked=True)
    port.click(int(found.x or 0), int(found.y or 0))


def _inside(point: tuple[int, int], box: Box | None) -> bool:
    """The point lies in the list the drop-down opened."""
    return box is not None and box[0] <= point[0] <= box[0] + box[2] and box[1] <= point[1] <= box[1] + box[3]


def set_checked(port: ChoicePort, action: NextAction, position: tuple[int, int]) -> bool:
    wanted = wanted_state(action.params)
    if wanted is None:
        raise ChoiceFailed("INVALID_ACTION: set_checked needs params.checked (true or false)", clicked=False)
    before = _mark(port, action, position)
    if before.state is None:
        raise ChoiceFailed("target_not_resolved: the box's state cannot be read: it is not clicked", clicked=False)
    if before.state == wanted:
        return before.state  # already so: nothing to click
    if before.kind == "radio" and not wanted:
        raise ChoiceFailed(_radio_not_cleared(action), clicked=False)
    port.click(*position)
    after = _state_after(port, action, position, wanted)
    if after is None:
        raise ChoiceFailed("TEXT_MISMATCH: the box's state cannot be read after the click", clicked=True)
    return after


def _radio_not_cleared(action: NextAction) -> str:
    label = action.target.label if action.target is not None else None
    named = f" {label!r}" if label else ""
    return (
        f"INVALID_ACTION: the radio button{named} is selected and the step wants it cleared; a click selects a "
        "radio button, never clears it: it is not clicked. Make the step select the other option of its group "
        "(set_checked true on that option) instead"
    )


def _mark(port: ChoicePort, action: NextAction, position: tuple[int, int]) -> Mark:
    """The control's state and kind before any input: the tree's state, else the screen's; the tree's kind,
    else the screen's (a tree may name a radio button whose state it does not give)."""
    tree = port.checked_at(*position)
    if tree.state is not None:
        return tree
    screen = _mark_on_screen(port, action, position, None)
    return Mark(screen.state, tree.kind or screen.kind)


def _mark_on_screen(port: ChoicePort, action: NextAction, position: tuple[int, int], png: bytes | None) -> Mark:
    label = action.target.label if action.target is not None else None
    if not label:
        return UNREAD
    spec = _near(port, action, label, position) | {"check_state": True}
    learned = action.target.spec.get("mark") if action.target is not None else None
    if learned is not None:
        spec["mark"] = learned  # the mark the step was learned with: only that one is read
    return port.checked_on_screen(spec, png or port.settled_png())


def _state_after(port: ChoicePort, action: NextAction, position: tuple[int, int], wanted: bool) -> bool | None:
    """The box's state after the click: the tree's, read until it is the wanted one (at most `STATE_WAIT_S`;
    the last one read is the answer), else the server's reading of the screen once still."""
    deadline = port.clock() + STATE_WAIT_S
    state = port.checked_at(*position).state
    while state is not None and state != wanted and port.clock() < deadline:
        port.sleep(POLL_S)
        state = port.checked_at(*position).state
    if state is not None:
        return state
    return _mark_on_screen(port, action, position, port.settled_png()).state


def _near(port: ChoicePort, action: NextAction, label: str, position: tuple[int, int]) -> dict[str, Any]:
    """A spec for `label` looked for around `position` (a small region read first, never the same words
    elsewhere on the screen first), in the target's window."""
    width, height = port.screen_size()
    spec: dict[str, Any] = {
        "label": label,
        "by_text": label,
        "rel_x": position[0] / width,
        "rel_y": position[1] / height,
    }
    if action.target is not None and action.target.window_title:
        spec["window_title"] = action.target.window_title
    return spec


class DesktopChoices:
    """`ChoicePort` and `ScrollPort` (`rpa_agent.core.scrolling`) over the platform port and the server."""

    def __init__(
        self,
        desktop: Desktop,
        http: Http,
        machine_id: str,
        settled_png: Callable[[Frame | None], bytes],
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """`settled_png(since)`: the screen once still, as PNG; a screen unlike `since` (grabbed just before
        the last input) has reacted already (the performer's settle wait)."""
        self.desktop, self.http, self.machine_id = desktop, http, machine_id
        self._settled_png = settled_png
        self.clock, self.sleep = clock, sleep
        self._before: Frame | None = None  # the screen just before the last input, until the next settled look
        # the action's screenshot before any input (the screen was still when it was taken): while the screen
        # shows the same pixels, it is the still screen, as PNG, with no wait
        self.still: tuple[Frame, bytes] | None = None
        self.looked_after_input = False  # the screen was seen still after the last input (and none since)
        self._input_from: Frame | None = None  # the screen before the last input, once the screen was still since

    def click(self, x: int, y: int) -> None:
        self._before = self.desktop.screen.grab()
        self.still, self.looked_after_input = None, False
        self.desktop.input.click(x, y)

    def press(self, keys: str) -> None:
        self._before = self.desktop.screen.grab()
        self.still, self.looked_after_input = None, False
        self.desktop.input.combo(keys)

    def scroll(self, x: int, y: int, direction: Literal["up", "down"], amount: int) -> None:
        self._before = self.desktop.screen.grab()
        self.still, self.looked_after_input = None, False
        self.desktop.input.scroll(x, y, direction=direction, amount=amount)

    def screen_size(self) -> tuple[int, int]:
        return self.desktop.screen.size()

    def frame(self) -> Frame | None:
        return self.desktop.screen.grab()

    def front_box(self) -> Box | None:
        front = self.desktop.windows.foreground()
        return front.box if front is not None else None

    @property
    def checks_wheel(self) -> bool:
        return isinstance(self.desktop.windows, WheelPoints)

    def wheel_refusal(self, x: int, y: int) -> str | None:
        windows = self.desktop.windows
        if not isinstance(windows, WheelPoints):
            return "this desktop cannot tell what is under the wheel"
        return windows.wheel_refusal(x, y)

    def settled_png(self) -> bytes:
        before, self._before = self._before, None
        self._input_from = before
        if self.still is not None and not changed(self.still[0], self.desktop.screen.grab()):
            return self.still[1]  # no input since the screen was still: the same pixels (a caret apart) are still
        png = self._settled_png(before)
        self.looked_after_input = before is not None
        return png

    def opened_list(self, opener: tuple[int, int]) -> Box | None:
        before, self._input_from = self._input_from, None
        return opened_box(before, self.desktop.screen.grab(), opener) if before is not None else None

    def find(self, spec: dict[str, Any], png: bytes) -> Located:
        return located(ask_server(self.http, spec, png, None, self.machine_id))

    def checked_on_screen(self, spec: dict[str, Any], png: bytes) -> Mark:
        answer = ask_server(self.http, spec, png, None, self.machine_id)
        state, kind = answer.get("checked"), answer.get("mark")
        return Mark(state if isinstance(state, bool) else None, SCREEN_KINDS.get(kind))  # absent: unknown

    def checked_at(self, x: int, y: int) -> Mark:
        element = self.desktop.windows.element_at(x, y)
        return Mark(element.checked, ROLE_KINDS.get(element.role)) if element is not None else UNREAD

    def shown_at(self, x: int, y: int) -> str | None:
        element = self.desktop.windows.element_at(x, y)
        return element.value if element is not None and element.value else None

    def option_at(self, option: str, opener: tuple[int, int]) -> tuple[int, int] | None:
        windows = self.desktop.windows
        element = windows.option_shown(option, opener) if isinstance(windows, ShownOptions) else None
        if element is None or element.box is None:
            return None
        x, y, w, h = element.box
        return x + w // 2, y + h // 2
