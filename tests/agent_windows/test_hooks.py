from __future__ import annotations

import pytest
from rpa_agent.port import RawInput
from rpa_agent.windows import api
from rpa_agent.windows.hooks import HookTranslator, HookWatch
from rpa_agent.windows.keys import VK_LSHIFT, VK_PACKET, VK_RMENU

from .fake import FakeProcessWindow, FakeWin32, key, mouse

FRENCH, US = 0x040C040C, 0x04090409


def french_desktop() -> FakeWin32:
    win = FakeWin32(layouts={9: FRENCH, 1: US})
    win.windows[10] = FakeProcessWindow("Bloc-notes", 900, 9, r"C:\Windows\notepad.exe")
    win.foreground = 10
    win.keymap = {
        (FRENCH, 0x32, False, False): "é",
        (FRENCH, 0x32, True, False): "2",
        (FRENCH, 0x30, False, True): "@",
        (FRENCH, 0x41, False, False): "a",
        (FRENCH, 0x41, True, False): "A",
        (US, 0x32, False, False): "2",
        (FRENCH, 0x0D, False, False): "\r",
        (FRENCH, 0xDD, False, False): "dead:^",
        (FRENCH, 0xDD, True, False): "dead:¨",
        (FRENCH, 0x45, False, False): "e",
        (FRENCH, 0x49, False, False): "i",
        (FRENCH, 0x58, False, False): "x",
        (FRENCH, 0x20, False, False): " ",
    }
    return win


def test_the_character_comes_from_the_foreground_threads_french_layout() -> None:
    win = french_desktop()
    translate = HookTranslator(win, clock=lambda: 1.5)
    raw = translate.key(key(api.WM_KEYDOWN, 0x32))
    assert raw == RawInput("key_press", 0, 0, 1.5, key="2", char="é")
    assert win.to_unicode_calls == [(0x32, FRENCH)]  # the notepad thread's layout, not the agent's


def test_shift_and_altgr_change_the_character_and_caps_lock_is_read() -> None:
    win = french_desktop()
    translate = HookTranslator(win)
    translate.key(key(api.WM_KEYDOWN, VK_LSHIFT))
    assert translate.key(key(api.WM_KEYDOWN, 0x32)).char == "2"
    translate.key(key(api.WM_KEYUP, VK_LSHIFT))
    translate.key(key(api.WM_KEYDOWN, 0xA2, scan=0x21D))  # AltGr: Windows' left Ctrl, then the right Alt
    translate.key(key(api.WM_SYSKEYDOWN, VK_RMENU))
    altgr = translate.key(key(api.WM_SYSKEYDOWN, 0x30))
    assert (altgr.key, altgr.char) == ("0", "@")
    translate.key(key(api.WM_KEYUP, VK_RMENU))
    translate.key(key(api.WM_KEYUP, 0xA2, scan=0x21D))
    win.caps = True
    assert translate.key(key(api.WM_KEYDOWN, 0x41)).char == "A"


def press(translate: HookTranslator, *vks: int) -> list[str | None]:
    return [translate.key(key(api.WM_KEYDOWN, vk)).char for vk in vks]


def test_a_dead_key_composes_with_the_next_letter_as_the_application_does() -> None:
    translate = HookTranslator(french_desktop())
    assert press(translate, 0xDD, 0x45) == [None, "ê"]
    assert press(translate, 0xDD, 0x58) == [None, "^x"]  # no precomposed character: both
    assert press(translate, 0xDD, 0x20) == [None, "^"]  # the accent alone
    assert press(translate, 0xDD, 0xDD) == [None, "^^"]
    translate.key(key(api.WM_KEYDOWN, VK_LSHIFT))
    assert press(translate, 0xDD) == [None]
    translate.key(key(api.WM_KEYUP, VK_LSHIFT))
    assert press(translate, 0x49) == ["ï"]


def test_altgr_is_reported_as_altgr_not_as_a_ctrl_combo() -> None:
    translate = HookTranslator(french_desktop())
    fake_ctrl = translate.key(key(api.WM_KEYDOWN, 0xA2, scan=0x21D))  # Windows' left Ctrl that comes with AltGr
    right_alt = translate.key(key(api.WM_SYSKEYDOWN, VK_RMENU, scan=0x38))
    at = translate.key(key(api.WM_KEYDOWN, 0x30))
    assert [(r.key, r.char) for r in (fake_ctrl, right_alt, at)] == [("altgr", None), ("altgr", None), ("0", "@")]
    assert translate.key(key(api.WM_KEYUP, 0xA2, scan=0x21D)).key == "altgr"
    assert translate.key(key(api.WM_KEYUP, VK_RMENU, scan=0x38)).key == "altgr"  # named as when pressed
    assert translate.key(key(api.WM_KEYDOWN, 0xA2, scan=0x1D)).key == "ctrl"  # a real left Ctrl


