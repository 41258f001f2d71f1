"""`rpa-mcp demo --desktop`: the story on a real (virtual) X11 desktop.

Xvfb + openbox + Chromium show the demo hospital application; `rpa-agent record` streams what a
scripted nurse really does (XTEST input from outside the agent); the LLM side is the MCP SDK's
own client over Streamable HTTP:

observe the nurse → show the steps → correct one → build → persist → promote → start a replay
(a second person approves it in the console) → `rpa-agent` replays it with real input while the
validator judges real screenshots → the application's own log shows each effect once → another
replay meets the PACS viewer in front: the agent finds no search field there and the replay
pauses for a person → the nurse brings the record back and answers retry → it completes.

The console shows the story as it goes; `--out` receives `report.txt` (what was learnt, each replay
step by step with its verdict, the pause and the answer: rpa_mcp.demo_report) and `replay.gif`, the
replays filmed with a caption per step and a ring where the agent clicked (rpa_mcp.desktop_rig.film).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio

from rpa_mcp.demo_report import DesktopReport, ReplayRecord, replay_marks
from rpa_mcp.demo_story import Mcp, Story, StoryFailed

COMPETENCE = "Observation infirmière"
SESSION = "demo-desktop-session"
SCREEN_FRESH_S = 5.0


@contextlib.asynccontextmanager
async def _mcp(url: str, token: str) -> AsyncIterator[Mcp]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        yield Mcp(client)


async def _call(mcp: Mcp, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await mcp.call(name, args)
    if "error" in result:
        raise StoryFailed(f"{name} failed: {result['error'].get('code')}: {result['error'].get('message')}")
    return result


async def _propose_apply(story: Story, rig: Any, mcp: Mcp, name: str, args: dict[str, Any]) -> dict[str, Any]:
    from rpa_mcp.desktop_rig.rig import approve_in_console

    proposal = await _call(mcp, f"propose_{name}", args)
    story.say(f"preview: {proposal.get('summary')}")
    if proposal.get("approval_mode") == "human":
        early = await mcp.call(f"apply_{name}", {"token": proposal["token"]})
        story.expect((early.get("error") or {}).get("code") == "approval-pending", "apply waits for a person")
        credential = rig.console_credential("dr-martin", "approver")
        await anyio.to_thread.run_sync(approve_in_console, rig.url, credential, str(proposal["approval_url"]))
        jti = str(proposal["approval_url"]).rstrip("/").rsplit("/", 1)[-1]
        story.say(f"dr-martin (approver) signed in to the console and approved it at {rig.url}/console/approvals/{jti}")
    return await _call(mcp, f"apply_{name}", {"token": proposal["token"]})


async def _wait_replay(mcp: Mcp, replay_id: str, timeout: float = 300.0) -> dict[str, Any]:
    with anyio.fail_after(timeout):
        while True:
            status = await _call(mcp, "get_replay_status", {"replay_id": replay_id})
            if status.get("state") in ("paused", "completed", "failed", "cancelled"):
                return status
            await anyio.sleep(0.3)


async def run_desktop_story(story: Story, report: DesktopReport, *, workdir: Path, out_dir: Path) -> Path | None:
    """The whole story; returns the GIF's path (None when the story stopped before the replay)."""
    from rpa_mcp.desktop_rig.movie import ScreenMovie
    from rpa_mcp.desktop_rig.rig import Rig

    # the check before a replay's first input trusts the workstation's last reported screen for
    # SCREEN_FRESH_S: once the nurse has fixed the screen, asking again a little later is checked afresh
    overrides = {"replay_screen_fresh_s": SCREEN_FRESH_S}
    approval = "write=token,act=human,dangerous=human"
    with Rig(workdir, approval=approval, log_to_console=False, **overrides) as rig:
        story.step(f"A real X11 desktop is up (Xvfb {rig.desk.display}, openbox, Chromium); server at {rig.url}/mcp.")
        browser = await anyio.to_thread.run_sync(lambda: rig.browser("/", wait_title="Recherche patient"))
        failed: StoryFailed | None = None
        gif: Path | None = None
        async with _mcp(rig.url, rig.token("nurse-alice", "operator")) as mcp:
            try:  # caught here: the MCP client's task group would wrap it in an exception group
                await _observe(story, rig, mcp)
                await _teach(story, mcp, report)
                await anyio.to_thread.run_sync(rig.close_browser, browser)
                browser = await anyio.to_thread.run_sync(lambda: rig.browser("/", wait_title="Recherche patient"))
                agent = rig.start_agent(poll_wait_s=5.0)
                movie = ScreenMovie(rig.desk.display).start()
                try:
                    await _replay(story, rig, mcp, agent, movie, report)
                    await _pause_and_answer(story, rig, mcp, browser, agent, movie, report)
                finally:
                    movie.stop()
                    gif = movie.save(out_dir / "replay.gif")
            except StoryFailed as exc:
                failed = exc
        if failed is not None:
            raise failed
        if gif is None:
            report.film_note = "nothing was drawn on the screen while the replays ran"
        else:
            story.say(f"the replays as an animated picture: {gif} ({gif.stat().st_size // 1024} KiB)")
        return gif


