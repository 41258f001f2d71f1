"""`rpa-mcp serve | token | audit verify | db | competences | catalog check | bench | agent-sim | agent-check |
demo`. The workstation agent is its own distribution and command: `rpa-agent` (rpa-mcp-agent).

Every error a person can meet here is one line on stderr and a non-zero exit status (2 for
a usage or configuration problem, 1 for a failed check); a traceback only with
`RPA_LOG_LEVEL=DEBUG`, for a bug.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import ValidationError
from pydantic_settings import SettingsError

from rpa_mcp import __version__
from rpa_mcp.errors import RpaError
from rpa_mcp.serve_banner import banner
from rpa_mcp.settings import Settings

EXIT_FAILED = 1
EXIT_USAGE = 2


class CliError(Exception):
    """A problem the person can fix, said in one line."""


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        k: v for k, v in (("host", getattr(args, "host", None)), ("port", getattr(args, "port", None))) if v is not None
    }
    return Settings(**overrides)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or a CliError saying why not (a busy port, say)."""
    sock: socket.socket | None = None
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        if sock is not None:
            sock.close()
        reason = "the port is already in use" if exc.errno == 98 else exc.strerror or str(exc)
        raise CliError(
            f"cannot listen on {host}:{port}: {reason} (stop the other server, or choose another with --port)"
        ) from exc
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _warn_unknown_names() -> None:
    from rpa_mcp.startup import unknown_names

    for warning in unknown_names(os.environ):
        print(f"rpa-mcp: warning: {warning}", file=sys.stderr)


def cmd_serve(args: argparse.Namespace) -> int:
    from rpa_mcp import startup
    from rpa_mcp.entrypoints.http_server import HttpLimits, ensure_open_files

    _warn_unknown_names()
    settings = _settings(args)
    ensure_open_files(HttpLimits.from_settings(settings))  # refused here, before anything heavy loads
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    lock = startup.lock_data_dir(settings)  # one server per SQLite data folder
    try:
        return _serve(settings)
    finally:
        if lock is not None:
            lock.release()


def _serve(settings: Settings) -> int:
    from rpa_mcp import startup

    sock = bind(settings.host, settings.port)  # a busy port is said before the models (and their libraries) load
    port = sock.getsockname()[1]
    actual = settings if port == settings.port else settings.model_copy(update={"port": port})
    try:
        startup.probe_database(settings)
        from rpa_mcp.auth.keys import key_source
        from rpa_mcp.bootstrap import build_services, prepare_ocr, public_base_url
        from rpa_mcp.entrypoints.app import create_app, freeze_startup_heap
        from rpa_mcp.entrypoints.http_server import serve

        services = build_services(actual)
        app = create_app(actual, services=services)  # refuses to start before anything is printed
        prepare_ocr(services)  # the models load while the server starts, not in the first replay's validation
    except BaseException:
        sock.close()
        raise
    # The operator token goes to a person's terminal only: when the output is redirected (a log file,
    # a service manager's journal), none is minted or printed.
    on_terminal = sys.stdout.isatty() and not settings.auth_disabled
    token = services.access_tokens.mint("operator", ["operator"], ttl_s=12 * 3600) if on_terminal else None
    keys = services.access_tokens.keys
    print(banner(public_base_url(actual), token, actual, key_source(settings, keys)), flush=True)
    freeze_startup_heap()
    serve(app, sock, settings)
    return 0


