"""The agent's Windows backend driven step by step, inside Windows' own Python (Wine or Windows).

    python.exe drive.py STEPS.json

STEPS.json is a list of `{"op": ..., ...}`; one line `RESULT {"op": ..., "value": ...}` per step on
standard output (ASCII JSON: the console's code page cannot print every character). Runs the port's
own calls (`rpa_agent.windows.open_desktop()`), exactly what the agent runs; never imported by the tests.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from typing import Any

from rpa_agent.windows import api, open_desktop
from rpa_agent.windows.api import KeyInput, MouseInput
from rpa_agent.windows.input import normalise, utf16_units

PERSON = 0  # dwExtraInfo of a person's input: not the agent's tag


def person_click(desk: Any, x: int, y: int) -> None:
    """A person's click: untagged input, pressed once the pointer is there, held as a hand holds it.
    (Under Wine a low-level hook delays the move, and a press sent meanwhile lands where the pointer
    was: a hand waits to see the pointer on the button.)"""
    left, top, width, height = desk.win.virtual_screen()
    flags = api.MOUSEEVENTF_MOVE | api.MOUSEEVENTF_ABSOLUTE | api.MOUSEEVENTF_VIRTUALDESK
    desk.win.send_input([MouseInput(normalise(x, left, width), normalise(y, top, height), flags, extra_info=PERSON)])
    until(lambda: desk.win.cursor_pos() == (x, y), 5)
    desk.win.send_input([MouseInput(0, 0, api.MOUSEEVENTF_LEFTDOWN, extra_info=PERSON)])
    time.sleep(0.08)
    desk.win.send_input([MouseInput(0, 0, api.MOUSEEVENTF_LEFTUP, extra_info=PERSON)])


def person_type(desk: Any, text: str) -> None:
    """A person's typing: untagged Unicode key strokes, one character at a time."""
    for unit in utf16_units(text):
        down = KeyInput(0, unit, api.KEYEVENTF_UNICODE, extra_info=PERSON)
        up = KeyInput(0, unit, api.KEYEVENTF_UNICODE | api.KEYEVENTF_KEYUP, extra_info=PERSON)
        desk.win.send_input([down, up])
        time.sleep(0.03)


def until(check: Any, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def wait_foreground(desk: Any, title: str) -> Any:
    """The foreground window once its title holds `title` (None after 30 s)."""
    return until(lambda: (w := desk.windows.foreground()) and title in w.title and w, 30)


def wait_focused_value(desk: Any, value: str) -> Any:
    """The focused element once its value is `value` (typing is queued), else as it is after 30 s."""
    until(lambda: (e := desk.windows.focused_element()) is not None and e.value == value, 30)
    return desk.windows.focused_element()


def main(path: str) -> int:
    with open(path, encoding="utf-8") as fh:
        steps = json.load(fh)
    desk = open_desktop()
    for step in steps:
        op = step["op"]
        value: Any = None
        if op == "foreground":
            window = desk.windows.foreground()
            value = asdict(window) if window else None
        elif op == "wait_foreground":  # until the foreground window's title holds `title`
            window = wait_foreground(desk, step["title"])
            value = asdict(window) if window else None
        elif op == "titles":
            value = [w.title for w in desk.windows.windows()]
        elif op == "stacked":
            value = [asdict(w) for w in desk.windows.stacked()]
        elif op == "element_at":
            element = desk.windows.element_at(step["x"], step["y"])
            value = asdict(element) if element else None
        elif op == "element_named":  # the one element of the window in front called `name`, of `role`
            element = desk.windows.element_named(step["name"], step["role"], step["window_title"])
            value = asdict(element) if element else None
        elif op == "focused":
            element = desk.windows.focused_element()
            value = asdict(element) if element else None
        elif op == "wait_focused_value":  # until the focused element's value is `value` (typing is queued)
            element = wait_focused_value(desk, step["value"])
            value = asdict(element) if element else None
        elif op == "person_click":
            person_click(desk, step["x"], step["y"])
        elif op == "person_type":
            person_type(desk, step["text"])
        elif op == "click":
            desk.input.click(step["x"], step["y"])
        elif op == "type":
            desk.input.type_text(step["text"])
        elif op == "combo":
            desk.input.combo(step["keys"])
        elif op == "grab":
            frame = desk.screen.grab()
            with open(step["path"], "wb") as out:
                out.write(desk.screen.png(frame))
            value = [frame.width, frame.height]
        else:
            raise SystemExit(f"drive.py: unknown op {op!r}")
        print("RESULT " + json.dumps({"op": op, "value": value}), flush=True)
    desk.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