async def _observe(story: Story, rig: Any, mcp: Mcp) -> None:
    from rpa_mcp.desktop_rig.harness import wait_until
    from rpa_mcp.desktop_rig.person import Person
    from rpa_mcp.desktop_rig.scenario import Observation, demonstrate, recorder_pace

    story.step("rpa-agent record connects and streams the window in front.")
    recorder = rig.recorder(SESSION)
    await anyio.to_thread.run_sync(recorder.wait_line, "recording session")
    traces = rig.services.shadow.traces
    await anyio.to_thread.run_sync(lambda: wait_until(lambda: traces.get_session(SESSION), timeout=60, what="session"))
    machines = await _call(mcp, "list_machines")
    story.expect([m["machine_id"] for m in machines["machines"]] == [rig.machine_id], f"{rig.machine_id} connected")

    story.step("Nurse: « Regarde ce que je fais. »  → shadow_start")
    started = await _call(mcp, "shadow_start", {"session_id": SESSION})
    story.expect(started.get("status") == "shadow_started", "observation started")
    story.step("The nurse searches DURAND Alice, opens the record, Observations tab, writes a note, saves.")
    person = Person(rig.desk, pace=recorder_pace(recorder))
    try:
        await anyio.to_thread.run_sync(demonstrate, person, rig.effects, Observation())
    finally:
        person.close()
    await anyio.to_thread.run_sync(recorder.stop)
    story.say(recorder.lines[-1].split("] ", 1)[-1] if recorder.lines else "recorder stopped")


async def _teach(story: Story, mcp: Mcp, report: DesktopReport) -> None:
    story.step("Nurse: « C'est fini. »  → shadow_stop: the steps as the server understood them.")
    stopped = await _call(mcp, "shadow_stop", {"session_id": SESSION})
    steps = stopped.get("understanding", [])
    report.understood, report.competence = steps, COMPETENCE
    for s in steps:
        story.say(f"  step {s['index']}: {s['intent']}  [{s['action_type']}, confidence {s['confidence']:.2f}]")
    story.expect(len(steps) == 5, f"{len(steps)} steps understood (search, open, tab, type, save)")
    typed = [s for s in steps if s["action_type"] == "type_text"]
    if typed:
        index = typed[-1]["index"]
        story.step(f"Nurse corrects step {index}: « c'est la saisie de l'observation ».")
        fb = await _call(
            mcp,
            "shadow_feedback",
            {"session_id": SESSION, "action": "correct", "step_index": index, "new_intent": "Saisir l'observation"},
        )
        story.expect(fb.get("status") == "feedback_applied", "correction applied")
    await _call(mcp, "shadow_feedback", {"session_id": SESSION, "action": "validate"})
    story.step("Build, persist as a candidate competence, promote it to validated.")
    built = await _call(mcp, "shadow_build", {"session_id": SESSION, "name": COMPETENCE})
    story.expect(
        built.get("status") == "workflow_built", f"workflow built ({len(built['workflow_ir']['steps'])} steps)"
    )
    proposal = await _call(mcp, "propose_persist_competence", {"session_id": SESSION, "name": COMPETENCE})
    saved = await _call(mcp, "apply_persist_competence", {"token": proposal["token"]})
    story.expect(bool(saved.get("path")), f"saved as {saved.get('path')} (version {saved.get('version')})")
    promo = await _call(mcp, "propose_promote_competence", {"name": COMPETENCE})
    promoted = await _call(mcp, "apply_promote_competence", {"token": promo["token"]})
    story.expect(bool(promoted.get("path")), f"promoted to {promoted.get('path')}")


