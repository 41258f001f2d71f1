"""The desktop demo's film and report, on synthetic frames: captions, click rings, no blank frame."""

from __future__ import annotations

import numpy as np
from PIL import Image

from rpa_mcp.demo_report import DesktopReport, ReplayRecord, replay_marks
from rpa_mcp.desktop_rig.film import BAND_PX, CAPTION_HOLD_MS, MARKER_S, Frame, Mark, compose, is_blank, save_gif

W, H = 320, 180


def screen(shade: int, *, square_at: int = 40) -> np.ndarray:
    """A drawn screen: a background with a dark square somewhere (not blank)."""
    image = np.full((H, W, 3), shade, np.uint8)
    image[60:100, square_at : square_at + 40] = 20
    return image


def blank(value: int) -> np.ndarray:
    return np.full((H, W, 3), value, np.uint8)


def red_ring_at(picture: Image.Image, x: int, y: int) -> bool:
    pixels = np.asarray(picture.convert("RGB")).astype(int)
    patch = pixels[y - 20 : y + 21, x - 20 : x + 21]
    return bool(((patch[..., 0] > 200) & (patch[..., 1] < 80) & (patch[..., 2] < 80)).any())


def band(picture: Image.Image) -> np.ndarray:
    return np.asarray(picture.convert("L"))[H:, :]


def test_blank_frames_are_recognised_and_left_out():
    assert is_blank(blank(0)) and is_blank(blank(255))
    assert not is_blank(screen(230))
    frames = [
        Frame(0.0, blank(0)),
        Frame(1.0, screen(230)),
        Frame(2.0, blank(255)),
        Frame(3.0, screen(200, square_at=120)),
    ]
    pictures = compose(frames, [], end=4.0)
    assert len(pictures) == 2
    assert all(not is_blank(np.asarray(p.image)[:H]) for p in pictures)
    assert compose([Frame(0.0, blank(0))], [Mark(0.0, "step 1")], end=1.0) == []  # nothing drawn: no film


def test_each_frame_says_the_step_and_its_verdict_under_the_picture():
    frames = [Frame(0.0, screen(230)), Frame(2.0, screen(200, square_at=120)), Frame(4.0, screen(180, square_at=200))]
    marks = [Mark(2.0, "Replay 1 · step 1/2: Rechercher — verdict SUCCESS"), Mark(3.9, "step 2/2 — verdict FAILURE")]
    pictures = compose(frames, marks, end=5.0, opening="before")
    assert [p.image.size for p in pictures] == [(W, H + BAND_PX)] * 3
    assert np.array_equal(np.asarray(pictures[1].image)[:H], frames[1].image)  # the caption hides nothing
    bands = [band(p.image) for p in pictures]
    assert all(b.max() > 200 for b in bands), "every band carries light text"
    assert not np.array_equal(bands[0], bands[1]) and not np.array_equal(bands[1], bands[2])
    assert all(p.duration_ms >= CAPTION_HOLD_MS for p in pictures[1:]), "a new caption is held long enough to read"


def test_a_click_ring_shows_where_the_agent_clicked_then_goes():
    frames = [Frame(0.0, screen(230)), Frame(10.2, screen(200, square_at=120)), Frame(10.5 + MARKER_S, screen(180))]
    pictures = compose(frames, [Mark(10.0, "step 1/1: click — verdict SUCCESS", click=(250, 130))], end=15.0)
    assert len(pictures) == 4
    assert not red_ring_at(pictures[0].image, 250, 130)  # before the click
    assert red_ring_at(pictures[1].image, 250, 130)  # the screen the agent clicked on, with the ring
    assert np.array_equal(np.asarray(pictures[1].image)[:H][120:140, 0:200], frames[0].image[120:140, 0:200])
    assert red_ring_at(pictures[2].image, 250, 130)  # what the click did
    assert not red_ring_at(pictures[3].image, 250, 130)  # long after it


