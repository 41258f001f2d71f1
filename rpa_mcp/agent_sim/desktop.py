"""A virtual Windows desktop made of real screenshots.

The current frame is a screen PNG (rpa_mcp/agent_sim/assets) with, on top, what was typed into text
fields and the open dialogs. A click inside a hotspot (or a dialog button) applies its
effect; a click anywhere else changes nothing — exactly what a vision agent meets on a real
desktop when it misses. While a dialog is open it is modal: only its buttons react.

Every input is recorded in `inputs` (who sent it, where, what it did), so a test or a
checker can count how many times an action really reached the desktop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from rpa_mcp.agent_sim.controls import Controls, ControlState
from rpa_mcp.agent_sim.controls import ascii_text as _ascii
from rpa_mcp.agent_sim.fixtures import DESKTOPS_DIR, ImageResolver
from rpa_mcp.agent_sim.spec import DesktopSpec, Dialog, Hotspot, OnClick, Screen, load_desktop_spec
from rpa_mcp.errors import InvalidInput, NotFound
from rpa_mcp.vision.images import decode_image
from rpa_mcp.vision.ocr import normalize_text

Source = Literal["agent", "human"]
FONT = cv2.FONT_HERSHEY_SIMPLEX
PRIMARY_BGR = (173, 92, 11)
SELECT_ALL = "ctrl+a"


@dataclass(frozen=True)
class InputEvent:
    """One input that reached the desktop."""

    source: Source
    kind: str  # click | double_click | right_click | type | key
    x: int | None = None
    y: int | None = None
    text: str | None = None
    effect: str = "none"  # goto:<screen> | raise:<dialog> | close:<dialog> | focus:<field> | none
    label: str | None = None
    screen: str = ""


@dataclass
class _State:
    screen: str
    dialogs: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)
    focus: str | None = None
    selected: bool = False  # the focused field's whole text is selected (ctrl+a): typing replaces it
    fired: set[int] = field(default_factory=set)
    controls: ControlState = field(default_factory=ControlState)  # drop-downs and check boxes


class VirtualDesktop:
    def __init__(self, spec: DesktopSpec, images: ImageResolver, *, start: str | None = None) -> None:
        self.spec = spec
        self._images = images
        self._screens = {s.id: s for s in spec.screens}
        self._dialogs = {d.id: d for d in spec.dialogs}
        self._fields = {f.id: f for f in spec.fields}
        self.controls = Controls(spec)
        self._raw: dict[str, bytes] = {}
        self._decoded: dict[str, np.ndarray] = {}
        self._png_cache: dict[tuple[object, ...], bytes] = {}
        self.inputs: list[InputEvent] = []
        self._start = start or spec.start
        if self._start not in self._screens:
            raise NotFound(f"desktop {spec.name} has no screen {self._start!r}", screen=self._start)
        self._state = _State(self._start)
        self._fire_triggers("enter")

    @classmethod
    def load(
        cls, name_or_path: str | Path, *, images_dir: Path | None = None, start: str | None = None
    ) -> VirtualDesktop:
        spec = load_desktop_spec(name_or_path, desktops_dir=DESKTOPS_DIR)
        return cls(spec, ImageResolver.default(images_dir), start=start)

    # --- what the agent sees ------------------------------------------------------------
    @property
    def screen(self) -> Screen:
        return self._screens[self._state.screen]

    @property
    def top_dialog(self) -> Dialog | None:
        return self._dialogs[self._state.dialogs[-1]] if self._state.dialogs else None

    @property
    def window_title(self) -> str:
        top = self.top_dialog
        return top.window_title if top else self.screen.window_title

    @property
    def process(self) -> str:
        top = self.top_dialog
        return top.process if top else self.screen.process

    @property
    def size(self) -> tuple[int, int]:
        h, w = self._base(self.screen.image).shape[:2]
        return w, h

    def system_dialog(self) -> Dialog | None:
        """The OS dialog that owns the input, identified from its process/desktop (never OCR)."""
        return next((self._dialogs[d] for d in self._state.dialogs if self._dialogs[d].system), None)

    def field_value(self, field_id: str) -> str:
        return self._state.values.get(field_id, "")

    def screenshot_png(self) -> bytes:
        """The current frame as PNG bytes; an unmodified screen is the fixture file itself."""
        key = self._state_key()
        if key not in self._png_cache:
            if (
                not self._state.dialogs
                and not self._visible_values()
                and not (self.spec.choices or self.spec.checkboxes)
            ):
                self._png_cache[key] = self._raw_bytes(self.screen.image)
            else:
                ok, buf = cv2.imencode(".png", self.frame(), [cv2.IMWRITE_PNG_COMPRESSION, 3])
                if not ok:  # pragma: no cover - OpenCV always encodes a BGR uint8 frame
                    raise RuntimeError("PNG encoding failed")
                self._png_cache[key] = buf.tobytes()
        return self._png_cache[key]

    def frame(self) -> np.ndarray:
        img = self._base(self.screen.image).copy()
        for field_id, value in self._visible_values().items():
            self._draw_field(img, field_id, value)
        self.controls.draw(img, self._state.controls, self._state.screen)
        for dialog_id in self._state.dialogs:
            img = self._draw_dialog(img, self._dialogs[dialog_id])
        return img

    def find_label(self, label: str) -> tuple[int, int] | None:
        """The agent's own vision, simulated: centre of the element showing `label` on screen."""
        wanted = normalize_text(label)
        top = self.top_dialog
        control = None if top else self.controls.find(self._state.controls, self._state.screen, label)
        if control is not None or (top is None and self._state.controls.open is not None):
            return control  # an open list covers what is under it
        boxes = (
            [(b.label, b.bbox) for b in top.buttons]
            if top
            else [(h.label, h.bbox) for h in self.spec.hotspots if h.screen == self._state.screen]
        )
        for text, (x, y, w, h) in boxes:
            if normalize_text(text) == wanted:
                return x + w // 2, y + h // 2
        return None

    def text_at(self, x: int, y: int) -> str:
        """The agent's own reading of the line at a point: the whole text of the element there, or ''."""
        top = self.top_dialog
        if top is not None:
            return next((b.label for b in top.buttons if _inside(b.bbox, x, y)), "")
        shown = self.controls.text_at(self._state.controls, self._state.screen, x, y)
        if shown is not None:
            return shown
        hotspot = self._hotspot_at(x, y)
        return (hotspot.text or hotspot.label) if hotspot is not None else ""

    def element_at(self, x: int, y: int) -> dict[str, object] | None:
        """The drop-down, option or check box at a point as an accessibility tree reports it (None: other)."""
        if self.top_dialog is not None:
            return None
        return self.controls.element_at(self._state.controls, self._state.screen, x, y)

    def checked_at(self, x: int, y: int) -> bool | None:
        """The agent's accessibility reading of the check box at a point (None: no check box there)."""
        if self.top_dialog is not None:
            return None
        return self.controls.checked_at(self._state.controls, self._state.screen, x, y)

    # --- input ----------------------------------------------------------------------------
    def before_action(self) -> None:
        """Called by the agent before it injects input: pops `before_action` triggers."""
        self._fire_triggers("before_action")

    def click(self, x: int, y: int, *, kind: str = "click", source: Source = "agent") -> InputEvent:
        screen = self._state.screen
        label, effect = None, OnClick()
        top = self.top_dialog
        if top is not None:
            button = next((b for b in top.buttons if _inside(b.bbox, x, y)), None)
            if button is not None:
                label, effect = button.label, button.on_click
        elif kind == "click" and (hit := self.controls.click(self._state.controls, screen, x, y)) is not None:
            effect_text, label = hit
            event = InputEvent(source, kind, x, y, effect=effect_text, label=label, screen=screen)
            self.inputs.append(event)
            return event
        elif kind != "right_click":
            hotspot = self._hotspot_at(x, y)
            if hotspot is not None:
                label, effect = hotspot.label, hotspot.on_click
        event = InputEvent(source, kind, x, y, effect=self._apply(effect), label=label, screen=screen)
        self.inputs.append(event)
        return event

    def type_text(self, text: str, *, source: Source = "agent") -> InputEvent:
        focus = self._state.focus
        if focus is not None and self._state.screen in self._fields[focus].screens and not self._state.dialogs:
            kept = "" if self._state.selected else self._state.values.get(focus, "")
            self._state.values[focus] = kept + text
            self._state.selected = False
            effect = f"typed:{focus}"
        else:
            effect = "none"
        event = InputEvent(source, "type", text=text, effect=effect, screen=self._state.screen)
        self.inputs.append(event)
        return event

    def press(self, keys: str, *, source: Source = "agent") -> InputEvent:
        wanted = keys.replace(" ", "").lower()
        effect = OnClick()
        if wanted == SELECT_ALL and self._state.focus is not None and not self._state.dialogs:
            self._state.selected = True  # a text field's own shortcut: its whole text is selected
            event = InputEvent(
                source, "key", text=keys, effect=f"select_all:{self._state.focus}", screen=self._state.screen
            )
            self.inputs.append(event)
            return event
        if not self._state.dialogs:
            for shortcut in self.spec.shortcuts:
                if shortcut.screen == self._state.screen and shortcut.keys.replace(" ", "").lower() == wanted:
                    effect = shortcut.on_press
                    break
        event = InputEvent(source, "key", text=keys, effect=self._apply(effect), screen=self._state.screen)
        self.inputs.append(event)
        return event

    def scroll(self, *, source: Source = "agent") -> InputEvent:
        event = InputEvent(source, "scroll", screen=self._state.screen)
        self.inputs.append(event)
        return event

    def agent_inputs(self) -> list[InputEvent]:
        return [e for e in self.inputs if e.source == "agent"]

    def human_input_count(self) -> int:
        return sum(e.source == "human" for e in self.inputs)

    # --- direct control (tests, demo, the "person" at the desk) ------------------------------
    def raise_dialog(self, dialog_id: str) -> None:
        if dialog_id not in self._dialogs:
            raise NotFound(f"desktop {self.spec.name} has no dialog {dialog_id!r}", dialog=dialog_id)
        if dialog_id not in self._state.dialogs:
            self._state.dialogs.append(dialog_id)

    def close_dialog(self, dialog_id: str | None = None) -> None:
        if dialog_id is None:
            if self._state.dialogs:
                self._state.dialogs.pop()
        elif dialog_id in self._state.dialogs:
            self._state.dialogs.remove(dialog_id)

    def goto(self, screen_id: str) -> None:
        if screen_id not in self._screens:
            raise NotFound(f"desktop {self.spec.name} has no screen {screen_id!r}", screen=screen_id)
        left, self._state.screen = self._state.screen, screen_id
        self._state.focus = None
        for fid, spec in self._fields.items():  # a form entered from elsewhere starts empty, as a page does
            if screen_id in spec.screens and left not in spec.screens:
                self._state.values.pop(fid, None)
        self._fire_triggers("enter")

    def reset(self, start: str | None = None) -> None:
        self._state = _State(start or self._start)
        self.inputs.clear()
        self._fire_triggers("enter")

    # --- internals ------------------------------------------------------------------------
    def _apply(self, effect: OnClick) -> str:
        if effect.goto is not None:
            self._state.dialogs.clear()
            self.goto(effect.goto)
            return f"goto:{effect.goto}"
        if effect.raise_dialog is not None:
            self.raise_dialog(effect.raise_dialog)
            return f"raise:{effect.raise_dialog}"
        if effect.close and self._state.dialogs:
            return f"close:{self._state.dialogs.pop()}"
        if effect.focus is not None:
            self._state.focus = effect.focus
            self._state.selected = False  # a click in a field puts the caret there, selecting nothing
            return f"focus:{effect.focus}"
        return "none"

    def _fire_triggers(self, when: str) -> None:
        for i, trigger in enumerate(self.spec.triggers):
            if trigger.when != when or trigger.screen != self._state.screen:
                continue
            if trigger.once and i in self._state.fired:
                continue
            self._state.fired.add(i)
            self.raise_dialog(trigger.raise_dialog)

    def _hotspot_at(self, x: int, y: int) -> Hotspot | None:
        # first match wins: list front-most elements (a window on top) before what they cover
        return next((h for h in self.spec.hotspots if h.screen == self._state.screen and _inside(h.bbox, x, y)), None)

    def _visible_values(self) -> dict[str, str]:
        return {
            fid: v for fid, v in self._state.values.items() if v and self._state.screen in self._fields[fid].screens
        }

    def _state_key(self) -> tuple[object, ...]:
        values = tuple(sorted(self._visible_values().items()))
        return (self._state.screen, tuple(self._state.dialogs), values, self._state.controls.key())

    def _raw_bytes(self, name: str) -> bytes:
        if name not in self._raw:
            self._raw[name] = self._images.resolve(name).read_bytes()
        return self._raw[name]

    def _base(self, name: str) -> np.ndarray:
        if name not in self._decoded:
            self._decoded[name] = decode_image(self._raw_bytes(name), field=name)
        return self._decoded[name]

    def _draw_field(self, img: np.ndarray, field_id: str, value: str) -> None:
        spec = self._fields[field_id]
        x, y, w, h = spec.bbox
        region = img[y : y + h, x : x + w]
        background = np.median(region.reshape(-1, 3), axis=0) if region.size else np.array([255, 255, 255])
        region[:] = background.astype(np.uint8)
        color = tuple(int(c) for c in spec.color)
        line_h = int(cv2.getTextSize("Ag", FONT, spec.font_scale, 1)[0][1] * 1.9) or 1
        for i, line in enumerate(value.splitlines() or [""]):
            baseline = y + line_h * (i + 1) - line_h // 4
            if baseline > y + h:
                break
            cv2.putText(img, _ascii(line), (x + 4, baseline), FONT, spec.font_scale, color, 1, cv2.LINE_AA)

    def _draw_dialog(self, img: np.ndarray, dialog: Dialog) -> np.ndarray:
        if dialog.image is not None:
            source = self._base(dialog.image)
            if not dialog.crop:
                return source.copy()
            if dialog.dim is not None:
                img = (img.astype(np.float32) * dialog.dim).round().clip(0, 255).astype(np.uint8)
            x0, y0, x1, y1 = _clip(dialog.bbox, img.shape, source.shape)
            img[y0:y1, x0:x1] = source[y0:y1, x0:x1]
            return img
        assert dialog.draw is not None  # guaranteed by Dialog._image_or_draw
        return _draw_modal(img, dialog)