async def _replay(story: Story, rig: Any, mcp: Mcp, agent: Any, movie: Any, report: DesktopReport) -> None:
    story.step("Nurse: « Rejoue l'observation. »  → start_replay (a second person approves in the console).")
    mark = rig.effects.mark
    movie.mark("Replay 1: the nurse asks for her task again; a second person approves it in the console")
    started = await _propose_apply(
        story, rig, mcp, "start_replay", {"competence": COMPETENCE, "machine_id": rig.machine_id}
    )
    status = await _wait_replay(mcp, started["replay_id"])
    record = ReplayRecord("Replay 1: the task, approved in the console", status)
    report.replays.append(record)
    movie.marks.extend(replay_marks("Replay 1", record, _scaled(list(agent.agent.timings), movie.scale)))
    for a in status.get("actions", []):
        story.say(f"  step {a['index']}: {a['intent']} → {a.get('verdict')}")
    story.expect(status.get("state") == "completed", f"replay {status.get('state')}", str(status.get("pause_detail")))
    story.expect(all(a.get("verdict") == "SUCCESS" for a in status.get("actions", [])), "every verdict SUCCESS")
    effects = rig.effects.since(mark)
    counts = {k: sum(e.kind == k for e in effects) for k in ("search", "open_record", "tab", "save")}
    report.effects = counts
    story.say(f"the application's own log: {json.dumps(counts)}")
    story.expect(set(counts.values()) == {1}, "each effect exactly once on the application side")
    ids = {a["action_id"] for a in status.get("actions", [])}
    timings = [t for t in list(agent.agent.timings) if t.get("injected") and t["action_id"] in ids]
    if len(timings) >= 2:
        gaps = [b["injected"] - a["settled"] for a, b in itertools.pairwise(timings)]
        story.say(f"click-to-click (the screen's settling removed): median {sorted(gaps)[len(gaps) // 2]:.2f} s")


async def _pause_and_answer(
    story: Story, rig: Any, mcp: Mcp, browser: Any, agent: Any, movie: Any, report: DesktopReport
) -> None:
    story.step("Later the PACS viewer is in front when the nurse asks again.")
    movie.mark("Replay 2: later, the PACS viewer is in front when the nurse asks again")
    pacs = await anyio.to_thread.run_sync(lambda: rig.browser("/pacs", wait_title="PACS"))
    args = {"competence": COMPETENCE, "machine_id": rig.machine_id}
    refused = await mcp.call("propose_start_replay", args)
    if (refused.get("error") or {}).get("code") == "workstation-not-ready":
        await _refused_then_started(story, rig, mcp, (browser, agent, movie), report, refused["error"])
        pacs.process.terminate()
        return
    started = await _propose_apply(story, rig, mcp, "start_replay", args)
    status = await _wait_replay(mcp, started["replay_id"])
    record = ReplayRecord("Replay 2: the PACS viewer in front", status, paused=status)
    report.replays.append(record)
    story.say(f"replay {status.get('state')} — {status.get('pause_reason')}: {status.get('pause_detail')}")
    story.expect(
        status.get("state") == "paused", "the agent found no search field on the PACS: paused, nothing clicked"
    )
    story.step("The nurse brings Easily back in front, returns to the search page and answers: retry.")
    movie.mark(f"Paused ({status.get('pause_reason')}): the nurse brings the record back and answers retry")
    record.answer = "brought the record back in front, returned to the search page, answered retry"
    rig.desk.windows().activate(browser.wid)
    await anyio.to_thread.run_sync(lambda: rig.desk.wait_foreground(lambda w: w.wid == browser.wid))
    await anyio.to_thread.run_sync(_back_to_search, rig)
    await _propose_apply(story, rig, mcp, "answer_pause", {"replay_id": started["replay_id"], "decision": "retry"})
    status = await _wait_replay(mcp, started["replay_id"])
    record.status = status
    movie.marks.extend(replay_marks("Replay 2", record, _scaled(list(agent.agent.timings), movie.scale)))
    story.expect(status.get("state") == "completed", f"replay {status.get('state')} after the answer")
    pacs.process.terminate()


