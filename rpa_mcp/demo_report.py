"""What `rpa-mcp demo --desktop` writes for a person to read afterwards: `report.txt` and the film's captions.

The report is not the console's running commentary: it says what was learnt (the steps the
server understood), each replay step by step with its verdict, where a replay paused and what
the person answered, what the application itself recorded, and which expected outcomes were
missing. `replay_marks` turns a finished replay and the agent's timings into the film's captions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rpa_mcp.desktop_rig.film import Mark

WIDTH = 78


@dataclass
class ReplayRecord:
    title: str
    status: dict[str, Any]
    paused: dict[str, Any] | None = None  # the status while it waited for a person
    answer: str = ""


@dataclass
class DesktopReport:
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    competence: str = ""
    understood: list[dict[str, Any]] = field(default_factory=list)
    replays: list[ReplayRecord] = field(default_factory=list)
    effects: dict[str, int] = field(default_factory=dict)
    passed: int = 0
    failures: list[str] = field(default_factory=list)
    film: Path | None = None
    film_note: str = ""
    seconds: float = 0.0

    def render(self) -> str:
        lines = [
            "rpa-mcp demo --desktop — what happened",
            "=" * WIDTH,
            f"Run on {self.started_at:%Y-%m-%d %H:%M} UTC, {self.seconds:.0f} s.",
            _verdict_line(self.passed, self.failures),
            "",
            f"1. What the platform learnt{f' ({self.competence})' if self.competence else ''}",
            "-" * WIDTH,
        ]
        if self.understood:
            lines += [f"   step {s.get('index')}: {s.get('intent')}" for s in self.understood]
        else:
            lines.append("   (the story stopped before the demonstration was understood)")
        for n, replay in enumerate(self.replays, 2):
            lines += ["", f"{n}. {replay.title}", "-" * WIDTH, *_replay_lines(replay)]
        if self.effects:
            counts = ", ".join(f"{kind} {count}×" for kind, count in self.effects.items())
            lines += ["", "What the application itself recorded for the first replay: " + counts]
        if self.failures:
            lines += ["", "Missing (expected but not seen):", *[f"   - {f}" for f in self.failures]]
        note = f" — {self.film_note}" if self.film_note else ""
        lines += ["", f"Film: {self.film.name if self.film else 'none'}{note}"]
        return "\n".join(lines) + "\n"


def verdict_words(action: dict[str, Any]) -> str:
    verdict = action.get("verdict")
    if verdict == "SUCCESS":
        return "verdict SUCCESS"
    if verdict:
        category = action.get("failure_category")
        return f"verdict {verdict}{f' ({category})' if category else ''}"
    state = str(action.get("state") or "").lower()
    return f"not judged ({state})" if state else "not judged"


def replay_marks(title: str, record: ReplayRecord, timings: list[dict[str, Any]]) -> list[Mark]:
    """One caption per attempt the agent made: the step, then its verdict (or the pause it met)."""
    actions = {a["action_id"]: a for a in record.status.get("actions", [])}
    total = record.status.get("steps_total") or len(actions)
    marks = []
    attempts = [t for t in timings if t.get("action_id") in actions]
    for i, timing in enumerate(attempts):
        action = actions[timing["action_id"]]
        at = timing.get("injected") or timing.get("reported")
        if at is None:
            continue
        retried = any(t["action_id"] == timing["action_id"] for t in attempts[i + 1 :])
        if retried and record.paused is not None:
            outcome = f"paused: {_reason(record.paused)}"
        else:
            outcome = verdict_words(action)
        position = timing.get("position")
        click = (int(position[0]), int(position[1])) if position else None
        caption = f"{title} · step {action.get('index')}/{total}: {action.get('intent')} — {outcome}"
        marks.append(Mark(float(at), caption, click))
    return marks


def _reason(status: dict[str, Any]) -> str:
    return str(status.get("pause_reason") or status.get("state") or "paused")


def _replay_lines(replay: ReplayRecord) -> list[str]:
    status = replay.status
    lines = []
    for a in sorted(status.get("actions", []), key=lambda a: (a.get("index", 0), a.get("origin") != "workflow")):
        lines.append(f"   step {a.get('index')}: {a.get('intent')} — {verdict_words(a)}")
    if replay.paused is not None and replay.paused.get("state") == "refused":
        lines.insert(0, f"   Refused before the first input: {replay.paused.get('message')}")
    elif replay.paused is not None:
        detail = replay.paused.get("pause_detail") or {}
        why = detail.get("error") or detail.get("reason") if isinstance(detail, dict) else detail
        lines.append(f"   It paused ({_reason(replay.paused)}){f': {why}' if why else ''}.")
    if replay.answer:
        lines.append(f"   The person: {replay.answer}")
    outcome = status.get("outcome") or status.get("state")
    meaning = status.get("meaning")
    lines.append(f"   End: {outcome}{f' — {meaning}' if meaning else ''}")
    return lines


def _verdict_line(passed: int, failures: list[str]) -> str:
    if failures:
        return f"NOT everything expected happened: {passed} seen, {len(failures)} missing (listed at the end)."
    return f"Everything expected happened ({passed} checks)."
