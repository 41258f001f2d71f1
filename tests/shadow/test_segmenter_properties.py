"""Properties of the segmenter on any stream of events a recorder may send: every input lands in exactly one
step (a window change in at most one: the same window reported again is nothing new), and an observer
restarted between any two events (its state read back from plain data) places the rest exactly as one that
never stopped."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from rpa_mcp.shadow.events import TraceEvent
from rpa_mcp.shadow.segment import Context, Segment
from rpa_mcp.shadow.segmenter import place

WINDOWS = [("Recherche – Chromium", "chromium"), ("Dossier – Chromium", "chromium"), ("Courrier", "OUTLOOK.EXE")]
ELEMENTS = [
    {"name": "Ouvrir", "role": "Button"},
    {"name": "Nom", "role": "Edit"},
    {"name": "Service", "role": "ComboBox"},
    {"name": "DURAND", "role": "DataItem"},
    {"name": "Imagerie", "role": "TabItem"},
    None,
]
KEYS = ["enter", "tab", "escape", "backspace", "ctrl+s", "alt+tab", "down"]


@st.composite
def streams(draw: st.DrawFn) -> list[TraceEvent]:
    events, ts = [], 1_764_000_000.0
    for _ in range(draw(st.integers(1, 25))):
        ts += draw(st.sampled_from([0.1, 0.4, 1.5, 3.0, 6.0, 12.0]))
        title, app = draw(st.sampled_from(WINDOWS))
        kind = draw(st.sampled_from(["click", "double_click", "right_click", "type", "key", "focus", "scroll"]))
        fields: dict[str, object] = {"window_title": title, "app": app}
        if kind in ("click", "double_click", "right_click", "scroll"):
            fields |= {"x": draw(st.integers(0, 3)) * 200, "y": 300}
            element = draw(st.sampled_from(ELEMENTS))
            if element is not None and kind != "scroll":
                fields["element"] = element
        elif kind == "type":
            fields["text"] = draw(st.sampled_from(["DUR", "AND", "é"]))
        elif kind == "key":
            fields["keys"] = draw(st.sampled_from(KEYS))
        events.append(
            TraceEvent.model_validate({"session_id": "s", "machine_id": "m", "ts": ts, "type": kind, **fields})
        )
    return events


def _placed(events: list[TraceEvent], restart_at: int | None = None) -> list[dict[str, object]]:
    segments: list[Segment] = []
    ctx = Context()
    for idx, event in enumerate(events):
        if idx == restart_at:  # what the observer persisted, read back
            segments = [Segment.from_dict(copy.deepcopy(s.to_dict())) for s in segments]
            ctx = Context.from_dict(copy.deepcopy(ctx.to_dict()))
        place(segments, ctx, idx, event, now=event.ts)
    return [s.to_dict() for s in segments]


@given(streams())
def test_every_input_lands_in_exactly_one_step(events: list[TraceEvent]) -> None:
    placed = [i for seg in _placed(events) for i in seg["events"]]  # type: ignore[attr-defined]
    inputs = [i for i, event in enumerate(events) if event.type != "focus"]
    assert len(placed) == len(set(placed)) and set(inputs) <= set(placed)


@given(streams(), st.integers(0, 24))
def test_a_restart_between_two_events_changes_nothing(events: list[TraceEvent], at: int) -> None:
    assert _placed(events, restart_at=min(at, len(events) - 1)) == _placed(events)
