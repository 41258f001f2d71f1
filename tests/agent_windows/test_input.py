from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from rpa_agent.port import InputRefused
from rpa_agent.windows import api
from rpa_agent.windows.api import KeyInput, MouseInput
from rpa_agent.windows.input import (
    TEXT_BATCH,
    ElevatedWindow,
    InputBlocked,
    InputPartlySent,
    SendInputDevice,
    UnknownKey,
    normalise,
    utf16_units,
)

from .fake import FakeProcessWindow, FakeWin32


def typed_units(sent: Sequence[object]) -> str:
    """What a Unicode edit control receives: one WM_CHAR per key-down code unit."""
    units = [e.scan for e in sent if isinstance(e, KeyInput) and e.flags == api.KEYEVENTF_UNICODE]
    return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le")


def test_unicode_text_is_typed_as_utf16_code_units_down_then_up() -> None:
    win = FakeWin32()
    SendInputDevice(win).type_text("Zoë Œuvre é ✓ 日本")
    assert typed_units(win.sent) == "Zoë Œuvre é ✓ 日本"
    assert all(isinstance(e, KeyInput) and e.vk == 0 for e in win.sent)
    downs, ups = win.sent[0::2], win.sent[1::2]
    assert all(isinstance(u, KeyInput) and u.flags == api.KEYEVENTF_UNICODE | api.KEYEVENTF_KEYUP for u in ups)
    assert [d.scan for d in downs if isinstance(d, KeyInput)] == [u.scan for u in ups if isinstance(u, KeyInput)]


def test_a_character_outside_the_bmp_is_sent_as_its_surrogate_pair() -> None:
    win = FakeWin32()
    SendInputDevice(win).type_text("a𝄞b")
    scans = [e.scan for e in win.sent if isinstance(e, KeyInput) and not e.flags & api.KEYEVENTF_KEYUP]
    assert scans == [ord("a"), 0xD834, 0xDD1E, ord("b")]
    assert typed_units(win.sent) == "a𝄞b"
    assert utf16_units("😀") == [0xD83D, 0xDE00]


def test_a_line_break_is_typed_as_the_enter_key_not_as_a_character() -> None:
    win = FakeWin32()
    SendInputDevice(win).type_text("a\r\nb\tc")
    vks = [e.vk for e in win.sent if isinstance(e, KeyInput) and e.vk]
    assert vks == [0x0D, 0x0D, 0x09, 0x09]
    assert typed_units(win.sent) == "abc"


def test_long_text_is_sent_in_batches_and_each_batch_is_announced() -> None:
    win, announced = FakeWin32(), list[list[str]]()
    SendInputDevice(win, announce=announced.append).type_text("x" * 150)
    assert sum(len(kinds) for kinds in announced) == len(win.sent) == 300
    assert len(announced) == 3


def test_every_event_carries_the_agents_tag() -> None:
    win = FakeWin32()
    device = SendInputDevice(win)
    device.click(5, 5)
    device.type_text("é")
    assert {e.extra_info for e in win.sent} == {api.AGENT_EXTRA_INFO}


@pytest.mark.parametrize("extent", [1024, 1080, 1920, 3840, 5760, 1366])
def test_normalised_coordinates_map_back_to_the_same_pixel(extent: int) -> None:
    # the middle of the pixel: right whether Windows scales by 65536 and truncates or by 65535 and rounds
    for pixel in range(extent):
        dx = normalise(pixel, 0, extent)
        assert 0 <= dx <= 65535
        assert dx * extent // 65536 == pixel
        assert round(dx * (extent - 1) / 65535) == pixel


def test_a_click_on_a_monitor_left_of_the_primary_is_normalised_on_the_virtual_desktop() -> None:
    # a 1920x1080 monitor left of a 2560x1440 primary: the virtual desktop starts at x = -1920
    win = FakeWin32(screen=(-1920, 0, 4480, 1440))
    SendInputDevice(win).click(-1900, 700, button="right", count=1)
    move, down, up = win.sent
    assert isinstance(move, MouseInput)
    assert move.flags == api.MOUSEEVENTF_MOVE | api.MOUSEEVENTF_ABSOLUTE | api.MOUSEEVENTF_VIRTUALDESK
    assert -1920 + move.dx * 4480 // 65536 == -1900
    assert move.dy * 1440 // 65536 == 700
    assert isinstance(down, MouseInput) and down.flags == api.MOUSEEVENTF_RIGHTDOWN
    assert isinstance(up, MouseInput) and up.flags == api.MOUSEEVENTF_RIGHTUP
    # the primary's origin is pixel 1920 of the virtual desktop
    win.sent.clear()
    SendInputDevice(win).move(0, 0)
    assert isinstance(win.sent[0], MouseInput) and -1920 + win.sent[0].dx * 4480 // 65536 == 0


def test_a_point_outside_the_virtual_desktop_is_clamped_to_its_edge() -> None:
    assert normalise(-50, 0, 1920) == normalise(0, 0, 1920)
    assert normalise(5000, 0, 1920) == normalise(1919, 0, 1920)