def test_a_step_that_changed_nothing_on_screen_still_gets_its_own_captioned_frame():
    frames = [Frame(0.0, screen(230)), Frame(9.0, screen(200, square_at=120))]
    marks = [Mark(1.0, "step 1/3"), Mark(2.0, "step 2/3"), Mark(3.0, "step 3/3")]
    pictures = compose(frames, marks, end=10.0)
    assert len(pictures) == 5
    assert len({band(p.image).tobytes() for p in pictures}) == 4  # opening (empty) band, then steps 1, 2, 3
    assert np.array_equal(np.asarray(pictures[3].image)[:H], frames[0].image)  # the screen as it was


def test_the_gif_is_written_with_every_picture(tmp_path):
    frames = [Frame(0.0, screen(230)), Frame(1.0, screen(200, square_at=120))]
    path = tmp_path / "replay.gif"
    save_gif(compose(frames, [Mark(1.0, "step 1/1 — verdict SUCCESS")], end=2.0), str(path))
    with Image.open(path) as gif:
        assert gif.n_frames == 2 and gif.size == (W, H + BAND_PX)


STATUS = {
    "state": "completed",
    "outcome": "completed",
    "meaning": "Every step was done and its outcome seen.",
    "steps_total": 2,
    "actions": [
        {"action_id": "a-0", "index": 1, "intent": "Rechercher DURAND", "verdict": "SUCCESS", "origin": "workflow"},
        {"action_id": "a-1", "index": 2, "intent": "Enregistrer", "verdict": "SUCCESS", "origin": "workflow"},
    ],
}
PAUSED = {"state": "paused", "pause_reason": "target_not_resolved", "pause_detail": {"error": "no search field"}}


def test_replay_marks_caption_each_attempt_with_its_verdict_or_its_pause():
    record = ReplayRecord("Replay 2", STATUS, paused=PAUSED)
    timings = [
        {"action_id": "a-0", "injected": 5.0, "position": [100, 50]},
        {"action_id": "a-0", "injected": 9.0, "position": [110, 52]},  # retried after the pause
        {"action_id": "a-1", "reported": 11.0},
        {"action_id": "other", "injected": 1.0},
    ]
    marks = replay_marks("Replay 2", record, timings)
    assert [m.at for m in marks] == [5.0, 9.0, 11.0]
    assert marks[0].caption == "Replay 2 · step 1/2: Rechercher DURAND — paused: target_not_resolved"
    assert marks[1].caption.endswith("— verdict SUCCESS") and marks[1].click == (110, 52)
    assert marks[2].click is None


def test_the_report_reads_as_a_report():
    report = DesktopReport(competence="Observation infirmière", passed=12, seconds=95)
    report.understood = [{"index": 1, "intent": "Rechercher DURAND"}, {"index": 2, "intent": "Enregistrer"}]
    report.replays = [
        ReplayRecord("Replay 2: the PACS viewer in front", STATUS, paused=PAUSED, answer="answered retry")
    ]
    text = report.render()
    assert "Everything expected happened (12 checks)." in text
    assert "   step 1: Rechercher DURAND\n" in text
    assert "   step 2: Enregistrer — verdict SUCCESS" in text
    assert "It paused (target_not_resolved): no search field." in text
    assert "The person: answered retry" in text and "End: completed — Every step was done" in text
    assert "Film: none" in text
    missing = DesktopReport(passed=3, failures=["replay completed"]).render()
    assert "NOT everything expected happened: 3 seen, 1 missing" in missing and "   - replay completed" in missing


def test_a_start_refused_before_the_first_input_is_reported_as_a_refusal():
    refused = {"state": "refused", "code": "workstation-not-ready", "message": "the window is not in front"}
    report = DesktopReport(replays=[ReplayRecord("Replay 2", STATUS, paused=refused, answer="asked again")])
    text = report.render()
    assert "   Refused before the first input: the window is not in front\n   step 1:" in text
    assert "It paused" not in text
