"""`rpa-agent run` (replay) and `rpa-agent record` (observation) on this workstation's desktop.

    rpa-agent run    --url URL --token-file F --machine-id M [--backend x11|windows] [--journal PATH]
    rpa-agent record --url URL --token-file F --machine-id M [--backend x11|windows] [--session-id S]
    rpa-agent selfcheck [--json] [--drill]   (Windows: what this workstation's desktop allows the agent)

Configuration: rpa_agent.config (the command line, then RPA_AGENT_* variables, then `--config FILE`).
The backend defaults to the platform's (windows on Windows, x11 elsewhere); the X11 backend needs
the extra `pip install 'rpa-mcp-agent[x11]'`. Both say what they do on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
import threading
import time
from typing import Any

from rpa_agent import __version__, config
from rpa_agent.config import AgentConfig

EXIT_REFUSED = 4
EXIT_MISSING = 2


def say(text: str) -> None:
    print(f"[rpa-agent {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def default_backend() -> str:
    return "windows" if sys.platform == "win32" else "x11"


def _common(p: argparse.ArgumentParser) -> None:
    config.add_options(p)
    p.add_argument("--backend", choices=("x11", "windows"), default=default_backend(), help="Desktop backend.")
    p.add_argument("--display", default=None, help="X display for the x11 backend (default: $DISPLAY).")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rpa-agent", description="The rpa_mcp workstation agent (replay and recording).")
    p.add_argument("--version", action="version", version=f"rpa-agent {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="Execute replay actions on this desktop.")
    _common(run)
    run.add_argument("--wait", type=float, default=25.0, help="Long-poll seconds.")
    run.add_argument("--heartbeat-interval", type=float, default=10.0, help="Seconds between heartbeats.")
    run.add_argument("--settle-ms", type=int, default=None, help="Longest wait for the screen to settle after input.")
    record = sub.add_parser("record", help="Stream a person's work as shadow events.")
    _common(record)
    record.add_argument("--session-id", default=None, help="Recording session id (default: a new one).")
    record.add_argument("--locale", default=None, help="Session language (fr, en; default from $LANG).")
    check = sub.add_parser("selfcheck", help="Windows: check what this desktop allows the agent, and report.")
    check.add_argument("--json", action="store_true", help="The report as JSON (to send to IT).")
    check.add_argument("--drill", action="store_true", help="Also type and click into a notepad of its own.")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "selfcheck":
        return selfcheck(args)
    cfg = config.load(args, warn=lambda text: say(f"warning: {text}"))
    if args.command == "record":
        return record(args, cfg)
    return run(args, cfg)


def open_desktop(args: argparse.Namespace) -> Any:
    """The backend the arguments name; SystemExit in one line when it cannot load here."""
    if args.backend == "windows":
        try:  # by name: the Windows backend is type-checked for win32, not with the rest
            windows = importlib.import_module("rpa_agent.windows")
        except ImportError as exc:
            raise SystemExit(f"rpa-agent: the windows backend cannot load here ({exc})") from None
        try:
            return windows.open_desktop()
        except OSError as exc:  # not Windows, or no interactive desktop to work on
            raise SystemExit(f"rpa-agent: the windows backend cannot open this desktop ({exc})") from None
    try:
        from rpa_agent.x11.desktop import X11Desktop
    except ImportError:
        raise SystemExit("rpa-agent: the x11 backend needs its extra: pip install 'rpa-mcp-agent[x11]'") from None
    return X11Desktop.open(_display(args.display), session_bus=os.environ.get("DBUS_SESSION_BUS_ADDRESS"))


def selfcheck(args: argparse.Namespace) -> int:
    """The Windows backend's self-check (what a hospital's IT runs on a real workstation)."""
    if sys.platform != "win32":
        raise SystemExit("rpa-agent: selfcheck checks a Windows desktop; run it on the workstation (or in Wine)")
    module = importlib.import_module("rpa_agent.windows.selfcheck")
    flags = [flag for flag, on in (("--json", args.json), ("--drill", args.drill)) if on]
    return int(module.main(flags))


def _display(given: str | None) -> str:
    display = given or os.environ.get("DISPLAY")
    if not display:
        raise SystemExit("rpa-agent: no X display: pass --display :N or set DISPLAY")
    return display


def run(args: argparse.Namespace, cfg: AgentConfig) -> int:
    from rpa_agent.core.agent import Agent, Interrupted, Refused
    from rpa_agent.core.http import Http
    from rpa_agent.core.journal import Journal

    desktop = open_desktop(args)
    desktop.watch.start()  # a person's input is counted from now on: the takeover check reads it
    journal = Journal(cfg.journal)
    stop = threading.Event()
    headers = {"Authorization": f"Bearer {cfg.token}"} if cfg.token else {}
    agent = Agent(
        desktop=desktop,
        http=Http(cfg.url, headers=headers),
        machine_id=cfg.machine_id,
        journal=journal,
        say=say,
        poll_wait_s=args.wait,
        heartbeat_interval_s=args.heartbeat_interval,
        settle_ms=args.settle_ms,
    )
    where = f" {args.display or os.environ.get('DISPLAY', '')}".rstrip() if desktop.name == "x11" else ""
    say(f"connected to {cfg.url} as machine {cfg.machine_id} ({desktop.name}{where} backend, pid {os.getpid()})")
    say(f"journal: {cfg.journal}")

    def on_signal(*_: object) -> None:
        stop.set()
        if agent.idle:  # in the long poll: leave now; an action under way is always finished first
            raise Interrupted

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    try:
        agent.run(stop)
    except Interrupted:
        pass
    except Refused as exc:
        say(f"stopped: {exc}")
        return EXIT_REFUSED
    finally:
        agent.close()
        desktop.close()
        journal.close()
    say("stopped")
    return 0


def _locale(given: str | None) -> str:
    raw = given or os.environ.get("LANG", "fr")
    return "en" if raw.lower().startswith("en") else "fr"


def record(args: argparse.Namespace, cfg: AgentConfig) -> int:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", cfg.machine_id)[:40]
    session = args.session_id or f"{args.backend}-{slug}-{int(time.time())}"
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    if args.backend != "x11":
        return record_on_port(args, cfg, session, stop)
    try:
        from rpa_agent.x11.recorder import Recorder
    except ImportError:
        raise SystemExit("rpa-agent: the x11 backend needs its extra: pip install 'rpa-mcp-agent[x11]'") from None
    display = _display(args.display)
    recorder = Recorder(
        url=cfg.url,
        token=cfg.token,
        machine_id=cfg.machine_id,
        session_id=session,
        display_name=display,
        session_bus=os.environ.get("DBUS_SESSION_BUS_ADDRESS"),
        locale=_locale(args.locale),
        say=say,
    )
    say(f"connected to {cfg.url} as machine {cfg.machine_id}, display {display}")
    recorder.run(stop)
    return EXIT_REFUSED if recorder.sender.refused and not recorder.sender.sent else 0


def record_on_port(args: argparse.Namespace, cfg: AgentConfig, session: str, stop: threading.Event) -> int:
    """Recording through the port (the Windows backend's hooks): `rpa_agent.core.record`."""
    from rpa_agent.core.http import Http
    from rpa_agent.core.record import PortRecorder
    from rpa_agent.core.recorder import EventSender, EventStream

    desktop = open_desktop(args)
    headers = {"Authorization": f"Bearer {cfg.token}"} if cfg.token else {}
    sender = EventSender(Http(cfg.url, headers=headers, timeout=30), say=say).start()
    stream = EventStream(
        send=sender.send,
        machine_id=cfg.machine_id,
        session_id=session,
        agent=f"rpa-agent {desktop.name}",
        screen_size=desktop.screen.size,
        png=desktop.screen.png,
        locale=_locale(args.locale),
        say=say,
    )
    say(f"connected to {cfg.url} as machine {cfg.machine_id} ({desktop.name} backend)")
    say(f"recording session {session} on {cfg.machine_id}")
    try:
        PortRecorder(desktop, stream, say=say).run(stop)
    finally:
        sender.close()
        desktop.close()
    summary = ", ".join(f"{n} {k}" for k, n in sorted(stream.counts.items())) or "no event"
    say(f"stopped: {summary} sent ({sender.sent} accepted, {sender.refused} refused)")
    return EXIT_REFUSED if sender.refused and not sender.sent else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