def test_the_right_alt_of_a_layout_without_altgr_makes_alt_shortcuts() -> None:
    translate = HookTranslator(french_desktop())
    right_alt = translate.key(key(api.WM_SYSKEYDOWN, VK_RMENU, scan=0x38))  # no fake Ctrl before it: US layout
    shortcut = translate.key(key(api.WM_SYSKEYDOWN, 0x41))
    assert [(r.key, r.char) for r in (right_alt, shortcut)] == [("alt", None), ("a", None)]


def test_a_shortcut_and_a_control_key_type_no_character() -> None:
    win = french_desktop()
    translate = HookTranslator(win)
    translate.key(key(api.WM_KEYDOWN, 0xA2))  # left ctrl
    shortcut = translate.key(key(api.WM_KEYDOWN, 0x41))
    assert (shortcut.key, shortcut.char) == ("a", None)
    translate.key(key(api.WM_KEYUP, 0xA2))
    enter = translate.key(key(api.WM_KEYDOWN, 0x0D))
    assert (enter.key, enter.char) == ("enter", None)
    release = translate.key(key(api.WM_KEYUP, 0x0D))
    assert (release.kind, release.char) == ("key_release", None)


def test_unicode_packets_give_their_character_and_a_surrogate_pair_one_character() -> None:
    translate = HookTranslator(FakeWin32())
    assert translate.key(key(api.WM_KEYDOWN, VK_PACKET, scan=ord("Œ"))).char == "Œ"
    assert translate.key(key(api.WM_KEYDOWN, VK_PACKET, scan=0xD834)).char is None
    assert translate.key(key(api.WM_KEYDOWN, VK_PACKET, scan=0xDD1E)).char == "𝄞"


def test_mouse_messages_become_buttons_motion_and_scroll_with_a_direction() -> None:
    translate = HookTranslator(FakeWin32(), clock=lambda: 2.0)
    assert translate.mouse(mouse(api.WM_RBUTTONDOWN, 30, 40)) == RawInput("button_press", 30, 40, 2.0, button="right")
    assert translate.mouse(mouse(api.WM_MOUSEMOVE, 31, 41)) == RawInput("motion", 31, 41, 2.0)
    down = translate.mouse(mouse(api.WM_MOUSEWHEEL, data=(-120 & 0xFFFF) << 16))
    up = translate.mouse(mouse(api.WM_MOUSEWHEEL, data=120 << 16))
    assert down is not None and up is not None and (down.kind, down.key, up.key) == ("scroll", "down", "up")
    assert translate.mouse(mouse(0x020B)) is None  # X buttons are not on the wire
    assert translate.key(key(api.WM_KEYDOWN, 0x70)).x == 5  # keys carry the last pointer position


def test_a_persons_input_is_foreign_and_the_agents_tagged_input_is_not() -> None:
    watch = HookWatch(FakeWin32())
    seen: list[RawInput] = []
    watch.add_listener(seen.append)
    watch.start()
    watch.on_mouse(mouse(api.WM_LBUTTONDOWN))  # hardware
    watch.on_mouse(mouse(api.WM_LBUTTONUP, flags=api.LLMHF_INJECTED, extra=api.AGENT_EXTRA_INFO))
    watch.on_key(key(api.WM_KEYDOWN, 0x41, flags=api.LLKHF_INJECTED, extra=api.AGENT_EXTRA_INFO))
    watch.flush()
    watch.stop()
    assert [(r.kind, r.foreign) for r in seen] == [
        ("button_press", True),
        ("button_release", False),
        ("key_press", False),
    ]
    assert watch.foreign_count == 1


def test_injected_input_counts_as_the_agents_only_when_announced() -> None:
    watch = HookWatch(FakeWin32())
    watch.expect(["key_press"])
    watch.on_key(key(api.WM_KEYDOWN, 0x41, flags=api.LLKHF_INJECTED))  # announced, tag lost: ours
    watch.on_key(key(api.WM_KEYDOWN, 0x42, flags=api.LLKHF_INJECTED))  # another program (on-screen keyboard)
    watch.on_key(key(api.WM_KEYDOWN, 0x43))  # announced kinds are never used up by a person
    assert watch.foreign_count == 2


