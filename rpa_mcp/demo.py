"""`rpa-mcp demo`: the whole story over real HTTP, on a throw-away data dir.

A server (create_app + uvicorn on 127.0.0.1, free port), the reference desktop agent on the
`incident` virtual desktop (rpa_mcp.agent_sim), and a scripted MCP client (the SDK's `Client`
over Streamable HTTP with an operator token) play a nurse teaching the platform a task, then a
supervised replay:

observe a demonstration → show the steps → correct one, drop one → build → propose + apply
persist → promote → start a replay (a second identity approves) → the validator catches a click
that landed in the wrong application → the person brings the right window forward and answers
the pause → a known dialog is resolved by the catalog policy → a UAC prompt pauses the replay.

Exit status 0 only when every expected outcome happened.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import logging
import secrets
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import httpx2

from rpa_mcp.demo_story import Mcp, Story, StoryFailed
from rpa_mcp.testing import loopback_socket

COMPETENCE = "Observation infirmière"
MACHINE = "poste-soins-12"
SESSION = "demo-session-1"
EXIT_CANNOT_FILM = 2  # `--desktop` on a machine without Xvfb, Chromium or the agent's X11 backend
NOTE = "Patient calme, douleur 2/10, pansement propre."


def _free_socket() -> socket.socket:
    sock = loopback_socket()
    return sock


@contextlib.asynccontextmanager
async def _server(app: Any, sock: socket.socket) -> AsyncIterator[None]:
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        with anyio.fail_after(30):
            while not server.started:
                await anyio.sleep(0.02)
        try:
            yield
        finally:
            server.should_exit = True


def _err(result: dict[str, Any]) -> str | None:
    error = result.get("error")
    return str(error.get("code")) if isinstance(error, dict) else None


async def _wait_for(
    mcp: Mcp, story: Story, replay_id: str, done: Callable[[dict[str, Any]], bool], *, timeout_s: float, label: str
) -> dict[str, Any]:
    """Poll get_replay_status (what an LLM client would do) until `done`, with a progress bar."""
    deadline = time.monotonic() + timeout_s
    status: dict[str, Any] = {}
    shown: tuple[int, int] | None = None
    while time.monotonic() < deadline:
        status = await _status(mcp, story, replay_id)
        seen = (min(status.get("steps_done", 0), status.get("steps_total", 0)), status.get("steps_total", 0))
        if seen != shown:
            story.progress(label, *seen)
            shown = seen
        if done(status):
            break
        await anyio.sleep(0.1)
    if not story.quiet and shown and shown[0] < shown[1] and getattr(story.out, "isatty", lambda: False)():
        story.out.write("\n")
    return status


async def _status(mcp: Mcp, story: Story, replay_id: str) -> dict[str, Any]:
    """get_replay_status over MCP; a failure of the tool itself ends the story."""
    status = await mcp.call("get_replay_status", {"replay_id": replay_id})
    if _err(status):
        raise StoryFailed(f"get_replay_status failed: {status['error'].get('code')}: {status['error'].get('message')}")
    return status


def _paused(status: dict[str, Any]) -> bool:
    return status.get("state") in ("paused", "completed", "failed", "cancelled")


async def run_story(story: Story, *, fast: bool, data_dir: Path) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from rpa_mcp.agent_sim import DemoRecorder, Journal, ReferenceAgent, VirtualDesktop
    from rpa_mcp.bootstrap import build_services
    from rpa_mcp.entrypoints.app import create_app
    from rpa_mcp.ops import build_registry
    from rpa_mcp.settings import Settings

    sock = _free_socket()
    port = sock.getsockname()[1]
    api_token = secrets.token_urlsafe(24)
    settings = Settings(
        data_dir=data_dir,
        port=port,
        jwt_secret=secrets.token_urlsafe(48),
        api_token=api_token,
        mcp_run_tools=10,  # the story shows a validated competence becoming a tool (opt-in)
    )
    registry = build_registry()
    services = build_services(settings)
    app = create_app(settings, services=services, registry=registry)
    base = f"http://127.0.0.1:{port}"
    operator = services.access_tokens.mint("nurse-alice", ["operator"], ttl_s=3600)
    approver = services.console_credentials.mint("dr-martin", ["approver"], ttl_s=3600)  # signs in to the console

    story.step(f"Server up at {base}/mcp (data dir {data_dir}); {len(registry.operations)} operations registered.")
    async with _server(app, sock), contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {operator}"}, timeout=60)
        )
        client = await stack.enter_async_context(Client(streamable_http_client(f"{base}/mcp", http_client=http)))
        mcp = Mcp(client)
        tools = await mcp.tools()
        story.say(f"MCP client connected (protocol {client.protocol_version}), {len(tools)} tools listed.")

        agent_http = await stack.enter_async_context(httpx2.AsyncClient(base_url=base, timeout=60))
        desktop = VirtualDesktop.load("incident")
        journal = Journal(data_dir / "agent-journal.sqlite")
        stack.callback(journal.close)
        agent = ReferenceAgent(
            agent_http,
            desktop,
            machine_id=MACHINE,
            journal=journal,
            token=api_token,
            poll_wait_s=1.0 if fast else 5.0,
            heartbeat_interval_s=1.0,
        )
        state: dict[str, Any] = {
            "mcp": mcp,
            "agent": agent,
            "desktop": desktop,
            "services": services,
            "approver": approver,
            "base": base,
            "fast": fast,
            "tools": tools,
        }
        try:  # caught here: the MCP client's task group would wrap it in an exception group
            sid = await _observe(story, state, DemoRecorder)
            name = await _teach(story, state, sid)
            await _replay(story, state, name)
        except StoryFailed as exc:
            story.failures.append(str(exc))
            story.say(f"✘ the story stops here: {exc}")


async def _observe(story: Story, st: dict[str, Any], recorder_cls: Any) -> str:
    mcp, agent, desktop = st["mcp"], st["agent"], st["desktop"]
    recorder = recorder_cls(desktop, session_id=SESSION, machine_id=MACHINE)
    story.step("The desktop agent connects and streams its first event (the window in front).")
    await agent.stream_demonstration(recorder.events[:1])
    machines = await mcp.call("list_machines")
    story.expect(
        [m["machine_id"] for m in machines.get("machines", [])] == [MACHINE], f"one machine connected: {MACHINE}"
    )

    story.step("Nurse: « Regarde ce que je fais. »  → shadow_start (the only machine's session is found).")
    started = await mcp.call("shadow_start")
    story.expect(started.get("status") == "shadow_started", "observation started", json.dumps(started)[:200])
    sid = str(started.get("session_id", SESSION))

    story.step("The nurse works: Imagerie tab, back to the record, writes an observation, saves, confirms, returns.")
    before = len(recorder.events)
    recorder.click_label("Imagerie")
    recorder.click_label("Dossier patient")
    recorder.click_label("Observations")
    recorder.click_label("Texte de l'observation")
    recorder.type(NOTE)
    recorder.key("ctrl+s")
    recorder.click_label("Confirmer")
    recorder.click_label("Dossier patient")
    events = recorder.events[before:]
    for i, event in enumerate(events, 1):
        statuses = await agent.stream_demonstration([event])
        if statuses[0] >= 400:
            raise StoryFailed(f"the server refused event {i}: HTTP {statuses[0]}")
        story.progress("streaming events", i, len(events))

    story.step("Nurse: « C'est fini. »  → shadow_stop: the steps as the server understood them.")
    stopped = await mcp.call("shadow_stop", {"session_id": sid})
    steps = stopped.get("understanding", [])
    for s in steps:
        story.say(f"  step {s['index']}: {s['intent']}  [{s['action_type']}, confidence {s['confidence']:.2f}]")
    story.expect(len(steps) >= 5, f"{len(steps)} steps understood", json.dumps(stopped)[:300])
    st["steps"] = steps
    return sid


async def _teach(story: Story, st: dict[str, Any], sid: str) -> str:
    mcp, steps = st["mcp"], st["steps"]
    typed = next((s for s in steps if s["action_type"] == "type_text"), None)
    confirm = next((s for s in steps if "Confirmer" in s["intent"]), None)
    if typed is not None:
        story.step(f"Nurse corrects step {typed['index']}: « c'est la saisie de l'observation ».")
        fb = await mcp.call(
            "shadow_feedback",
            {
                "session_id": sid,
                "action": "correct",
                "step_index": typed["index"],
                "new_intent": "Saisir l'observation infirmière",
            },
        )
        story.expect(fb.get("status") == "feedback_applied", "correction applied", json.dumps(fb)[:200])
    if confirm is not None:
        story.step(f"Nurse drops step {confirm['index']} (« Confirmer »): the known save dialog is the server's job.")
        fb = await mcp.call("shadow_feedback", {"session_id": sid, "action": "undo", "step_index": confirm["index"]})
        story.expect(fb.get("status") == "feedback_applied", "step dropped", json.dumps(fb)[:200])
    fb = await mcp.call("shadow_feedback", {"session_id": sid, "action": "validate"})
    story.expect(fb.get("status") == "feedback_applied", "every step validated by the nurse")
    for s in fb.get("steps", []):
        story.say(f"  step {s['index']}: {s['intent']}  ({s['status']})")

    story.step("Build the workflow, then propose to save it as a candidate competence.")
    built = await mcp.call("shadow_build", {"session_id": sid, "name": COMPETENCE})
    story.expect(
        built.get("status") == "workflow_built",
        "workflow built",
        f"{len(built.get('workflow_ir', {}).get('steps', []))} steps",
    )
    proposal = await mcp.call("propose_persist_competence", {"session_id": sid, "name": COMPETENCE})
    if not story.expect(bool(proposal.get("token")), "proposal with a single-use token", json.dumps(proposal)[:300]):
        raise StoryFailed("no persist proposal")
    story.say(f"preview shown to the nurse: {proposal['summary']}")
    story.say("Nurse: « Oui, enregistre. »  → apply_persist_competence")
    saved = await mcp.call("apply_persist_competence", {"token": proposal["token"]})
    story.expect(
        bool(saved.get("path")),
        f"saved as {saved.get('path')} (version {saved.get('version')})",
        json.dumps(saved)[:300],
    )
    again = await mcp.call("apply_persist_competence", {"token": proposal["token"]})
    story.expect(_err(again) == "confirmation-already-used", "the same token cannot be used twice")

    story.step("Promote the candidate to validated (propose → the nurse agrees → apply).")
    promo = await mcp.call("propose_promote_competence", {"name": COMPETENCE})
    story.say(f"preview: {promo.get('summary')}")
    promoted = await mcp.call("apply_promote_competence", {"token": promo.get("token", "")})
    story.expect(bool(promoted.get("path")), f"promoted to {promoted.get('path')}", json.dumps(promoted)[:300])
    tools = await mcp.tools()
    run_tools = sorted(t for t in tools if t.startswith("run_"))
    story.expect(bool(run_tools), f"the tool list now offers {', '.join(run_tools) or 'no run_ tool'}")
    return str(saved.get("name", COMPETENCE))


async def _approve(story: Story, st: dict[str, Any], approval_url: str) -> None:
    """A second person (role approver) signs in to the console with a console credential and approves, over HTTP."""
    from rpa_mcp.desktop_rig.rig import approve_in_console

    jti = approval_url.rstrip("/").rsplit("/", 1)[-1]
    try:
        await anyio.to_thread.run_sync(approve_in_console, st["base"], st["approver"], approval_url)
    except RuntimeError as exc:
        story.expect(False, "approved in the console", str(exc))
        raise StoryFailed("the approval in the console failed") from exc
    view = st["services"].confirmations.get_approval(jti)
    story.say(f"dr-martin (approver) signed in to the console, approved {jti} there → {view.status}")


async def _replay(story: Story, st: dict[str, Any], name: str) -> None:
    mcp, agent, desktop = st["mcp"], st["agent"], st["desktop"]
    story.step("Later, the PACS viewer is in front of the record. Nurse: « Rejoue l'observation. »")
    desktop.goto("pacs")
    await agent.poll_once()  # the agent asks for replay actions: the workstation is connected (checked first)
    proposal = await mcp.call("propose_start_replay", {"competence": name, "machine_id": MACHINE})
    if not story.expect(bool(proposal.get("token")), "replay proposed", json.dumps(proposal)[:300]):
        raise StoryFailed("no replay proposal")
    story.say(f"preview: {proposal['summary']}")
    early = await mcp.call("apply_start_replay", {"token": proposal["token"]})
    if proposal.get("approval_mode") == "human":
        story.expect(_err(early) == "approval-pending", "apply refused until a person approves (approval-pending)")
        await _approve(story, st, str(proposal.get("approval_url")))
        started = await mcp.call("apply_start_replay", {"token": proposal["token"]})
    else:
        started = early
    replay_id = started.get("replay_id")
    if not story.expect(
        bool(replay_id), f"replay {replay_id} started ({started.get('steps')} actions)", json.dumps(started)[:300]
    ):
        raise StoryFailed("the replay did not start")

    stop = anyio.Event()
    timeout = 60.0
    failed: StoryFailed | None = None
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: agent.run(stop=stop))
        try:
            await _supervise(story, st, str(replay_id), timeout)
        except StoryFailed as exc:  # raised outside the task group, not as an exception group
            failed = exc
        finally:
            stop.set()
            tg.cancel_scope.cancel()
    if failed is not None:
        raise failed


async def _supervise(story: Story, st: dict[str, Any], replay_id: str, timeout: float) -> None:
    mcp, desktop = st["mcp"], st["desktop"]
    story.step("The agent polls, executes, reports; the validator checks every action.")
    status = await _wait_for(mcp, story, replay_id, _paused, timeout_s=timeout, label="replay")
    detail = status.get("pause_detail") or {}
    story.say(f"replay {status.get('state')} — reason {status.get('pause_reason')}: {detail.get('missing')}")
    story.expect(
        status.get("pause_reason") == "WORKSTATION_NOT_READY" and detail.get("executed") == 0,
        "the workstation was observed before the first input: the record is not in front, so the replay paused "
        "with nothing executed (WORKSTATION_NOT_READY)",
        json.dumps({k: status.get(k) for k in ("state", "pause_reason", "pause_detail")}, ensure_ascii=False)[:400],
    )
    if status.get("state") != "paused":
        raise StoryFailed("the replay is not paused before its first input")

    story.step("The nurse brings the record back in front and answers: retry (the screen is observed again).")
    position = desktop.find_label("Dossier patient")
    if position is not None:
        desktop.click(*position, source="human")
    story.say(f"window in front: {desktop.window_title}")
    answer = await mcp.call("propose_answer_pause", {"replay_id": replay_id, "decision": "retry"})
    if _err(answer):
        story.expect(False, "answer proposed", json.dumps(answer)[:300])
        raise StoryFailed("cannot answer the pause")
    story.say(f"preview: {answer.get('summary')}")
    if answer.get("approval_mode") == "human":
        await _approve(story, st, str(answer.get("approval_url")))
    resumed = await mcp.call("apply_answer_pause", {"token": answer["token"]})
    story.expect(not _err(resumed), "pause answered: retry (observed again, then the first step)", str(resumed)[:300])

    story.step("The replay goes on: the save raises the known « Confirmer l'enregistrement » dialog.")

    held = (status.get("current_action") or {}).get("action_id")

    def dialog_or_pause(s: dict[str, Any]) -> bool:  # a new pause (another action), or the end
        current = (s.get("current_action") or {}).get("action_id")
        return s.get("state") in ("completed", "failed", "cancelled") or (
            s.get("state") == "paused" and current != held
        )

    status = await _wait_for(mcp, story, replay_id, dialog_or_pause, timeout_s=timeout, label="replay")
    dialog_actions = [a for a in status.get("actions", []) if a.get("origin") == "dialog"]
    story.expect(
        any(a.get("state") == "ACKED" for a in dialog_actions),
        "the dialog resolver answered easily-save-confirm by its catalog policy (auto: « Confirmer »)",
        json.dumps(
            [{k: a.get(k) for k in ("intent", "state", "outcome")} for a in status.get("actions", [])],
            ensure_ascii=False,
        )[:500],
    )
    story.step("Before the last action a Windows UAC prompt appears.")
    story.say(f"replay {status.get('state')} — reason {status.get('pause_reason')}")
    story.expect(
        status.get("state") == "paused" and str(status.get("pause_reason", "")).upper() == "SYSTEM_DIALOG",
        "the replay paused on the UAC prompt (SYSTEM_DIALOG): no input injected, a person decides",
        json.dumps({k: status.get(k) for k in ("state", "pause_reason", "pause_detail")}, ensure_ascii=False)[:400],
    )
    crops = sum(len(a.get("evidence", [])) for a in status.get("actions", []))
    story.say(f"evidence available to the client: {crops} PNG crop(s) of the regions that mattered")
    cancelled = await mcp.call("cancel_replay", {"replay_id": replay_id})
    story.say(f"the nurse cancels the replay → {cancelled.get('state', cancelled.get('status', _err(cancelled)))}")
    ended = await _status(mcp, story, replay_id)
    sent = ", ".join(f"step {e['index']} « {e['intent']} »" for e in ended.get("irreversible_sent") or [])
    story.say(f"outcome: {ended.get('outcome')} — {ended.get('meaning')}")
    story.expect(
        ended.get("outcome") == "reconciliation_required" and bool(sent),
        f"the run ends reconciliation_required, naming what was saved: {sent}",
        json.dumps({k: ended.get(k) for k in ("outcome", "irreversible_sent")}, ensure_ascii=False)[:400],
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


async def _main(args: argparse.Namespace) -> int:
    story = Story(quiet=args.quiet)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rpa-demo-") as tmp:
        data_dir = Path(args.data_dir) if args.data_dir else Path(tmp) / "data"
        try:
            await run_story(story, fast=args.fast, data_dir=data_dir)
        except StoryFailed as exc:
            story.failures.append(str(exc))
            story.say(f"✘ the story stops here: {exc}")
    elapsed = time.monotonic() - started
    print(
        f"\n{story.passed} expected outcome(s) seen, {len(story.failures)} missing — {elapsed:.1f} s",
        file=story.out,
    )
    for f in story.failures:
        print(f"  missing: {f}", file=story.out)
    return 0 if not story.failures else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rpa-mcp demo", description="The end-to-end story over real HTTP.")
    parser.add_argument("--fast", action="store_true", help="short long-polls (tests)")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    parser.add_argument("--data-dir", default=None, help="keep the data here instead of a temporary folder")
    parser.add_argument(
        "--desktop", action="store_true", help="the story on a real (virtual) X11 desktop: Xvfb, openbox, Chromium"
    )
    parser.add_argument("--out", default="rpa-demo-desktop", help="folder for the desktop story's report and GIF")
    args = parser.parse_args(list(argv or []))
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("rpa_mcp.ops.dispatch").setLevel(logging.CRITICAL)  # failures are story lines here
    if args.desktop:
        missing = _desktop_missing()
        if missing:
            return _cannot_film(Path(args.out), missing)
        from rpa_mcp.demo_desktop import run_desktop_demo

        return run_desktop_demo(Path(args.out), quiet=args.quiet)
    result: int = anyio.run(_main, args)
    return result


def _cannot_film(out: Path, missing: str) -> int:
    """`--desktop` without what it needs: say so in one line, leave the reason in --out, exit non-zero."""
    message = (
        f"rpa-mcp demo --desktop: cannot run here: it needs {missing} (without --desktop: the virtual-desktop story)"
    )
    print(message, file=sys.stderr)
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.txt").write_text(message + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"rpa-mcp demo --desktop: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
    return EXIT_CANNOT_FILM


def _desktop_missing() -> str:
    """What to install for `--desktop` ("" when everything is there)."""
    try:
        import rpa_agent.x11.desktop  # noqa: F401  (the workstation agent with its x11 extra)
    except ImportError:
        return "the workstation agent with its X11 backend: pip install 'rpa-mcp-agent[x11]' (./agent in a checkout)"
    from rpa_mcp.desktop_rig.harness import missing_tools

    packages = missing_tools()
    return f"Debian packages: apt-get install -y {' '.join(packages)}" if packages else ""


Awaitables = Awaitable[Any]  # (kept for type readers of this module)

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
