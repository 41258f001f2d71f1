"""`rpa-mcp agent-sim`: run the reference agent on a virtual desktop against a real server.

    rpa-mcp agent-sim --url http://127.0.0.1:8765 --token-file F --machine-id M --desktop incident \\
        [--v1] [--faults "lose_report@2;die_mid_action@3"] [--start-screen pacs] [--play-demo observation]

`--play-demo NAME` first plays a person's demonstration on the desktop and streams it as a live
session (rpa_mcp/agent_sim/demos.py), then serves replay actions as usual.

The token comes from --token-file, else $RPA_AGENT_TOKEN, else the `api_token` setting
(RPA_API_TOKEN); `--token T` works but shows the token in the process list. An agent token is minted with
`rpa-mcp token --sub NAME --role agent` in the server's folder. The agent says on stderr what it
does (connected, waiting, received, executed, reported). A simulated crash (fault) ends the
process with status 3 unless `--restart-on-crash N` restarts the agent on the same journal.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from pathlib import Path

import anyio
import httpx2
from pydantic import ValidationError
from rpa_agent.core.journal import Journal

from rpa_mcp.agent_sim.agent import AgentCrashed, ReferenceAgent
from rpa_mcp.agent_sim.demos import DEMOS, demo_named, play_demo
from rpa_mcp.agent_sim.desktop import VirtualDesktop
from rpa_mcp.agent_sim.faults import FAULT_KINDS, FaultPlan
from rpa_mcp.agent_token import add_token_options, agent_token
from rpa_mcp.errors import RpaError
from rpa_mcp.settings import Settings

EXIT_CRASHED = 3
EXIT_REFUSED = 4
DISMISS_LABELS = ("no", "non", "cancel", "annuler")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rpa-mcp agent-sim", description="Reference desktop agent on a virtual desktop.")
    p.add_argument("--url", required=True, help="Server base URL (http://127.0.0.1:8765).")
    add_token_options(p)
    p.add_argument("--machine-id", required=True, help="Machine id this agent polls for.")
    p.add_argument(
        "--play-demo",
        default=None,
        metavar="NAME",
        help=f"Stream a person's demonstration as a live session first ({', '.join(sorted(DEMOS))}).",
    )
    p.add_argument("--desktop", default="incident", help="Desktop name (rpa_mcp/agent_sim/desktops) or a YAML path.")
    p.add_argument("--start-screen", default=None, help="Screen to start on (default: the desktop's start).")
    p.add_argument(
        "--images-dir", type=Path, default=None, help="Extra folder of desktop images (before the shipped ones)."
    )
    p.add_argument("--v1", action="store_true", help="Legacy agent: no protocol header, no receipt/start acks.")
    p.add_argument(
        "--faults", action="append", default=[], help=f"kind[@N][:key=value,...]; kinds: {', '.join(FAULT_KINDS)}"
    )
    p.add_argument("--journal", type=Path, default=None, help="Journal file (default: <data_dir>/agent_sim/...).")
    p.add_argument("--wait", type=float, default=25.0, help="Long-poll seconds.")
    p.add_argument("--heartbeat-interval", type=float, default=5.0, help="Seconds between heartbeats.")
    p.add_argument("--max-actions", type=int, default=None, help="Stop after this many actions.")
    p.add_argument("--restart-on-crash", type=int, default=0, help="Restart this many times after a simulated crash.")
    p.add_argument(
        "--dismiss-system-dialogs-after",
        type=float,
        default=None,
        help="Play the person: answer No/Cancel to a system dialog after this many seconds.",
    )
    p.add_argument("--log-level", default="INFO")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr, format="%(asctime)s %(message)s")
    logging.getLogger("httpx2").setLevel(logging.WARNING)  # one line per request would drown what the agent does
    try:
        return anyio.run(_run, args)
    except KeyboardInterrupt:
        return 0
    except RpaError as exc:
        print(f"agent-sim: {exc.code}: {exc.message}{_hint(exc)}", file=sys.stderr)
        return EXIT_REFUSED


def _hint(exc: RpaError) -> str:
    if exc.code == "unauthenticated":
        return (
            "; pass --token-file (or set RPA_AGENT_TOKEN) with an agent token "
            "(rpa-mcp token --sub NAME --role agent, run in the server's "
            "folder) or set RPA_API_TOKEN as the server has it"
        )
    if exc.code == "forbidden":
        return "; the token needs the role agent (rpa-mcp token --sub NAME --role agent)"
    return ""


async def _run(args: argparse.Namespace) -> int:
    settings = Settings()
    token = agent_token(
        args,
        fallback=lambda: settings.api_token.get_secret_value() if settings.api_token else None,
        warn=lambda text: print(f"agent-sim: warning: {text}", file=sys.stderr),
    )
    demo = demo_named(args.play_demo) if args.play_demo else None
    desktop_name = demo.desktop if demo else args.desktop
    desktop = VirtualDesktop.load(desktop_name, images_dir=args.images_dir, start=args.start_screen)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", args.machine_id)[:80] or "machine"
    journal_path = args.journal or settings.data_dir / "agent_sim" / f"{slug}.journal.sqlite"
    faults = FaultPlan.parse(args.faults)
    restarts = args.restart_on_crash
    async with httpx2.AsyncClient(base_url=args.url, timeout=30.0) as client, anyio.create_task_group() as tg:
        if args.dismiss_system_dialogs_after is not None:
            tg.start_soon(_person_dismisses_system_dialogs, desktop, args.dismiss_system_dialogs_after)
        while True:
            journal = Journal(journal_path)
            agent = ReferenceAgent(
                client,
                desktop,
                machine_id=args.machine_id,
                journal=journal,
                token=token,
                protocol_version=1 if args.v1 else 2,
                faults=faults,
                poll_wait_s=args.wait,
                heartbeat_interval_s=args.heartbeat_interval,
            )
            try:
                if demo is not None:
                    await play_demo(agent, demo, session_id=f"{slug}-demo-{int(time.time())}")
                    demo = None  # once, not again after a restart
                await agent.run(max_actions=args.max_actions)
                status = 0
                break
            except AgentCrashed as exc:
                logging.getLogger(__name__).warning("agent_crashed: %s", exc)
                if restarts <= 0:
                    status = EXIT_CRASHED
                    break
                restarts -= 1
            except RpaError as exc:  # refused by the server (token, role): retrying cannot help
                print(f"agent-sim: {exc.code}: {exc.message}{_hint(exc)}", file=sys.stderr)
                status = EXIT_REFUSED
                break
            except ValidationError as exc:  # the server's answer does not follow rpa_mcp.replay.wire
                print(f"agent-sim: the server sent an action that breaks the wire contract: {exc}", file=sys.stderr)
                status = EXIT_REFUSED
                break
            finally:
                journal.close()
        tg.cancel_scope.cancel()
    return status


async def _person_dismisses_system_dialogs(desktop: VirtualDesktop, after_s: float) -> None:
    seen_for = 0.0
    while True:
        await anyio.sleep(0.25)
        dialog = desktop.system_dialog()
        seen_for = seen_for + 0.25 if dialog else 0.0
        if dialog is None or seen_for < after_s:
            continue
        button = next((b for b in dialog.buttons if b.label.strip().lower() in DISMISS_LABELS), None)
        if button is None and dialog.buttons:
            button = dialog.buttons[-1]
        if button is None:
            desktop.close_dialog(dialog.id)
        else:
            x, y, w, h = button.bbox
            desktop.click(x + w // 2, y + h // 2, source="human")
        seen_for = 0.0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