def cmd_stdio(args: argparse.Namespace) -> int:
    import anyio

    from rpa_mcp.entrypoints.stdio import serve_stdio, stdio_server

    settings = Settings()
    # stdout carries the protocol: every log line goes to stderr
    logging.basicConfig(
        level=settings.log_level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    anyio.run(serve_stdio, stdio_server(settings))
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    from rpa_mcp.auth.console_credentials import ConsoleCredentials
    from rpa_mcp.auth.keys import key_source, load_signing_keys
    from rpa_mcp.auth.tokens import AccessTokens

    _warn_unknown_names()  # a misspelt RPA_JWT_SECRET would mint with another key
    settings = Settings()
    keys = load_signing_keys(settings, create=args.init)
    tokens = AccessTokens(
        keys,
        issuer=settings.jwt_issuer,
        audience=settings.jwt_audience,
        max_ttl_s=settings.access_token_max_ttl_s,
    )
    if args.machine and "agent" not in args.role:
        raise CliError("--machine binds an agent token to workstations; add --role agent")
    if args.console and args.machine:
        raise CliError("--machine binds an agent's access token; a console credential is a person's")
    try:
        if args.console:
            token = ConsoleCredentials(
                keys,
                issuer=settings.jwt_issuer,
                audience=settings.jwt_audience,
                max_ttl_s=settings.access_token_max_ttl_s,
            ).mint(args.sub, args.role, ttl_s=args.ttl)
        else:
            token = tokens.mint(args.sub, args.role, ttl_s=args.ttl, machines=args.machine or None)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    print(
        f"rpa-mcp token: data folder {settings.data_dir.resolve()}, signing key {key_source(settings, keys)}; "
        "the server must use the same key",
        file=sys.stderr,
    )
    print(token)
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    """Refuse every token of a subject issued until now (a workstation's, a person's), on every replica."""
    import getpass
    import time

    from rpa_mcp.clock import SystemClock
    from rpa_mcp.store.db import open_database
    from rpa_mcp.store.migrations import require_current
    from rpa_mcp.store.revocations import REFRESH_S, TokenRevocations

    if not args.list and not args.subject:
        raise CliError("name the subject whose tokens to revoke (rpa-mcp revoke ws-pc-12), or pass --list")
    settings = Settings()
    db = open_database(settings)
    try:
        require_current(db)
        revocations = TokenRevocations(db, SystemClock())
        if args.list:
            for subject, at in revocations.listed().items():
                print(f"{subject}\t{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(at))}")
            return 0
        # the row keeps who and when (`rpa-mcp revoke --list`); the audit chain is the server's own to write
        at = revocations.revoke(args.subject, by=f"cli:{getpass.getuser()}")
    finally:
        db.close()
    print(
        f"revoked every token of {args.subject} issued until {time.strftime('%H:%M:%S', time.gmtime(at))} UTC; "
        f"running servers refuse them within {REFRESH_S:.0f} s. A token minted from now on is accepted."
    )
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from rpa_mcp.bootstrap import audit_key
    from rpa_mcp.clock import SystemClock
    from rpa_mcp.store.audit import CHECKPOINT_FILE, AuditLog
    from rpa_mcp.store.db import open_database
    from rpa_mcp.store.migrations import require_current

    settings = Settings()
    db = open_database(settings)
    require_current(db)
    own = settings.audit_checkpoint or settings.data_dir / CHECKPOINT_FILE
    log = AuditLog(db, SystemClock(), key=audit_key(settings, shared_db=db.dialect == "postgres"), checkpoint=own)
    checkpoints = [Path(p) for p in args.checkpoint] if args.checkpoint else None
    check = log.verify(checkpoints)
    db.close()
    if check.ok:
        print(f"audit chain intact: {check.rows} rows")
        return 0
    print(f"audit chain BROKEN at row {check.first_bad_id}: {check.reason} ({check.rows} rows read)")
    return 1


def cmd_competences(args: argparse.Namespace) -> int:
    from rpa_mcp.clock import SystemClock
    from rpa_mcp.store.competences import DbCompetenceStore
    from rpa_mcp.store.db import open_database
    from rpa_mcp.store.migrations import require_current

    settings = Settings()
    db = open_database(settings)
    try:
        require_current(db)
        if db.dialect != "postgres":
            print("competences are the YAML files under RPA_DATA_DIR/competences with SQLite: nothing to do")
            return 0
        store = DbCompetenceStore(
            db, SystemClock(), root=settings.data_dir / "competences", readback_urls=settings.readback_urls
        )
        folder = Path(args.folder)
        if args.action == "export":
            print(f"{store.export_to(folder)} file(s) written under {folder}")
            return 0
        added, problems = store.import_from(folder)
        for problem in problems:
            print(f"problem: {problem}")
        print(f"{added} version(s) imported from {folder}")
        return 0 if not problems else 1
    finally:
        db.close()


def cmd_db(args: argparse.Namespace) -> int:
    from rpa_mcp.store.db import open_database
    from rpa_mcp.store.migrations import pending, upgrade

    settings = Settings()
    db = open_database(settings, auto_upgrade=True)
    try:
        if args.action == "status":
            todo = pending(db)
            for area, (have, need) in sorted(todo.items()):
                print(f"{area}: database {have}, code {need}")
            print(f"{db.dialect} {db.path}: " + ("up to date" if not todo else f"{len(todo)} area(s) to upgrade"))
            return 0 if not todo else 1
        changed = upgrade(db)
        for area, (have, need) in sorted(changed.items()):
            print(f"{area}: {have} -> {need}")
        print(f"{db.dialect} {db.path}: schema up to date" + ("" if changed else " (nothing to do)"))
        return 0
    finally:
        db.close()


def _check_thresholds(catalog_dir: Path) -> list[str]:
    from rpa_mcp.replay.thresholds import load_thresholds

    try:
        load_thresholds(catalog_dir / "thresholds.yaml")
    except Exception as exc:  # any load error is a finding to print, not a crash
        return [f"thresholds.yaml: {exc}"]
    return []


def _check_confidence(catalog_dir: Path) -> list[str]:
    from rpa_mcp.shadow.calibration import FILE_NAME, Calibration

    try:
        Calibration.from_catalog(catalog_dir)
    except Exception as exc:  # any load error is a finding to print, not a crash
        return [f"{FILE_NAME}: {exc}"]
    return []


def cmd_catalog(args: argparse.Namespace) -> int:
    from rpa_mcp.dialogs import check_catalog
    from rpa_mcp.validation.matrix import check_matrix

    catalog_dir = Settings().catalog_path
    problems = [
        *check_catalog(catalog_dir),
        *check_matrix(catalog_dir),
        *_check_thresholds(catalog_dir),
        *_check_confidence(catalog_dir),
    ]
    for p in problems:
        print(f"problem: {p}")
    print(f"catalog OK ({catalog_dir})" if not problems else f"{len(problems)} problem(s)")
    return 0 if not problems else 1


def cmd_bench(args: argparse.Namespace) -> int:
    from rpa_mcp.bench import BENCHMARKS, run_benchmarks

    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        raise CliError(f"unknown benchmark {', '.join(unknown)}; the benchmarks are {', '.join(BENCHMARKS)}")
    try:
        return run_benchmarks(args.names, args.rest)
    except FileNotFoundError as exc:
        raise CliError(f"a benchmark needs data that is not here: {exc}") from exc


def _delegate(module_name: str) -> int:
    module = importlib.import_module(module_name)
    result: int = module.main(sys.argv[2:])
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; every error a person can fix is one line on stderr and a non-zero status."""
    return _guarded(lambda: _main(list(sys.argv[1:] if argv is None else argv)))


def _guarded(run: Callable[[], int]) -> int:
    try:
        return run()
    except KeyboardInterrupt:
        return 130
    except CliError as exc:
        return _fail(str(exc))
    except RpaError as exc:
        return _fail(exc.message)
    except (ValidationError, SettingsError) as exc:  # a setting read from the environment (RPA_...) is invalid
        from rpa_mcp.startup import describe_settings_error

        return _fail(describe_settings_error(exc))
    except Exception as exc:
        if os.environ.get("RPA_LOG_LEVEL", "").upper() == "DEBUG":
            raise
        return _fail(f"unexpected {type(exc).__name__}: {exc} (set RPA_LOG_LEVEL=DEBUG for the traceback)")


def _fail(message: str) -> int:
    print(f"rpa-mcp: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _main(argv: list[str]) -> int:
    from rpa_mcp.bench import BENCHMARKS

    if argv and argv[0] == "agent-sim":
        return int(importlib.import_module("rpa_mcp.agent_sim.cli").main(argv[1:]))
    if argv and argv[0] == "agent-x11":
        return _fail(
            "the workstation agent is no longer part of the server: pip install 'rpa-mcp-agent[x11]', then "
            "rpa-agent run --url URL --token-file F --machine-id M (recording: rpa-agent record ...)"
        )
    if argv and argv[0] == "demo":
        return int(importlib.import_module("rpa_mcp.demo").main(argv[1:]))
    if argv and argv[0] == "agent-check":
        return int(importlib.import_module("rpa_mcp.agent_check.cli").main(argv[1:]))
    parser = argparse.ArgumentParser(prog="rpa-mcp", description="MCP server for supervised desktop RPA.")
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the server (127.0.0.1:8765 by default)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.set_defaults(fn=cmd_serve)
    stdio = sub.add_parser("stdio", help="serve MCP on stdin/stdout for a local client, as the holder of RPA_TOKEN")
    stdio.set_defaults(fn=cmd_stdio)
    token = sub.add_parser(
        "token", help="mint an access token for /mcp and /api/v1, or a console credential (printed alone on stdout)"
    )
    token.add_argument("--sub", required=True, help="who the token identifies")
    token.add_argument("--role", required=True, action="append", choices=["operator", "viewer", "agent", "approver"])
    token.add_argument("--ttl", type=int, default=3600, help="lifetime in seconds (default 3600)")
    token.add_argument(
        "--machine",
        action="append",
        default=[],
        metavar="MACHINE_ID",
        help="bind an agent token to this workstation (repeatable): it then acts for these machines only",
    )
    token.add_argument(
        "--console",
        action="store_true",
        help="a person's credential for the console's sign-in (roles operator, approver, viewer), refused on "
        "/mcp and /api/v1; an access token is refused at the console",
    )
    token.add_argument(
        "--init",
        action="store_true",
        help="create the signing key in the data folder if there is none (otherwise a missing key is an error)",
    )
    token.set_defaults(fn=cmd_token)
    revoke = sub.add_parser(
        "revoke", help="refuse every token of a subject issued until now (a workstation's agent token, a person's)"
    )
    revoke.add_argument("subject", nargs="?", help="the --sub the tokens were minted with (e.g. ws-pc-12)")
    revoke.add_argument("--list", action="store_true", help="list the revoked subjects and when")
    revoke.set_defaults(fn=cmd_revoke)
    audit = sub.add_parser("audit", help="audit log tools")
    audit.add_argument("action", choices=["verify"])
    audit.add_argument(
        "--checkpoint",
        action="append",
        help="a checkpoint file the chain must reach (repeat for each replica's; default: this one's own)",
    )
    audit.set_defaults(fn=cmd_audit)
    db = sub.add_parser("db", help="database schema: upgrade applies pending migrations (SQLite or PostgreSQL)")
    db.add_argument("action", choices=["upgrade", "status"])
    db.set_defaults(fn=cmd_db)
    comp = sub.add_parser(
        "competences",
        help="import/export the competences kept in PostgreSQL as the YAML folders (candidate/, validated/)",
    )
    comp.add_argument("action", choices=["import", "export"])
    comp.add_argument("folder", help="a folder holding candidate/ and validated/ (the file store's layout)")
    comp.set_defaults(fn=cmd_competences)
    catalog = sub.add_parser("catalog", help="catalog tools")
    catalog.add_argument("action", choices=["check"])
    catalog.set_defaults(fn=cmd_catalog)
    bench = sub.add_parser(
        "bench",
        help="run benchmarks (medians and ratios)",
        description="Benchmarks: medians and ratios measured within one run (compare within a run, not across).",
        epilog="benchmarks:\n" + "\n".join(f"  {name:<13} {what}" for name, what in BENCHMARKS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"one of {', '.join(BENCHMARKS)} (default: all)",
    )
    bench.add_argument("--rest", nargs=argparse.REMAINDER, default=[], help="arguments passed to each benchmark")
    bench.set_defaults(fn=cmd_bench)
    sub.add_parser("agent-sim", help="run the reference desktop agent (see rpa-mcp agent-sim --help)")
    sub.add_parser("demo", help="run the end-to-end story over real HTTP")
    sub.add_parser("agent-check", help="check a desktop agent against the replay wire contract (see --help)")
    args = parser.parse_args(argv)
    result: int = args.fn(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
