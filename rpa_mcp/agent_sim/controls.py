"""The drop-downs and check boxes of a virtual desktop: their state, how a click changes it, how they look.

A drop-down's list, once open, takes the next click: on an option it chooses it, anywhere else it
closes without a choice (as a native pop-up does). A check box flips on a click. The agent reads a
box's state as an accessibility tree would (`checked_at`) and finds an option by its text while
the list is open (`find`).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

import cv2
import numpy as np

from rpa_mcp.agent_sim.spec import CheckBox, Choice, DesktopSpec
from rpa_mcp.vision.ocr import normalize_text

FONT = cv2.FONT_HERSHEY_SIMPLEX


@dataclass
class ControlState:
    chosen: dict[str, str] = field(default_factory=dict)  # drop-down id -> option shown
    open: str | None = None  # the drop-down whose list is open
    checked: dict[str, bool] = field(default_factory=dict)  # check box id -> state, once changed

    def key(self) -> tuple[object, ...]:
        return (tuple(sorted(self.chosen.items())), self.open, tuple(sorted(self.checked.items())))


class Controls:
    def __init__(self, spec: DesktopSpec) -> None:
        self.spec = spec
        self._choices = {c.id: c for c in spec.choices}

    # --- reading --------------------------------------------------------------------------
    def is_checked(self, state: ControlState, box: CheckBox) -> bool:
        return state.checked.get(box.id, box.checked)

    def checked_at(self, state: ControlState, screen: str, x: int, y: int) -> bool | None:
        box = self._box_at(screen, x, y)
        return None if box is None else self.is_checked(state, box)

    def find(self, state: ControlState, screen: str, label: str) -> tuple[int, int] | None:
        """Centre of the option (list open), drop-down or check box called `label`."""
        wanted = normalize_text(label)
        if state.open is not None:
            choice = self._choices[state.open]
            for i, option in enumerate(choice.options):
                if normalize_text(option) == wanted:
                    x, y, w, h = _option_box(choice, i)
                    return x + w // 2, y + h // 2
            return None
        boxes = [c.bbox for c in self._choices_on(screen) if normalize_text(c.label) == wanted]
        boxes += [b.bbox for b in self._boxes_on(screen) if normalize_text(b.label) == wanted]
        if not boxes:
            return None
        x, y, w, h = boxes[0]
        return x + w // 2, y + h // 2

    def element_at(self, state: ControlState, screen: str, x: int, y: int) -> dict[str, object] | None:
        """What an accessibility tree says is at a point (a recorder looks it up as the button goes down)."""
        if state.open is not None:
            listed = self._choices[state.open]
            for i, option in enumerate(listed.options):
                if _inside(list(_option_box(listed, i)), x, y):
                    return {"name": option, "role": "ListItem", "automation_id": f"{listed.id}-{i}"}
            return None
        choice = next((c for c in self._choices_on(screen) if _inside(c.bbox, x, y)), None)
        if choice is not None:
            return {"name": choice.label, "role": "ComboBox", "automation_id": choice.id}
        box = self._box_at(screen, x, y)
        if box is not None:
            states = ["checked"] if self.is_checked(state, box) else []
            return {"name": box.label, "role": "CheckBox", "automation_id": box.id, "states": states}
        return None

    def text_at(self, state: ControlState, screen: str, x: int, y: int) -> str | None:
        choice = next((c for c in self._choices_on(screen) if _inside(c.bbox, x, y)), None)
        return state.chosen.get(choice.id, choice.placeholder) if choice is not None else None

    # --- input ----------------------------------------------------------------------------
    def click(self, state: ControlState, screen: str, x: int, y: int) -> tuple[str, str | None] | None:
        """(effect, label) of a click a control takes, None when it reaches none of them."""
        if state.open is not None:
            listed, state.open = self._choices[state.open], None
            for i, option in enumerate(listed.options):
                if _inside(list(_option_box(listed, i)), x, y):
                    state.chosen[listed.id] = option
                    return f"chose:{listed.id}:{option}", option
            return f"closed:{listed.id}", None
        choice = next((c for c in self._choices_on(screen) if _inside(c.bbox, x, y)), None)
        if choice is not None:
            state.open = choice.id
            return f"open:{choice.id}", choice.label
        box = self._box_at(screen, x, y)
        if box is not None:
            state.checked[box.id] = not self.is_checked(state, box)
            return f"toggle:{box.id}:{state.checked[box.id]}", box.label
        return None

    # --- drawing --------------------------------------------------------------------------
    def draw(self, img: np.ndarray, state: ControlState, screen: str) -> None:
        for choice in self._choices_on(screen):
            x, y, w, h = choice.bbox
            cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
            cv2.rectangle(img, (x, y), (x + w, y + h), (150, 150, 150), 1)
            _text(img, state.chosen.get(choice.id, choice.placeholder), x + 6, y + h - 8)
        for box in self._boxes_on(screen):
            x, y, _, h = box.bbox
            side = min(h, 20)
            cv2.rectangle(img, (x, y), (x + side, y + side), (255, 255, 255), -1)
            cv2.rectangle(img, (x, y), (x + side, y + side), (90, 90, 90), 2)
            if self.is_checked(state, box):
                cv2.line(img, (x + 4, y + side // 2), (x + side // 2 - 1, y + side - 4), (20, 20, 20), 3)
                cv2.line(img, (x + side // 2 - 1, y + side - 4), (x + side - 3, y + 4), (20, 20, 20), 3)
        if state.open is not None:
            choice = self._choices[state.open]
            for i, option in enumerate(choice.options):
                ox, oy, ow, oh = _option_box(choice, i)
                cv2.rectangle(img, (ox, oy), (ox + ow, oy + oh), (250, 250, 250), -1)
                cv2.rectangle(img, (ox, oy), (ox + ow, oy + oh), (190, 190, 190), 1)
                _text(img, option, ox + 6, oy + oh - 8)

    def _box_at(self, screen: str, x: int, y: int) -> CheckBox | None:
        return next((b for b in self._boxes_on(screen) if _inside(b.bbox, x, y)), None)

    def _choices_on(self, screen: str) -> list[Choice]:
        return [c for c in self.spec.choices if screen in c.screens]

    def _boxes_on(self, screen: str) -> list[CheckBox]:
        return [b for b in self.spec.checkboxes if screen in b.screens]


def _option_box(choice: Choice, i: int) -> tuple[int, int, int, int]:
    x, y, w, h = choice.bbox
    return x, y + h * (i + 1), w, h


def _inside(bbox: list[int], x: int, y: int) -> bool:
    bx, by, bw, bh = bbox
    return bx <= x < bx + bw and by <= y < by + bh


def _text(img: np.ndarray, text: str, x: int, y: int) -> None:
    cv2.putText(img, ascii_text(text), (x, y), FONT, 0.6, (30, 30, 30), 1, cv2.LINE_AA)


def ascii_text(text: str) -> str:
    """Hershey fonts draw ASCII only: drop accents, replace the rest."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    plain = plain.replace("\u2014", "-").replace("\u2019", "'").replace("\u00ab", '"').replace("\u00bb", '"')
    return "".join(c if 32 <= ord(c) < 127 else "?" for c in plain)
