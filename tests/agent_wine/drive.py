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

from rpa_agent.windows import open_desktop


def until(check: Any, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


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
            window = until(lambda: (w := desk.windows.foreground()) and step["title"] in w.title and w, 30)
            value = asdict(window) if window else None
        elif op == "titles":
            value = [w.title for w in desk.windows.windows()]
        elif op == "stacked":
            value = [asdict(w) for w in desk.windows.stacked()]
        elif op == "element_at":
            element = desk.windows.element_at(step["x"], step["y"])
            value = asdict(element) if element else None
        elif op == "focused":
            element = desk.windows.focused_element()
            value = asdict(element) if element else None
        elif op == "wait_focused_value":  # until the focused element's value is `value` (typing is queued)
            until(lambda: (e := desk.windows.focused_element()) is not None and e.value == step["value"], 30)
            element = desk.windows.focused_element()
            value = asdict(element) if element else None
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
