"""`rpa-mcp bench desktop`: the replay loop on a real (virtual) X11 desktop, measured.

    rpa-mcp bench desktop [--rest --runs 50 --steps 20] [--detail PATH]

On Xvfb + openbox + Chromium showing the demo application, with the RPA server and
`rpa-agent` (in this process, so its phase times can be read) on loopback:

- **screenshot cost**: the agent's grab of the 1920x1080 screen and its PNG / JPEG encoding;
- **click-to-click**: a `--steps`-long replay on a record (a note typed, saved, the next one typed,
  saved, ...); for each pair of consecutive
  actions, the time from the end of one injection to the end of the next, minus the first one's
  own wait (the agent waiting for the screen to settle). Median and p95, and the share of each
  part, from the agent's phase times (after-screenshot, report = server validation, dispatch and
  poll, receipt/start acks, before-screenshot, resolve = server resolution, injection) and, inside
  the report and the resolve, the server's own time from its structured replay log lines (`--detail`
  writes each action's phase times and how the server resolved its target, one JSON line each);
- **reliability**: a nurse's observation is learned (scripted person, `rpa-agent record`), its
  patient and note made parameters, and it is replayed `--runs` times, each for another patient,
  with the window maximised, moved, resized or too short to show the record's "Enregistrer" (the agent scrolls
  it into view), and the record opening scrolled or not: every pair in 8 runs. A run is
  *complete* when it completed with every verdict SUCCESS and the application's own log shows
  each effect exactly once; *paused* when it stopped for a person with nothing wrong done; *wrong*
  when the application underwent anything else (an effect twice, on another patient, a deletion).

Figures depend on the machine; a shared machine gives noisy ones (compare within one run).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rpa_mcp.bench import summary, timings
from rpa_mcp.replay.model import LOOK_ORIGINS

COMPETENCE = "Observation infirmière"
ROUND = "Notes de surveillance"
GEOMETRIES = ("maximized", "moved", "resized", "short")  # short: the record's "Enregistrer" below its fold
PARTS = (  # (name, action, its phase) -> (action, its phase); "a" is an action, "b" the next one
    ("after-screenshot", ("a", "settled"), ("a", "encoded")),
    ("report + validation", ("a", "encoded"), ("a", "reported")),
    ("dispatch + poll", ("a", "reported"), ("b", "polled")),
    ("receipt + start acks", ("b", "polled"), ("b", "started")),
    ("before-screenshot", ("b", "started"), ("b", "shot")),
    ("resolve", ("b", "shot"), ("b", "resolved")),
    ("injection", ("b", "resolved"), ("b", "injected")),
)


@dataclass
class RunOutcome:
    patient: str
    geometry: str
    scrolled: bool
    verdict: str  # complete | paused | wrong
    seconds: float
    detail: str = ""


@dataclass
class Reliability:
    runs: list[RunOutcome] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)  # every run's steps, from its evidence bundle

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.runs)


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- screenshot cost --------------------------------------------------------------------------------
def screenshot_cost(display: str, repeat: int) -> list[str]:
    import cv2
    from rpa_agent.x11.screen import Screen

    from rpa_mcp.desktop_rig import frame_array

    screen = Screen(display)
    try:
        shot = screen.grab()
        frame = frame_array(shot)
        grab = timings(screen.grab, repeat=repeat)
        png = timings(lambda: screen.png(shot), repeat=repeat)
        jpeg = timings(lambda: cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92]), repeat=repeat)
    finally:
        screen.close()
    h, w = frame.shape[:2]
    return [
        f"screenshot {w}x{h}: grab (mss, XShm)   {summary(grab)}",
        f"screenshot {w}x{h}: PNG level 1 (PIL) {summary(png)}",
        f"screenshot {w}x{h}: JPEG q92 (option) {summary(jpeg)}",
    ]


# --- learning the competence --------------------------------------------------------------------------
def learn(rig: Any, tools: Any) -> None:
    from rpa_mcp.desktop_rig.harness import wait_until
    from rpa_mcp.desktop_rig.person import Person
    from rpa_mcp.desktop_rig.scenario import Observation, demonstrate, recorder_pace, with_parameters

    taught = Observation("DURAND Alice", "Patient calme, douleur 2/10.")
    session = "bench-observation"
    browser = rig.browser("/", wait_title="Recherche patient")
    recorder = rig.recorder(session)
    recorder.wait_line("recording session")
    wait_until(lambda: rig.services.shadow.traces.get_session(session), timeout=60, what="the recording session")
    tools.call("shadow_start", session_id=session)
    person = Person(rig.desk, pace=recorder_pace(recorder))
    try:
        demonstrate(person, rig.effects, taught)
    finally:
        person.close()
    recorder.stop()
    tools.call("shadow_stop", session_id=session)
    tools.call("shadow_feedback", session_id=session, action="validate")
    ir = tools.call("shadow_build", session_id=session, name=COMPETENCE)["workflow_ir"]
    kinds = [s["action_type"] for s in ir["steps"]]
    if kinds != ["type_text", "click_anchor", "switch_tab", "type_text", "click_anchor"]:
        raise RuntimeError(f"the observation was not learned as its five steps: {kinds}")
    rig.services.competences.save(COMPETENCE, with_parameters(ir, taught), machine_id=rig.machine_id)
    tools.propose_apply("promote_competence", name=COMPETENCE)
    rig.close_browser(browser)


# --- click to click -----------------------------------------------------------------------------------
def click_to_click(rig: Any, tools: Any, agent: Any, steps: int, detail: Path | None = None) -> list[str]:
    from rpa_mcp.demo_app import patient_by_id
    from rpa_mcp.desktop_rig.person import Person
    from rpa_mcp.desktop_rig.scenario import note_round, workflow

    patient = patient_by_id("p060")
    assert patient is not None
    browser = rig.browser(f"/patient/{patient.id}/observations", wait_title="Observations")
    person = Person(rig.desk)
    try:
        planned = note_round(person, f"Easily — {patient.name} — Observations", steps)
    finally:
        person.close()
    rig.services.competences.save(ROUND, workflow(ROUND, planned), machine_id=rig.machine_id)
    first_line = len(rig.log.lines)
    replay_id = tools.propose_apply("start_replay", competence=ROUND, machine_id=rig.machine_id)["replay_id"]
    status = tools.wait_stopped(replay_id)
    rig.close_browser(browser)
    if status["state"] != "completed":
        return [f"click-to-click: the {steps}-step replay stopped {status['state']} ({status.get('pause_reason')})"]
    # not the looks at the screen before the first step and after the last (no input)
    ids = [a["action_id"] for a in status["actions"] if a.get("origin") not in LOOK_ORIGINS]
    marks = {t["action_id"]: t for t in list(agent.agent.timings) if t["action_id"] in ids}
    ordered = [marks[i] for i in ids if i in marks]
    events = _events(rig.log.lines[first_line:])
    kinds = {a["action_id"]: a["action_type"] for a in status["actions"]}
    gaps, raw, waits, validate, resolve = [], [], [], [], []
    by_kind: dict[str, list[float]] = {}
    parts: dict[str, list[float]] = {name: [] for name, _, _ in PARTS}
    for a, b in itertools.pairwise(ordered):
        pair = {"a": a, "b": b}
        settle = a["settled"] - a["injected"]
        raw.append(b["injected"] - a["injected"])
        waits.append(settle)
        gaps.append(raw[-1] - settle)
        by_kind.setdefault(str(kinds.get(b["action_id"])), []).append(gaps[-1])
        for name, (first, start), (second, end) in PARTS:
            parts[name].append(pair[second][end] - pair[first][start])
        validate += _span(events, a["encoded"], a["reported"], "report", "transition", a["action_id"])
        resolve += _span(events, b["shot"], b["resolved"], "resolve_entry", "resolve_exit", None)
    if detail is not None:
        _write_detail(detail, ordered, kinds, events)
    total = sum(gaps)
    lines = [
        f"click-to-click over a {steps}-step replay ({len(gaps)} pairs), the step's own wait removed:",
        f"  median {statistics.median(gaps):.3f} s  p95 {_quantile(gaps, 0.95):.3f} s  "
        "(target: median < 0.3 s, idle machine)",
        f"  raw gap median {statistics.median(raw):.3f} s, of which the agent's settle wait "
        f"median {statistics.median(waits):.3f} s",
        "  by the next action: "
        + ", ".join(f"{kind} median {statistics.median(v):.3f} s (n={len(v)})" for kind, v in sorted(by_kind.items())),
    ]
    typed = [t for t in ordered if "focus_evidence" in t]
    if typed:
        landed = sum(bool(t["focus_evidence"]) for t in typed)
        lines.append(
            f"  text typed after evidence that its field has the keyboard: {landed}/{len(typed)} "
            "(else after the whole screen was quiet)"
        )
    lines.append("  share of the click-to-click time:")
    for name, _, _ in PARTS:
        values = parts[name]
        lines.append(f"    {name:<22} {100 * sum(values) / total:5.1f} %   median {statistics.median(values):.3f} s")
    if validate:
        lines.append(f"    (server's own validation inside the report: median {statistics.median(validate):.3f} s)")
    if resolve:
        lines.append(f"    (server's own resolution inside the resolve: median {statistics.median(resolve):.3f} s)")
    lines += check_costs(rig.services.replay.evidence_bundle(replay_id)["bundle"]["steps"])
    return lines


POST_CONDITION_CHECKERS = ("OutcomeChecker", "UnexpectedMessageChecker")


def check_costs(bundle_steps: list[dict[str, Any]]) -> list[str]:
    """Per step, from the runs' evidence bundles: the identity check on the agent (read before the click)
    and the post-condition checks on the server (outcome seen, no unexpected message)."""
    steps = [s for s in bundle_steps if s.get("origin") not in LOOK_ORIGINS]
    identity = [float(ms) for s in steps if (ms := (s.get("phases_ms") or {}).get("identity")) is not None]
    post = [
        sum(
            float(c.get("duration_ms") or 0)
            for c in s.get("checkers") or []
            if c.get("checker") in POST_CONDITION_CHECKERS
        )
        for s in steps
    ]
    return [
        "  per step, from the evidence bundles:",
        f"    identity check (agent)        median {_median_ms(identity)} "
        f"(steps with one: {len(identity)}/{len(steps)})",
        f"    post-condition checks (server) median {_median_ms(post)} ({', '.join(POST_CONDITION_CHECKERS)})",
    ]


def _median_ms(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ms" if values else "—"


def _write_detail(
    path: Path, ordered: list[dict[str, Any]], kinds: dict[str, Any], events: list[tuple[float, dict[str, Any]]]
) -> None:
    """One JSON line per action: its phase times (seconds from its poll) and the server's resolution."""
    with path.open("w", encoding="utf-8") as out:
        for t in ordered:
            phases = {k: round(v - t["polled"], 4) for k, v in t.items() if isinstance(v, float)}
            exits = [
                r
                for at, r in events
                if t["shot"] <= at <= t.get("resolved", t["shot"]) and r.get("event") == "resolve_exit"
            ]
            found = {k: exits[-1].get(k) for k in ("method", "from_memory", "elapsed_ms")} if exits else {}
            record = {"step": t["step_index"], "kind": kinds.get(t["action_id"]), "phases": phases, "resolve": found}
            if "focus_evidence" in t:
                record["focus_evidence"] = t["focus_evidence"]
            out.write(json.dumps(record) + "\n")


