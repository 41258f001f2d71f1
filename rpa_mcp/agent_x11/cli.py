"""`rpa-mcp agent-x11` (replay) and `rpa-mcp agent-x11 record` (observation) on a real X11 desktop.

    rpa-mcp agent-x11 --url URL --token-file F --machine-id M [--display :N] [--journal PATH]
    rpa-mcp agent-x11 record --url URL --token-file F --machine-id M [--session-id S] [--display :N]

The token comes from --token-file, else $RPA_AGENT_TOKEN, else the `api_token` setting
(RPA_API_TOKEN). Both say what they do on stderr.
They need the optional extra: `pip install rpa-mcp[x11]`.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

from rpa_mcp.agent_token import add_token_options, agent_token

EXIT_REFUSED = 4


def say(text: str) -> None:
    print(f"[agent-x11 {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--url", required=True, help="Server base URL (http://127.0.0.1:8765).")
    add_token_options(p)
    p.add_argument("--machine-id", required=True, help="This workstation's machine id.")
    p.add_argument("--display", default=None, help="X display (default: $DISPLAY).")


def record_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rpa-mcp agent-x11 record", description="Stream a person's work as shadow events.")
    _common(p)
    p.add_argument("--session-id", default=None, help="Recording session id (default: a new one).")
    p.add_argument("--locale", default=None, help="Session language (fr, en; default from $LANG).")
    return p


def replay_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rpa-mcp agent-x11", description="Execute replay actions on this X11 desktop.")
    _common(p)
    p.add_argument("--journal", type=Path, default=None, help="Durable journal file (default: <data_dir>/agent_x11/).")
    p.add_argument("--wait", type=float, default=25.0, help="Long-poll seconds.")
    p.add_argument("--heartbeat-interval", type=float, default=10.0, help="Seconds between heartbeats.")
    p.add_argument(
        "--resolve",
        choices=("server", "local"),
        default="server",
        help="Where targets are found: POST /api/v1/resolve_target (default) or this agent's own OCR.",
    )
    p.add_argument(
        "--settle-ms", type=int, default=None, help="Wait before the after-screenshot (default: the step's)."
    )
    return p


def _token(args: argparse.Namespace) -> str | None:
    return agent_token(args, fallback=_api_token_setting, warn=lambda text: say(f"warning: {text}"))


def _api_token_setting() -> str | None:
    from rpa_mcp.settings import Settings

    secret = Settings().api_token
    return secret.get_secret_value() if secret else None


def _display(given: str | None) -> str:
    display = given or os.environ.get("DISPLAY")
    if not display:
        raise SystemExit("agent-x11: no X display: pass --display :N or set DISPLAY")
    return display


def _locale(given: str | None) -> str:
    raw = given or os.environ.get("LANG", "fr")
    return "en" if raw.lower().startswith("en") else "fr"


def main(argv: list[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    try:
        import mss  # noqa: F401
        import Xlib  # noqa: F401  (the optional extra)
    except ImportError:
        print("agent-x11 needs the x11 extra: pip install 'rpa-mcp[x11]'", file=sys.stderr)
        return 2
    if args_in and args_in[0] == "record":
        return record(record_parser().parse_args(args_in[1:]))
    from rpa_mcp.agent_x11.agent import run_agent

    return int(run_agent(replay_parser().parse_args(args_in), say=say))


def record(args: argparse.Namespace) -> int:
    from rpa_mcp.agent_x11.recorder import Recorder

    display = _display(args.display)
    session = args.session_id or f"x11-{re.sub(r'[^A-Za-z0-9]+', '-', args.machine_id)[:40]}-{int(time.time())}"
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    recorder = Recorder(
        url=args.url,
        token=_token(args),
        machine_id=args.machine_id,
        session_id=session,
        display_name=display,
        session_bus=os.environ.get("DBUS_SESSION_BUS_ADDRESS"),
        locale=_locale(args.locale),
        say=say,
    )
    say(f"connected to {args.url} as machine {args.machine_id}, display {display}")
    recorder.run(stop)
    return EXIT_REFUSED if recorder.sender.refused and not recorder.sender.sent else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
