"""The real desktop the other desktop tests stand on: Xvfb, openbox, Chromium on the demo app,
XTEST input that reaches the page, AT-SPI element names, and the RECORD watch of input."""

from __future__ import annotations

import numpy as np
import pytest
from rpa_agent.port import InputRefused
from rpa_agent.x11.atspi import Accessibility
from rpa_agent.x11.inject import Injector
from rpa_agent.x11.screen import Screen
from rpa_agent.x11.watch import InputWatch

from rpa_mcp.desktop_rig import frame_array
from rpa_mcp.desktop_rig.harness import wait_until
from rpa_mcp.desktop_rig.person import Person
from rpa_mcp.vision.images import decode_image

pytestmark = pytest.mark.desktop


def _centre(bbox: tuple[int, int, int, int] | None) -> tuple[int, int]:
    assert bbox is not None
    x, y, w, h = bbox
    return x + w // 2, y + h // 2


def test_chromium_shows_the_demo_app_and_xtest_input_reaches_it(desktop):
    # closed after the test even when it fails: a window left over would take the next test's clicks
    browser = desktop.browser(wait_title="Recherche patient")
    front = desktop.desk.windows().foreground()
    assert front.wid == browser.wid and front.process == "chromium" and "Easily" in front.title
    screen = Screen(desktop.display)

    def painted() -> tuple[np.ndarray] | None:
        frame = decode_image(screen.png(screen.grab()))
        return (frame,) if frame.std() > 5 else None  # a real page, not a blank screen

    # the title is set before the first paint: the page shows a moment later (never a blank screen)
    (frame,) = wait_until(painted, timeout=30, what="the page painted")
    still = screen.grab()
    png = screen.png(still)
    screen.close()
    assert frame.shape[:2] == (1080, 1920)
    assert np.array_equal(decode_image(png), frame_array(still))  # the PNG holds the grabbed pixels exactly

    access = Accessibility(desktop.desk.env["DBUS_SESSION_BUS_ADDRESS"])
    assert access.available
    person = Injector(desktop.display)
    try:
        mark = desktop.effects.mark
        # find the field the way a recorder does: the element under the label's click point
        field = None
        for y in range(150, 400, 8):
            element = access.element_at(260, y, front.title)
            if element is not None and element.role == "entry":
                field = element
                break
        assert field is not None and field.name == "Rechercher un patient"
        person.click(*_centre(field.bbox))
        wait_until(
            lambda: (access.find("Rechercher un patient", role="entry") or field).focused, timeout=30, what="focus"
        )
        person.type_text("DURAND Alice")
        person.combo("enter")
        effects = desktop.effects.wait_for(lambda es: any(e.kind == "search" for e in es), since=mark)
        assert [e.detail["q"] for e in effects if e.kind == "search"] == ["DURAND Alice"]
        desktop.desk.wait_foreground(lambda w: "Recherche patient" in w.title and w.wid == browser.wid)
    finally:
        person.close()
        access.close()
        browser.process.terminate()
        browser.process.wait(30)


def test_the_input_watch_tells_announced_input_from_a_persons(desktop):
    watch = InputWatch(desktop.display).start()
    agent = Injector(desktop.display, expect=watch.expect)
    person = Injector(desktop.display)
    seen = []
    watch.add_listener(seen.append)
    try:
        agent.move(700, 500)
        agent.click(710, 510)
        agent.combo("shift+a")
        person.move(100, 120)
        from rpa_mcp.desktop_rig.harness import wait_until

        wait_until(lambda: any(e.foreign for e in seen), timeout=20, what="the person's move")
        foreign = [e for e in seen if e.foreign]
        assert [(e.name, e.x, e.y) for e in foreign] == [("motion", 100, 120)]
        assert watch.foreign_count == 1
        assert {e.name for e in seen if not e.foreign} >= {"motion", "button_press", "key_press", "key_release"}
    finally:
        person.close()
        agent.close()
        watch.stop()


def test_only_holders_of_the_displays_cookie_can_connect_to_it(desktop):
    import os
    import subprocess
    import sys

    from Xlib import display

    connect = f"from Xlib import display; display.Display({desktop.display!r}).close()"
    stranger = {**desktop.desk.env, "XAUTHORITY": os.devnull}  # another user, or someone else's test
    refused = subprocess.run([sys.executable, "-c", connect], env=stranger, capture_output=True, text=True)
    assert refused.returncode != 0 and "DisplayConnectionError" in refused.stderr
    allowed = subprocess.run([sys.executable, "-c", connect], env=desktop.desk.env, capture_output=True, text=True)
    assert allowed.returncode == 0, allowed.stderr
    display.Display(desktop.display).close()  # this process holds the cookie too


def test_any_unicode_text_is_typed_exactly_even_when_the_keyboard_map_must_change_midway(desktop):
    # More characters without a key than the spare keycodes: some are rebound while the text is typed.
    text = "Zoë Œuvre — 日本語 ΩΨ€ñĳ ok"
    browser = desktop.browser("/", wait_title="Recherche patient")
    watch = InputWatch(desktop.display).start()
    agent = Injector(desktop.display, expect=watch.expect)
    person = Person(desktop.desk)
    try:
        mark = desktop.effects.mark
        agent.click(*person.point("Rechercher un patient", "entry"))
        person.find_focused("Rechercher un patient", "entry")
        agent.type_text(text)
        agent.combo("enter")
        effects = desktop.effects.wait_for(lambda es: any(e.kind == "search" for e in es), since=mark)
        assert [e.detail["q"] for e in effects if e.kind == "search"] == [text]
        assert watch.foreign_count == 0  # every event announced: none taken for a person's
        seen = []
        watch.add_listener(seen.append)
        # the watch delivers in order, and may still be delivering the typing above: once this move
        # arrives, everything before it has, and what follows starts clean
        agent.move(3, 3)
        wait_until(lambda: any(e.name == "motion" and (e.x, e.y) == (3, 3) for e in seen), timeout=20, what="a move")
        seen.clear()
        with pytest.raises(InputRefused, match="spare keycodes"):  # more characters without a key than spares
            agent.type_text("".join(chr(0x4E00 + i) for i in range(300)))
        agent.move(5, 5)  # the watch sees this move, and nothing typed before it
        wait_until(lambda: seen, timeout=20, what="the move")
        assert [e.name for e in seen] == ["motion"]
    finally:
        person.close()
        agent.close()
        watch.stop()
        browser.process.terminate()
        browser.process.wait(30)