def test_double_click_and_scroll_send_what_they_announce() -> None:
    win, announced = FakeWin32(), list[list[str]]()
    device = SendInputDevice(win, announce=announced.append)
    device.click(10, 10, count=2)
    device.scroll(10, 10, direction="up", amount=2)
    device.scroll(10, 10, direction="down", amount=1)
    assert announced[0] == ["motion", "button_press", "button_release", "button_press", "button_release"]
    wheel = [e for e in win.sent if isinstance(e, MouseInput) and e.flags == api.MOUSEEVENTF_WHEEL]
    assert [w.data for w in wheel] == [120, 120, -120]


def test_a_combo_presses_modifiers_in_order_and_releases_them_in_reverse() -> None:
    win = FakeWin32()
    SendInputDevice(win).combo("ctrl+shift+Left")
    keys = [(e.vk, bool(e.flags & api.KEYEVENTF_KEYUP)) for e in win.sent if isinstance(e, KeyInput)]
    assert keys == [(0x11, False), (0x10, False), (0x25, False), (0x25, True), (0x10, True), (0x11, True)]
    arrow = [e for e in win.sent if isinstance(e, KeyInput) and e.vk == 0x25]
    assert all(e.flags & api.KEYEVENTF_EXTENDEDKEY and e.scan == 0x125 for e in arrow)


def test_a_punctuation_key_is_found_in_the_layout_of_the_window_in_front() -> None:
    win = FakeWin32(layouts={9: 0x040C040C}, keymap={(0x040C040C, 0xDF, False, False): "!"})
    win.windows[10] = FakeProcessWindow("Bloc-notes", 900, 9, r"C:\Windows\notepad.exe")
    win.foreground = 10
    SendInputDevice(win).combo("ctrl+!")
    assert [e.vk for e in win.sent if isinstance(e, KeyInput)] == [0x11, 0xDF, 0xDF, 0x11]


def elevated_in_front() -> FakeWin32:
    win = FakeWin32()
    win.windows[10] = FakeProcessWindow("Administrateur : Invite de commandes", 900, 9, None, integrity=0x3000)
    win.windows[10].rect = (0, 0, 400, 300)
    win.windows[11] = FakeProcessWindow("Dossier patient", 901, 8, None, rect=(400, 0, 400, 300))
    win.foreground = 10
    return win


def test_typing_into_an_elevated_window_is_refused_before_anything_is_sent() -> None:
    win = elevated_in_front()
    device = SendInputDevice(win)
    acts: list[Callable[[], None]] = [
        lambda: device.type_text("abc"),
        lambda: device.combo("ctrl+s"),
        lambda: device.click(10, 10),
    ]
    for act in acts:
        with pytest.raises(InputRefused) as caught:
            act()
        assert isinstance(caught.value, ElevatedWindow) and caught.value.code == "elevated-window"
    assert win.sent == []


def test_a_click_on_an_ordinary_window_beside_an_elevated_one_is_sent() -> None:
    win = elevated_in_front()
    SendInputDevice(win).click(500, 10)
    assert len(win.sent) == 3


def test_input_is_sent_when_an_integrity_level_cannot_be_read() -> None:
    win = elevated_in_front()
    win.own_integrity = None
    SendInputDevice(win).type_text("a")
    win.own_integrity, win.windows[10].integrity = 0x2000, None
    SendInputDevice(win).type_text("b")
    assert len(win.sent) == 4


def test_an_elevated_agent_types_into_an_elevated_window() -> None:
    win = elevated_in_front()
    win.own_integrity = 0x3000
    SendInputDevice(win).type_text("a")
    assert len(win.sent) == 2


def test_an_unknown_key_is_refused_before_anything_is_sent() -> None:
    win = FakeWin32()
    with pytest.raises(InputRefused) as caught:
        SendInputDevice(win).combo("ctrl+frobnicate")
    assert isinstance(caught.value, UnknownKey) and caught.value.code == "unknown-key"
    assert win.sent == []


def test_blocked_input_is_refused_as_nothing_sent() -> None:
    win = FakeWin32(accept=0)
    with pytest.raises(InputRefused) as caught:
        SendInputDevice(win).type_text("abc")
    assert isinstance(caught.value, InputBlocked) and caught.value.code == "input-blocked"
    assert caught.value.asked == 6


def test_a_text_cut_short_after_its_first_batch_is_partly_sent_not_refused() -> None:
    win = FakeWin32()
    device = SendInputDevice(win)
    answers = iter([2 * TEXT_BATCH, 0])
    win.send_input = lambda events: next(answers)  # type: ignore[method-assign]  # the second batch is blocked
    with pytest.raises(InputPartlySent) as caught:
        device.type_text("x" * (TEXT_BATCH + 5))
    assert caught.value.code == "input-partly-sent"
    assert (caught.value.sent, caught.value.asked) == (2 * TEXT_BATCH, 2 * (TEXT_BATCH + 5))
    assert not isinstance(caught.value, InputRefused)