def _typed(agent: Any) -> list[dict[str, Any]]:
    """The agent's timings of the texts it typed after clicking their field (kept: the last 1000 actions)."""
    return [t for t in list(agent.agent.timings) if "focus_evidence" in t]


def _events(lines: list[tuple[float, str]]) -> list[tuple[float, dict[str, Any]]]:
    out = []
    for at, text in lines:
        try:
            record = json.loads(text)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append((at, record))
    return out


def _span(
    events: list[tuple[float, dict[str, Any]]], t0: float, t1: float, first: str, last: str, action_id: str | None
) -> list[float]:
    """Seconds from the server's `first` line to its last `last` line within [t0, t1] (one action's)."""
    inside = [(at, r) for at, r in events if t0 <= at <= t1 and (action_id is None or r.get("action_id") == action_id)]
    starts = [at for at, r in inside if r.get("event") == first]
    ends = [at for at, r in inside if r.get("event") == last]
    return [ends[-1] - starts[0]] if starts and ends and ends[-1] >= starts[0] else []


# --- reliability ------------------------------------------------------------------------------------
def variation(run: int) -> tuple[str, bool]:
    """The window's geometry and whether the record opens scrolled, for run `run`: every pair in 8 runs."""
    return GEOMETRIES[(run // 2) % len(GEOMETRIES)], run % 2 == 1


def reliability(rig: Any, tools: Any, runs: int) -> Reliability:
    from rpa_mcp.demo_app import PATIENTS

    outcome = Reliability()
    desk = _Desk(rig)
    try:
        for i in range(runs):
            patient = PATIENTS[(1 + 7 * i) % (len(PATIENTS) - 1)]  # the last one is the click-to-click record
            note = f"Passage {i + 1} : patient calme, douleur {i % 10}/10."
            geometry, scrolled = variation(i)
            desk.prepare(geometry, scrolled)
            mark = rig.effects.mark
            started = time.monotonic()
            params = {"patient": patient.name, "note": note}
            replay_id = tools.propose_apply(
                "start_replay", competence=COMPETENCE, machine_id=rig.machine_id, params=params
            )["replay_id"]
            status = tools.wait_stopped(replay_id)
            verdict, detail = judge(status, rig.effects.since(mark), patient, note)
            outcome.steps += rig.services.replay.evidence_bundle(replay_id)["bundle"]["steps"]
            outcome.runs.append(
                RunOutcome(patient.name, geometry, scrolled, verdict, time.monotonic() - started, detail)
            )
            if status["state"] == "paused":
                tools.call("cancel_replay", replay_id=replay_id)
                desk.fresh_browser()
            else:
                desk.back_to_search(next_scrolled=variation(i + 1)[1])
    finally:
        desk.close()
    return outcome


def judge(status: dict[str, Any], effects: list[Any], patient: Any, note: str) -> tuple[str, str]:
    """complete / paused / wrong, from the application's own log first, then the server's status."""
    by_kind: dict[str, list[Any]] = {}
    for e in effects:
        by_kind.setdefault(e.kind, []).append(e)
    searches = [e.detail.get("q") for e in by_kind.get("search", [])]
    opened = [e.detail.get("patient") for e in by_kind.get("open_record", [])]
    tabs = [e.detail.get("tab") for e in by_kind.get("tab", [])]
    saves = [(e.detail.get("patient"), e.detail.get("text")) for e in by_kind.get("save", [])]
    clicks_elsewhere = [e for e in by_kind.get("click", []) if e.detail.get("view") not in ("search", "record")]
    problems = []
    if len(searches) > 1 or any(q != patient.name for q in searches):
        problems.append(f"searches {searches}")
    if len(opened) > 1 or any(p != patient.id for p in opened):
        problems.append(f"records opened {opened}")
    if len(tabs) > 1 or any(t != "observations" for t in tabs):
        problems.append(f"tabs {tabs}")
    if len(saves) > 1 or any(s != (patient.id, note) for s in saves):
        problems.append(f"saves {saves}")
    if by_kind.get("delete") or by_kind.get("leave") or clicks_elsewhere:
        problems.append("a deletion, a page left or a click in another application")
    done = status["state"] == "completed" and all(a.get("verdict") == "SUCCESS" for a in status["actions"])
    if done and not problems and len(saves) == 1 and len(opened) == 1:
        return "complete", ""
    if done or problems:
        return "wrong", "; ".join(problems) or "completed without every effect seen on the application"
    return "paused", f"{status.get('pause_reason')}: {json.dumps(status.get('pause_detail'), ensure_ascii=False)[:600]}"


class _Desk:
    """The bench's own hands between runs: the window's geometry, the record's scroll, a fresh browser."""

    def __init__(self, rig: Any) -> None:
        from rpa_mcp.desktop_rig.person import Person

        self.rig = rig
        self.person = Person(rig.desk)
        self.browser = rig.browser("/", wait_title="Recherche patient")

    def close(self) -> None:
        self.person.close()

    def prepare(self, geometry: str, scrolled: bool) -> None:
        from rpa_mcp.desktop_rig.harness import wait_until

        windows = self.rig.desk.windows()
        wid = self.browser.wid
        width = {"maximized": windows.size[0], "moved": 1560, "resized": 1280, "short": 1280}[geometry]
        if geometry == "maximized":
            windows.maximize(wid)
        elif geometry == "moved":
            windows.move_resize(wid, 180, 90, 1560, 940)
        elif geometry == "resized":
            windows.move_resize(wid, 0, 0, 1280, 760)
        else:
            windows.move_resize(wid, 0, 0, 1280, 560)
        windows.activate(wid)

        def placed() -> bool:  # the window manager honours the request in its own time
            info = windows.info(wid)
            return bool(
                info and info.geometry and abs(info.geometry[2] - width) <= 4 and windows.active_window() == wid
            )

        wait_until(placed, timeout=30, what=f"the browser window {geometry}")
        self.rig.desk.wait_still()
        self.person.find("Rechercher un patient", "entry")

    def back_to_search(self, *, next_scrolled: bool) -> None:
        """Scroll the record (the next one opens where this one is left), then back to the search page
        through the application's header, which stays in view."""
        x, y = self.person.point("Observations", "page tab")
        self.person.hands.scroll(
            x, y + 200, direction="down" if next_scrolled else "up", amount=2 if next_scrolled else 10
        )
        self.rig.desk.wait_still()
        self.person.click("Easily", "link")
        self.rig.desk.wait_foreground(lambda w: "Recherche patient" in w.title)

    def fresh_browser(self) -> None:
        self.rig.close_browser(self.browser)
        self.browser = self.rig.browser("/", wait_title="Recherche patient")


# --- the report ---------------------------------------------------------------------------------------
def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench desktop")
    parser.add_argument("--runs", type=int, default=50, help="replays of the learned competence (default 50)")
    parser.add_argument("--steps", type=int, default=20, help="steps of the click-to-click replay (default 20)")
    parser.add_argument("--shots", type=int, default=20, help="screenshots timed (default 20)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the desktop's logs and data here")
    parser.add_argument("--detail", type=Path, default=None, help="write each action's phase times here (JSON lines)")
    args, _ = parser.parse_known_args(argv)
    from rpa_mcp.desktop_rig.harness import missing_tools

    missing = missing_tools()
    if missing:
        return f"not available: a real desktop needs Debian packages {', '.join(missing)} (apt-get install -y ...)"
    with tempfile.TemporaryDirectory(prefix="rpa-bench-desktop-") as tmp:
        return _measure(args, args.workdir or Path(tmp))


def _measure(args: argparse.Namespace, workdir: Path) -> str:
    from rpa_mcp.desktop_rig.rig import Rig

    started = time.monotonic()
    with Rig(workdir, rate_limit_per_minute=1_000_000, log_to_console=False) as rig:
        lines = screenshot_cost(rig.desk.display, args.shots)
        tools = rig.tools()
        agent = rig.start_agent(poll_wait_s=10.0)
        learn(rig, tools)
        lines += click_to_click(rig, tools, agent, args.steps, args.detail)
        typed_before = len(_typed(agent))
        outcome = reliability(rig, tools, args.runs)
        typed = _typed(agent)[typed_before:]
    lines.append(
        f"reliability over {len(outcome.runs)} replays of the learned competence (another patient each time, "
        f"window maximised/moved/resized/short, record scrolled or not):"
    )
    lines.append(
        f"  complete with every effect exactly once: {outcome.count('complete')}/{len(outcome.runs)}   "
        f"paused: {outcome.count('paused')}   wrong: {outcome.count('wrong')}   (target >= 49/50 complete, 0 wrong)"
    )
    if typed:
        landed = sum(bool(t["focus_evidence"]) for t in typed)
        lines.append(f"  text typed after evidence that its field has the keyboard: {landed}/{len(typed)}")
    durations = [r.seconds for r in outcome.runs]
    if durations:
        lines.append(f"  seconds per replay: median {statistics.median(durations):.1f}, max {max(durations):.1f}")
    lines += check_costs(outcome.steps)
    for r in outcome.runs:
        if r.verdict != "complete":
            where = f"{r.patient}, {r.geometry}{', scrolled' if r.scrolled else ''}"
            lines.append(f"  {r.verdict}: {where}: {r.detail}")
    lines.append(f"(whole benchmark: {time.monotonic() - started:.0f} s; shared machine, noisy figures)")
    return "\n".join(lines)