def _draw_modal(img: np.ndarray, dialog: Dialog) -> np.ndarray:
    draw = dialog.draw
    assert draw is not None
    bx, by, bw, bh = draw.backdrop or [0, 0, img.shape[1], img.shape[0]]
    x0, y0, x1, y1 = _clip([bx, by, bw, bh], img.shape, img.shape)
    img[y0:y1, x0:x1] = (img[y0:y1, x0:x1].astype(np.float32) * (1 - draw.backdrop_alpha)).astype(np.uint8)
    x, y, w, h = dialog.bbox
    cv2.rectangle(img, (x + 3, y + 4), (x + w + 3, y + h + 4), (90, 90, 90), -1)  # shadow
    cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (200, 200, 200), 1)
    cv2.putText(img, _ascii(draw.title), (x + 24, y + 40), FONT, 0.8, (40, 40, 40), 2, cv2.LINE_AA)
    cv2.line(img, (x, y + 58), (x + w, y + 58), (225, 225, 225), 1)
    for i, line in enumerate(draw.text.splitlines()):
        cv2.putText(img, _ascii(line), (x + 24, y + 92 + 26 * i), FONT, 0.6, (60, 60, 60), 1, cv2.LINE_AA)
    for button in dialog.buttons:
        bx, by, bw, bh = button.bbox
        primary = button.label == draw.primary
        fill = PRIMARY_BGR if primary else (255, 255, 255)
        cv2.rectangle(img, (bx, by), (bx + bw, by + bh), fill, -1)
        cv2.rectangle(img, (bx, by), (bx + bw, by + bh), PRIMARY_BGR if primary else (150, 150, 150), 1)
        text = _ascii(button.label)
        (tw, th), _ = cv2.getTextSize(text, FONT, 0.6, 1)
        color = (255, 255, 255) if primary else (40, 40, 40)
        cv2.putText(img, text, (bx + (bw - tw) // 2, by + (bh + th) // 2), FONT, 0.6, color, 1, cv2.LINE_AA)
    return img


def _inside(bbox: list[int], x: int, y: int) -> bool:
    bx, by, bw, bh = bbox
    return bx <= x < bx + bw and by <= y < by + bh


def _clip(bbox: list[int], *shapes: tuple[int, ...]) -> tuple[int, int, int, int]:
    height = min(s[0] for s in shapes)
    width = min(s[1] for s in shapes)
    x, y, w, h = bbox
    return max(0, x), max(0, y), max(0, min(x + w, width)), max(0, min(y + h, height))


def check_point(x: object, y: object) -> tuple[int, int]:
    if not isinstance(x, int) or not isinstance(y, int) or isinstance(x, bool) or isinstance(y, bool):
        raise InvalidInput("a click needs integer x and y", field="target")
    return x, y