async def _refused_then_started(
    story: Story, rig: Any, mcp: Mcp, parts: tuple[Any, Any, Any], report: DesktopReport, error: dict[str, Any]
) -> None:
    """The server's check before the first input refuses the start: nothing is clicked; the nurse fixes the screen."""
    browser, agent, movie = parts
    story.expect(True, f"refused before the first input (workstation-not-ready): {error.get('message')}")
    record = ReplayRecord("Replay 2: the PACS viewer in front", {}, paused={"state": "refused", **error})
    report.replays.append(record)
    movie.mark("Replay 2 refused before the first input: the record is not in front; nothing was clicked")
    story.step("The nurse brings Easily back in front, returns to the search page and asks again.")
    rig.desk.windows().activate(browser.wid)
    await anyio.to_thread.run_sync(lambda: rig.desk.wait_foreground(lambda w: w.wid == browser.wid))
    await anyio.to_thread.run_sync(_back_to_search, rig)
    record.answer = "brought the record back in front, returned to the search page, asked again"
    movie.mark("The nurse brings the record back in front and asks again")
    await anyio.sleep(SCREEN_FRESH_S + 1)  # the last reported screen (the refusal's evidence) is now stale
    started = await _propose_apply(
        story, rig, mcp, "start_replay", {"competence": COMPETENCE, "machine_id": rig.machine_id}
    )
    record.status = await _wait_replay(mcp, started["replay_id"])
    movie.marks.extend(replay_marks("Replay 2", record, _scaled(list(agent.agent.timings), movie.scale)))
    story.expect(
        record.status.get("state") == "completed", f"replay {record.status.get('state')} once the record is in front"
    )


def _scaled(timings: list[dict[str, Any]], scale: float) -> list[dict[str, Any]]:
    """The agent's timings with its click positions in the film's pixels."""
    out = []
    for t in timings:
        p = t.get("position")
        out.append(t | {"position": [round(p[0] * scale), round(p[1] * scale)]} if p else t)
    return out


def _back_to_search(rig: Any) -> None:
    from rpa_mcp.desktop_rig.person import Person

    person = Person(rig.desk)
    try:
        person.click("Retour à la recherche", "link")
        rig.desk.wait_foreground(lambda w: "Recherche patient" in w.title)
        person.find("Rechercher un patient", "entry")
        rig.desk.wait_still()
    finally:
        person.close()


def run_desktop_demo(out_dir: Path, *, quiet: bool = False) -> int:
    """The desktop story on the console, its report (`report.txt`) and film written to `out_dir`; exit status."""
    import sys

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "replay.gif").unlink(missing_ok=True)  # never a film of an earlier run
    story = Story(out=sys.stdout, quiet=quiet)
    report = DesktopReport()
    started = time.monotonic()
    try:
        gif = anyio.run(main_desktop, story, report, out_dir)
    except BaseException as exc:  # the report never says "everything happened" about a run that crashed
        story.failures.append(f"the demo stopped on an unexpected error: {_describe(exc)}")
        raise
    finally:
        report.passed, report.failures = story.passed, list(story.failures)
        report.seconds = time.monotonic() - started
        (out_dir / "report.txt").write_text(report.render(), encoding="utf-8")
    print(f"\n{story.passed} expected outcome(s) seen, {len(story.failures)} missing")
    for failure in story.failures:
        print(f"  missing: {failure}")
    print(f"report: {out_dir / 'report.txt'}  animation: {gif or 'none'}")
    return 0 if not story.failures else 1


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


async def main_desktop(story: Story, report: DesktopReport, out_dir: Path) -> Path | None:
    import tempfile

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rpa-demo-desktop-") as tmp:
        try:
            gif = await run_desktop_story(story, report, workdir=Path(tmp), out_dir=out_dir)
        except StoryFailed as exc:
            story.failures.append(str(exc))
            story.say(f"✘ the story stops here: {exc}")
            kept = out_dir / "replay.gif"  # filmed up to where it stopped, when the replays had begun
            gif = kept if kept.is_file() else None
            report.film_note = f"the story stopped before the end ({exc})"
    report.film = gif
    story.say(f"({time.monotonic() - started:.0f} s)")
    return gif
