"""Keys read with the keyboard map in force when they were pressed; a key that maps to nothing is reported.

A typing program bound "é" to a spare keycode for the time it typed "Hélène": a recorder that read
keycodes with the map it loaded at start learned "Hlne" (the spare keycode mapped to nothing and
was dropped as if it were a modifier).
"""

from __future__ import annotations

import queue

import pytest
from rpa_agent.core.recorder import EventStream, Key
from rpa_agent.port import Window
from rpa_agent.x11.inject import Injector
from rpa_agent.x11.keys import Keymap, KeyTranslator
from rpa_agent.x11.watch import InputWatch, RawInput
from Xlib import X, display

from rpa_mcp.desktop_rig.harness import wait_until

SPARE = 200
H, E, L, N = 43, 26, 46, 57  # keycodes of h, e, l, n on a US map


class Server:
    """The X server's keyboard map, changed by another client (the typing program)."""

    def __init__(self) -> None:
        self.map = {code: [0, 0] for code in range(8, 256)}
        for code, char in ((H, "h"), (E, "e"), (L, "l"), (N, "n")):
            self.map[code] = [ord(char), ord(char.upper())]
        self.reads = 0

    def get_keyboard_mapping(self, first_keycode: int, count: int) -> list[list[int]]:
        self.reads += 1
        return [list(self.map[code]) for code in range(first_keycode, first_keycode + count)]

    def close(self) -> None:
        pass


def test_a_keycode_bound_after_the_recorder_started_reads_as_its_character() -> None:
    server = Server()
    keys = KeyTranslator(Keymap(server))
    server.map[SPARE] = [0xE9, 0xE9]  # é and è bound by the typing program, no MappingNotify seen yet
    server.map[SPARE + 1] = [0xE8, 0xE8]
    typed = [keys.translate(code, 0) for code in (H, SPARE, L, SPARE + 1, N, E)]
    assert "".join(k.char or "" for k in typed) == "hélène"
    assert not any(k.is_modifier or k.unmapped for k in typed)


def test_a_spare_keycode_rebound_to_another_character_reads_as_the_new_one_after_the_mapping_notify() -> None:
    server = Server()
    keymap = Keymap(server)
    keys = KeyTranslator(keymap)
    server.map[SPARE] = [0xE9, 0xE9]
    assert keys.translate(SPARE, 0).char == "é"
    server.map[SPARE] = [0xE8, 0xE8]  # the typing program rebinds it to è and the server says so
    keymap.refresh(SPARE, 1)
    assert keys.translate(SPARE, 0).char == "è"


def test_a_key_that_maps_to_nothing_is_reported_not_taken_for_a_modifier() -> None:
    keys = KeyTranslator(Keymap(Server()))
    key = keys.translate(SPARE, 0)
    assert key.unmapped and not key.is_modifier
    lines: list[str] = []
    sent: list[dict[str, object]] = []
    stream = EventStream(
        send=sent.append, machine_id="M", session_id="s", agent="test", screen_size=lambda: (10, 10),
        png=lambda frame: b"", say=lines.append, clock=lambda: 0.0,
    )  # fmt: skip
    window = Window(1, "Admission", 2, "app")
    for k in (Key("h", "h", "h"), key, Key("l", "l", "l")):
        stream.key(k, ts=1.0, window=window, frame=None)
    stream.flush_typing()
    assert stream.unmapped == 1 and any("maps to nothing" in line for line in lines)
    assert [e["text"] for e in sent if e["type"] == "type"] == ["hl"]


@pytest.mark.desktop
def test_text_typed_with_characters_the_keymap_lacks_is_read_back_exactly_on_a_real_display(desktop) -> None:
    conn = display.Display(desktop.display)
    keymap = Keymap(conn)
    keys = KeyTranslator(keymap)
    watch = InputWatch(desktop.display)
    watch.add_mapping_listener(keymap.refresh)
    notified: list[tuple[int, int]] = []
    watch.add_mapping_listener(lambda first, count: notified.append((first, count)))
    typed: queue.Queue[str] = queue.Queue()

    def on_raw(raw: RawInput) -> None:
        if raw.kind == X.KeyPress:
            key = keys.translate(raw.detail, raw.state)
            if not key.is_modifier:
                typed.put(key.char if key.char is not None else f"<{key.combo}>")

    watch.add_listener(on_raw)
    watch.start()
    hands = Injector(desktop.display, expect=watch.expect)
    try:
        text = "Hélène Œuvre ï"
        hands.type_text(text)
        seen: list[str] = []
        wait_until(lambda: (seen.extend(iter_queue(typed)), len(seen) >= len(text))[1], timeout=30, what="the keys")
        assert "".join(seen) == text
        assert notified  # the keycodes bound for the text were announced to the recorder, in order with the keys
    finally:
        hands.close()
        watch.stop()
        conn.close()


def iter_queue(q: queue.Queue[str]) -> list[str]:
    out = []
    while not q.empty():
        out.append(q.get())
    return out
