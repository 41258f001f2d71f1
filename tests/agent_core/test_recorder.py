"""The recorder's event stream: clicks, typing bursts, keys and windows as shadow events; secrets masked."""

from __future__ import annotations

from typing import Any

from rpa_agent.core.http import Response
from rpa_agent.core.recorder import MASK, EventSender, EventStream, Key, still_frame
from rpa_agent.port import Element, Frame, Window

from .fakes import FakeHttp

FORM = Window(7, "Connexion — Easily", 42, "chromium")
PASSWORD = Element("Mot de passe", "Edit", (10, 10, 200, 30), is_password=True)


def stream(sent: list[dict[str, Any]], clock: list[float]) -> EventStream:
    return EventStream(
        send=sent.append,
        machine_id="PC-1",
        session_id="s1",
        agent="test",
        screen_size=lambda: (1280, 800),
        png=lambda frame: b"png",
        locale="fr",
        clock=lambda: clock[0],
    )


def keys(text: str) -> list[Key]:
    return [Key("space", " ", "space") if c == " " else Key(c.lower(), c, c.lower()) for c in text]


def test_a_click_then_typing_then_enter_make_three_events_stamped_when_they_happened() -> None:
    sent: list[dict[str, Any]] = []
    events = stream(sent, [0.0])
    events.window(FORM, 99.0)
    frame = Frame(1, 1, b"\0\0\0\0")
    events.click(5, 6, button="left", ts=100.0, received=1.0, window=FORM, element=Element("Nom", "Edit"), frame=frame)
    for key in keys("Zoé Lefèvre"):
        events.key(key, ts=101.0, window=FORM, frame=None)
    events.key(Key("enter", None, "enter"), ts=102.0, window=FORM, frame=frame)
    assert [e["type"] for e in sent] == ["focus", "click", "type", "key"]
    click, typed, enter = sent[1:]
    assert click["element"] == {"name": "Nom", "role": "Edit"} and click["screenshot"] and click["ts"] == 100.0
    assert typed["text"] == "Zoé Lefèvre" and typed["ts"] == 101.0 and enter["keys"] == "enter"
    assert {e["machine_id"] for e in sent} == {"PC-1"} and sent[0]["screen_width"] == 1280


def test_text_typed_in_a_password_field_never_leaves_the_machine() -> None:
    sent: list[dict[str, Any]] = []
    events = stream(sent, [0.0])
    events.click(5, 6, button="left", ts=1.0, received=1.0, window=FORM, element=PASSWORD, frame=None)
    for key in keys("s3cret"):
        events.key(key, ts=2.0, window=FORM, frame=None)
    events.key(Key("tab", None, "tab"), ts=3.0, window=FORM, frame=None)
    typed = next(e for e in sent if e["type"] == "type")
    assert typed["text"] == MASK and typed["is_password"] is True
    assert "s3cret" not in repr(sent)


def test_two_quick_clicks_at_the_same_place_are_a_double_click() -> None:
    sent: list[dict[str, Any]] = []
    events = stream(sent, [0.0])
    for received in (1.0, 1.2):
        events.click(50, 60, button="left", ts=received, received=received, window=FORM, element=None, frame=None)
    assert [e["type"] for e in sent] == ["click", "double_click"]


def test_a_pause_ends_a_burst_of_typing() -> None:
    sent: list[dict[str, Any]] = []
    clock = [0.0]
    events = stream(sent, clock)
    for key in keys("ab"):
        events.key(key, ts=1.0, window=FORM, frame=None)
    events.tick()
    assert sent == []
    clock[0] = 5.0
    events.tick()
    assert [e.get("text") for e in sent] == ["ab"]


def test_events_are_posted_until_the_server_takes_them_and_a_refused_token_stops_the_sender() -> None:
    answers = [503, 200, 401]
    posted: list[str] = []

    def handler(method: str, path: str, body: Any) -> tuple[int, Any]:
        posted.append(body["event_id"])
        return answers.pop(0), {}

    sender = EventSender(FakeHttp(handler), say=lambda text: None, sleep=lambda s: None)
    assert sender.post({"event_id": "e1"}) and sender.sent == 1 and posted == ["e1", "e1"]
    assert not sender.post({"event_id": "e2"}) and sender.refused == 1
    assert isinstance(Response(200, b"{}").json(), dict)


def test_an_event_carries_its_windows_box_and_a_check_box_its_state_before_the_click() -> None:
    sent: list[dict[str, Any]] = []
    events = stream(sent, [0.0])
    placed = Window(7, "Pharmacie", 42, "chromium", box=(100, 50, 1024, 768))
    box = Element("Urgent", "CheckBox", (120, 300, 16, 16), checked=False)
    events.click(128, 308, button="left", ts=1.0, received=1.0, window=placed, element=box, frame=None)
    events.click(
        500, 600, button="left", ts=3.0, received=3.0, window=FORM, element=Element("OK", "Button"), frame=None
    )
    ticked, plain = sent
    assert ticked["window_box"] == [100, 50, 1024, 768] and ticked["element"]["states"] == []
    assert "window_box" not in plain and "states" not in plain["element"]  # no box known, not a check box


def test_the_screen_the_last_action_left_is_sent_once_still_when_the_recording_stops() -> None:
    """The last step's evidence (a confirmation bar sliding in after the save) is on no later input's frame."""
    sent: list[dict[str, Any]] = []
    events = stream(sent, [0.0])
    events.window(FORM, 99.0)
    sliding, shown = Frame(1, 1, b"\1\0\0\0"), Frame(1, 1, b"\2\0\0\0")
    grabs = iter([sliding, shown, shown])
    waits: list[float] = []
    still = still_frame(lambda: next(grabs), sleep=waits.append)
    assert still is shown and len(waits) == 2
    events.click(5, 6, button="left", ts=100.0, received=1.0, window=FORM, element=None, frame=shown)
    events.screen_at_end(still, 101.0)
    assert [e["type"] for e in sent] == ["focus", "click", "screenshot"]
    assert sent[-1]["screenshot"] and sent[-1]["window_title"] == FORM.title and sent[-1]["ts"] == 101.0


def test_no_screen_is_sent_at_the_end_of_a_recording_without_an_action() -> None:
    sent: list[dict[str, Any]] = []
    events = stream(sent, [0.0])
    events.window(FORM, 99.0)
    events.screen_at_end(Frame(1, 1, b"\0\0\0\0"), 100.0)
    assert [e["type"] for e in sent] == ["focus"]
