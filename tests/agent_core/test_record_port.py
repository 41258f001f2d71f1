"""Recording through the port (the Windows backend's path): hooks' inputs, windows and screens as events."""

from __future__ import annotations

from typing import Any

from rpa_agent.core.record import PortRecorder
from rpa_agent.core.recorder import MASK, EventStream
from rpa_agent.port import Element, RawInput

from .fakes import FakeDesktop


def recorder(desktop: FakeDesktop, sent: list[dict[str, Any]], lines: list[str]) -> PortRecorder:
    stream = EventStream(
        send=sent.append, machine_id="PC-1", session_id="s", agent="rpa-agent fake", screen_size=desktop.screen.size,
        png=desktop.screen.png, say=lines.append, clock=lambda: 0.0,
    )  # fmt: skip
    return PortRecorder(desktop, stream, say=lines.append)


def press(key: str | None, char: str | None = None, t: float = 10.0) -> RawInput:
    return RawInput("key_press", 0, 0, t, key=key, char=char)


def release(key: str, t: float = 10.0) -> RawInput:
    return RawInput("key_release", 0, 0, t, key=key)


def test_a_click_typing_and_a_shortcut_become_events_with_the_window_they_went_to() -> None:
    desktop, sent, lines = FakeDesktop(), [], []
    rec = recorder(desktop, sent, lines)
    desktop.windows.element_at = lambda x, y: Element("Nom", "Edit")  # type: ignore[method-assign]
    rec.handle(RawInput("button_press", 5, 6, 10.0, button="left"))
    for char in "Zoë":
        rec.handle(press(char.lower(), char))
    for raw in (press("ctrl"), press("s"), release("s"), release("ctrl")):
        rec.handle(raw)
    assert [e["type"] for e in sent] == ["focus", "click", "type", "key"]
    assert sent[1]["element"]["name"] == "Nom" and sent[2]["text"] == "Zoë" and sent[3]["keys"] == "ctrl+s"
    assert {e["window_title"] for e in sent} == {"Dossier patient"}


def test_typing_in_a_password_field_is_masked_and_a_window_change_is_a_focus_event() -> None:
    desktop, sent, lines = FakeDesktop(), [], []
    rec = recorder(desktop, sent, lines)
    desktop.windows.element_at = lambda x, y: Element("Mot de passe", "Edit", is_password=True)  # type: ignore[method-assign]
    rec.handle(RawInput("button_press", 5, 6, 10.0, button="left"))
    for char in "pw1":
        rec.handle(press(char, char))
    desktop.windows.front = 2
    rec.poll_window()
    types = [e for e in sent if e["type"] == "type"]
    assert [e["text"] for e in types] == [MASK] and "pw1" not in repr(sent)
    assert sent[-1]["type"] == "focus" and sent[-1]["window_title"] == "Imagerie"


def test_a_key_the_layout_maps_to_nothing_is_reported() -> None:
    desktop, sent, lines = FakeDesktop(), [], []
    rec = recorder(desktop, sent, lines)
    rec.handle(press(None, None))
    assert rec.stream.unmapped == 1 and any("maps to nothing" in line for line in lines)
