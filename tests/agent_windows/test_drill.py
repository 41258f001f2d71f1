from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rpa_agent.port import Frame
from rpa_agent.windows import api
from rpa_agent.windows.api import KeyInput, SendEvent
from rpa_agent.windows.drill import DRILL_TEXT, drill

from .fake import FakeMsaa, FakeProcessWindow, FakeWin32

NOTEPAD, EDIT = 0x10066, 0x10070


@dataclass
class Notepad:
    """Enough of notepad's text control: Unicode characters, Ctrl+A then typing replaces."""

    win: FakeWin32
    ctrl: bool = False
    selected: bool = False
    pending: list[int] = field(default_factory=list)

    def receive(self, event: SendEvent) -> None:
        if not isinstance(event, KeyInput):
            return
        up = bool(event.flags & api.KEYEVENTF_KEYUP)
        if event.vk == 0x11:
            self.ctrl = not up
        elif event.vk == 0x41 and self.ctrl and not up:
            self.selected = True
        elif event.flags & api.KEYEVENTF_UNICODE and not up:
            self.pending.append(event.scan)
            if 0xD800 <= event.scan <= 0xDBFF:
                return
            char = b"".join(u.to_bytes(2, "little") for u in self.pending).decode("utf-16-le")
            self.pending.clear()
            text = "" if self.selected else self.win.texts.get(EDIT, "")
            self.selected = False
            self.win.texts[EDIT] = text + char
            self.win.msaa = FakeMsaa("", 0x2A, value_=self.win.texts[EDIT])


def notepad_desktop() -> tuple[FakeWin32, Callable[[], Callable[[], None]]]:
    win = FakeWin32(msaa=FakeMsaa("", 0x2A), uia_error=api.REGDB_E_CLASSNOTREG)
    win.application = Notepad(win).receive
    ended: list[bool] = []

    def launch() -> Callable[[], None]:
        win.windows[NOTEPAD] = FakeProcessWindow("Untitled - Notepad", 264, 9, r"C:\windows\notepad.exe")
        win.children[(NOTEPAD, "Edit")] = EDIT
        win.windows[EDIT] = FakeProcessWindow("", 264, 9, None, visible=False, rect=(7, 45, 729, 498))
        return lambda: ended.append(True)

    return win, launch


def screen_of(win: FakeWin32) -> Callable[[], Frame]:
    def grab() -> Frame:
        shade = len(win.texts.get(EDIT, "")) % 256
        return Frame(800, 600, bytes([shade, shade, shade, 255]) * (800 * 600))

    return grab


def test_the_drill_types_reads_back_replaces_and_sees_its_own_input_as_its_own() -> None:
    win, launch = notepad_desktop()
    report = drill(win, grabber=screen_of(win), launch=launch, timeout_s=1.0)
    status = {c.name: c.status for c in report.checks}
    assert status == {
        "notepad": "ok", "activate": "ok", "type_text": "ok", "combo": "ok", "element_at": "ok",
        "screen_changed": "ok", "foreground": "ok", "watch": "ok",
    }, report.text()  # fmt: skip
    assert win.texts[EDIT] == "ok"
    assert DRILL_TEXT.encode("ascii", "backslashreplace").decode() in report.text()


def test_the_drill_fails_when_the_typed_text_does_not_arrive() -> None:
    win, launch = notepad_desktop()
    win.application = None  # the text control receives nothing
    report = drill(win, grabber=screen_of(win), launch=launch, timeout_s=0.2)
    failed = {c.name for c in report.checks if c.status == "fail"}
    assert {"type_text", "combo", "screen_changed"} <= failed
    assert not report.ok


def test_a_person_during_the_drill_fails_it() -> None:
    win, launch = notepad_desktop()
    notepad = Notepad(win)

    def with_a_person(event: SendEvent) -> None:
        notepad.receive(event)
        if win.hooks is not None and isinstance(event, KeyInput) and event.scan == ord("o"):
            win.hooks[0](api.MouseHookEvent(api.WM_LBUTTONDOWN, 1, 1, 0, 0, 0, 0))  # a hardware click

    win.application = with_a_person
    report = drill(win, grabber=screen_of(win), launch=launch, timeout_s=1.0)
    assert {c.name: c.status for c in report.checks}["watch"] == "fail"