def test_an_injected_echo_of_the_agents_own_move_is_the_agents() -> None:
    watch = HookWatch(FakeWin32())
    watch.expect(["motion"])
    watch.on_mouse(mouse(api.WM_MOUSEMOVE, 380, 294, flags=api.LLMHF_INJECTED, extra=api.AGENT_EXTRA_INFO))
    watch.on_mouse(mouse(api.WM_MOUSEMOVE, 380, 294, flags=api.LLMHF_INJECTED))  # Wine repeats it untagged
    assert watch.foreign_count == 0
    watch.on_mouse(mouse(api.WM_MOUSEMOVE, 381, 294, flags=api.LLMHF_INJECTED))  # another program's move
    watch.on_mouse(mouse(api.WM_MOUSEMOVE, 380, 294))  # a person's mouse, back to the same place
    assert watch.foreign_count == 2


def test_a_persons_key_does_not_use_up_the_agents_announcement() -> None:
    watch = HookWatch(FakeWin32())
    watch.expect(["key_press"])
    watch.on_key(key(api.WM_KEYDOWN, 0x43))  # the person
    watch.on_key(key(api.WM_KEYDOWN, 0x41, flags=api.LLKHF_INJECTED))  # the agent, tag lost
    assert watch.foreign_count == 1


def test_the_hook_thread_is_started_and_stopped_with_wm_quit() -> None:
    win = FakeWin32()
    seen: list[RawInput] = []

    def script(on_mouse: api.MouseHandler, on_key: api.KeyHandler) -> None:
        on_mouse(mouse(api.WM_MOUSEMOVE, 1, 2))
        on_key(key(api.WM_KEYDOWN, 0x0D))

    win.hook_script = script
    watch = HookWatch(win)
    watch.add_listener(seen.append)
    watch.start()
    watch.flush()
    watch.stop()
    assert [(r.kind, r.key) for r in seen] == [("motion", None), ("key_press", "enter")]
    assert win.quit_posted == [77]


def test_input_the_hooks_missed_reinstalls_them_and_counts_as_a_persons() -> None:
    win = FakeWin32(last_input=10_000)
    watch = HookWatch(win)
    watch.start()
    assert win.tick is not None
    assert win.tick() is False  # the first tick takes the desktop's last input as where it starts
    win.last_input = 12_000  # an input, as GetLastInputInfo saw it, then the hooks
    win.now_ms = 12_030
    watch.on_key(key(api.WM_KEYDOWN, 0x41, flags=api.LLKHF_INJECTED, extra=api.AGENT_EXTRA_INFO))
    assert win.tick() is False
    assert watch.foreign_count == 0
    win.last_input = 20_000  # input that never reached the hooks: Windows removed them
    assert win.tick() is True
    assert (watch.foreign_count, watch.lost_count) == (1, 1)
    assert win.tick() is False  # counted once
    watch.stop()


def test_the_hook_check_survives_the_tick_count_wrapping() -> None:
    win = FakeWin32(last_input=0xFFFF_FF00, now_ms=0xFFFF_FF00)
    watch = HookWatch(win)
    watch.on_mouse(mouse(api.WM_MOUSEMOVE))
    win.last_input = 0x0000_0100  # 512 ms later, after the wrap
    assert watch.on_tick() is False
    win.last_input = 0x0000_1000  # 4.3 s later
    assert watch.on_tick() is True


def test_hooks_that_cannot_be_installed_fail_the_start_and_a_later_start_succeeds() -> None:
    win = FakeWin32(hook_failure=OSError(5, "SetWindowsHookExW: access denied"))
    watch = HookWatch(win)
    with pytest.raises(RuntimeError):
        watch.start()
    win.hook_failure = None
    watch.start()
    watch.on_mouse(mouse(api.WM_LBUTTONDOWN))
    watch.stop()
    assert watch.foreign_count == 1


def test_a_failing_listener_does_not_stop_the_others() -> None:
    watch = HookWatch(FakeWin32())
    seen: list[RawInput] = []

    def broken(raw: RawInput) -> None:
        raise RuntimeError("listener bug")

    watch.add_listener(broken)
    watch.add_listener(seen.append)
    watch.start()
    watch.on_mouse(mouse(api.WM_MOUSEMOVE))
    watch.flush()
    watch.stop()
    assert len(seen) == 1
