"""`rpa-mcp agent-check`: a conformance run of any desktop agent against the replay wire contract.

    rpa-mcp agent-check [--url http://127.0.0.1:8799] [--token-file F] [--machine-id M]
        [--agent-cmd "my-agent --url {url} --token-file {token_file} --machine-id {machine_id}"]
        [--long-action-s 25] [--timeout 180] [--json report.json] [--verbose]

The check IS the server the agent talks to: it serves the agent REST wire on `--url` (loopback
by default) and delivers a scripted replay of harmless `wait` actions to the first machine that
polls (or `--machine-id`). The agent under test is pointed at that URL with that token — started
by the check with `--agent-cmd` (placeholders {url}, {token}, {token_file}, {machine_id}; the token
is also in $RPA_AGENT_TOKEN), or by hand. Exit status: 0 every clause passed, 1 a clause failed,
3 no agent polled within `--connect-timeout` seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shlex
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio

from rpa_mcp.agent_check.clauses import Clause, judge
from rpa_mcp.agent_check.script import conformance_script
from rpa_mcp.agent_check.server import Conformance
from rpa_mcp.agent_token import add_token_options, agent_token

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_AGENT = 3


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rpa-mcp agent-check",
        description="Drive a desktop agent through the replay wire contract and report each clause.",
    )
    p.add_argument(
        "--url", default="http://127.0.0.1:8799", help="Where the check listens; point the agent there (port 0: any)."
    )
    add_token_options(p)
    p.add_argument("--machine-id", default=None, help="The machine id the agent polls for (default: the first seen).")
    p.add_argument("--agent-cmd", default=None, help="Command starting the agent under test ({url} {token_file} ...).")
    p.add_argument("--long-action-s", type=float, default=25.0, help="Length of the long action (heartbeats).")
    p.add_argument(
        "--pause-s", type=float, default=2.0, help="How long each of the two empty polls of the pause is held."
    )
    p.add_argument("--connect-timeout", type=float, default=120.0, help="Seconds to wait for the agent's first poll.")
    p.add_argument(
        "--timeout", type=float, default=None, help="Seconds for the whole script (default 120 + long action)."
    )
    p.add_argument("--json", type=Path, default=None, help="Also write the report (every exchange) as JSON here.")
    p.add_argument("--verbose", action="store_true", help="Show the evidence of passed clauses too.")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    parts = urlsplit(args.url)
    if parts.scheme != "http" or not parts.hostname or parts.path not in ("", "/"):
        print("agent-check: --url must be http://HOST:PORT (the check serves plain HTTP)", file=sys.stderr)
        return EXIT_USAGE
    token = agent_token(args, warn=lambda text: print(f"agent-check: warning: {text}", file=sys.stderr))
    token = token or secrets.token_urlsafe(24)
    timeout = args.timeout if args.timeout is not None else 120.0 + args.long_action_s
    run = Conformance(
        conformance_script(long_action_s=args.long_action_s, pause_hold_s=args.pause_s),
        token=token,
        machine_id=args.machine_id,
    )
    try:
        sock = socket.create_server((parts.hostname, 80 if parts.port is None else parts.port))
    except OSError as exc:
        print(f"agent-check: cannot listen on {args.url}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    with sock, tempfile.TemporaryDirectory(prefix="agent-check-") as tmp:
        url = f"http://{parts.hostname}:{sock.getsockname()[1]}"
        token_file = Path(tmp) / "token"
        token_file.write_text(token + "\n", encoding="utf-8")
        token_file.chmod(0o600)
        connected = anyio.run(_serve, run, sock, args, url, token_file, timeout)
    clauses = judge(run)
    print(render(run, clauses, verbose=args.verbose))
    if args.json is not None:
        args.json.write_text(json.dumps(as_json(run, clauses), indent=2), encoding="utf-8")
    if not connected:
        return EXIT_NO_AGENT
    return 0 if all(c.passed for c in clauses) else EXIT_FAILED


async def _serve(run: Conformance, sock: socket.socket, args: Any, url: str, token_file: Path, timeout: float) -> bool:
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(run.app(), log_level="warning", lifespan="off"))
    agent: subprocess.Popen[bytes] | None = None
    log_path = Path(token_file.parent) / "agent.log"
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        if args.agent_cmd:
            command = args.agent_cmd.format(
                url=url, token=run.token, token_file=token_file, machine_id=args.machine_id or "agent-check"
            )
            print(f"agent-check: starting the agent: {command}", file=sys.stderr)
            log = log_path.open("wb")
            agent = subprocess.Popen(
                shlex.split(command),
                env={**os.environ, "RPA_AGENT_TOKEN": run.token},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        else:
            print(
                f"agent-check: point the agent under test at {url} with the bearer token in "
                f"{token_file if args.token is None and args.token_file is None else 'your --token/--token-file'}"
                " (waiting for its first poll)",
                file=sys.stderr,
            )
        connected = await _wait(run.connected, args.connect_timeout, agent)
        if connected:
            await _wait(run.finished, timeout, agent)
        if agent is not None:
            agent.terminate()
            try:
                agent.wait(10)
            except subprocess.TimeoutExpired:
                agent.kill()
            if not connected or not all(c.passed for c in judge(run)):
                tail = log_path.read_bytes()[-3000:].decode("utf-8", "replace")
                print(f"agent-check: the agent's output (last lines):\n{tail}", file=sys.stderr)
        server.should_exit = True
        tg.cancel_scope.deadline = anyio.current_time() + 5.0
    return connected


async def _wait(event: anyio.Event, seconds: float, agent: subprocess.Popen[bytes] | None) -> bool:
    """Until `event` is set (True), the time is up or the agent process ended (False)."""
    with anyio.move_on_after(seconds):
        while not event.is_set():
            if agent is not None and agent.poll() is not None:
                print(f"agent-check: the agent exited with status {agent.returncode}", file=sys.stderr)
                return event.is_set()
            with anyio.move_on_after(0.2):
                await event.wait()
    return event.is_set()


def render(run: Conformance, clauses: list[Clause], *, verbose: bool = False) -> str:
    """The report people read: one line per clause, the evidence of each failed one."""
    polls = sum(1 for e in run.exchanges if e.kind == "poll")
    lines = [
        f"agent-check: machine {run.machine_id or '(none polled)'}, replay {run.replay_id}, "
        f"{len(run.dispatched)}/{sum(1 for d in run.script if d.action)} actions delivered, "
        f"{polls} polls, {len(run.exchanges) - polls} messages"
    ]
    width = max(len(c.name) for c in clauses)
    for c in clauses:
        lines.append(f"{'PASSED' if c.passed else 'FAILED'}  {c.name:<{width}}  {c.title}")
        if verbose or not c.passed:
            lines += [f"        {line}" for line in c.evidence]
    failed = sum(1 for c in clauses if not c.passed)
    lines.append(f"{len(clauses)} clauses: {len(clauses) - failed} passed, {failed} failed")
    return "\n".join(lines)


def as_json(run: Conformance, clauses: list[Clause]) -> dict[str, Any]:
    def exchange(e: Any) -> dict[str, Any]:
        body = {k: ("<image>" if k.startswith("screenshot_") else v) for k, v in e.body.items()}
        return {"seq": e.seq, "kind": e.kind, "path": e.path, "body": body, "status": e.status, "answer": e.answer}

    return {
        "machine_id": run.machine_id,
        "replay_id": run.replay_id,
        "passed": all(c.passed for c in clauses),
        "clauses": [{"name": c.name, "title": c.title, "passed": c.passed, "evidence": c.evidence} for c in clauses],
        "exchanges": [exchange(e) for e in run.exchanges],
    }


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
