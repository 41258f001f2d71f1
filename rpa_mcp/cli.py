"""`rpa-mcp serve | token | audit verify | db upgrade | catalog check | bench | agent-sim | agent-x11 | demo`."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from rpa_mcp import __version__
from rpa_mcp.settings import Settings


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        k: v for k, v in (("host", getattr(args, "host", None)), ("port", getattr(args, "port", None))) if v is not None
    }
    return Settings(**overrides)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from rpa_mcp.bootstrap import build_services, public_base_url
    from rpa_mcp.entrypoints.app import create_app

    settings = _settings(args)
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    services = build_services(settings)
    app = create_app(settings, services=services)
    base = public_base_url(settings)
    token = services.access_tokens.mint("operator", ["operator"], ttl_s=12 * 3600)
    print(_banner(base, token, settings), flush=True)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning")
    return 0


def _banner(base: str, token: str, settings: Settings) -> str:
    url = f"{base}/mcp"
    cursor = json.dumps(
        {"mcpServers": {"rpa": {"url": url, "headers": {"Authorization": f"Bearer {token}"}}}}, indent=2
    )
    claude = json.dumps(
        {
            "mcpServers": {
                "rpa": {
                    "command": "npx",
                    "args": ["-y", "mcp-remote", url, "--header", f"Authorization: Bearer {token}"],
                }
            }
        },
        indent=2,
    )
    auth = (
        "DISABLED (local development)" if settings.auth_disabled else "bearer tokens (operator token below, valid 12 h)"
    )
    return f"""rpa-mcp {__version__} — MCP endpoint: {url}
data dir: {settings.data_dir.resolve()}   auth: {auth}

Operator token:
{token}

Cursor (~/.cursor/mcp.json):
{cursor}

Claude Desktop (claude_desktop_config.json, through mcp-remote):
{claude}

MCP Inspector CLI:
npx @modelcontextprotocol/inspector --cli {url} --transport http \\
    --header "Authorization: Bearer {token}" --method tools/list
"""


def cmd_token(args: argparse.Namespace) -> int:
    from rpa_mcp.auth.keys import load_signing_keys
    from rpa_mcp.auth.tokens import AccessTokens

    settings = Settings()
    tokens = AccessTokens(load_signing_keys(settings), issuer=settings.jwt_issuer, audience=settings.jwt_audience)
    try:
        print(tokens.mint(args.sub, args.role, ttl_s=args.ttl))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
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
    from rpa_mcp.replay.resolve import load_thresholds

    try:
        load_thresholds(catalog_dir / "thresholds.yaml")
    except Exception as exc:  # any load error is a finding to print, not a crash
        return [f"thresholds.yaml: {exc}"]
    return []


def cmd_catalog(args: argparse.Namespace) -> int:
    from rpa_mcp.dialogs import check_catalog
    from rpa_mcp.validation.matrix import check_matrix

    catalog_dir = Settings().catalog_path
    problems = [*check_catalog(catalog_dir), *check_matrix(catalog_dir), *_check_thresholds(catalog_dir)]
    for p in problems:
        print(f"problem: {p}")
    print(f"catalog OK ({catalog_dir})" if not problems else f"{len(problems)} problem(s)")
    return 0 if not problems else 1


def cmd_bench(args: argparse.Namespace) -> int:
    from rpa_mcp.bench import run_benchmarks

    return run_benchmarks(args.names, args.rest)


def _delegate(module_name: str) -> int:
    module = importlib.import_module(module_name)
    result: int = module.main(sys.argv[2:])
    return result


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "agent-sim":
        return int(importlib.import_module("rpa_mcp.agent_sim.cli").main(argv[1:]))
    if argv and argv[0] == "agent-x11":
        return int(importlib.import_module("rpa_mcp.agent_x11.cli").main(argv[1:]))
    if argv and argv[0] == "demo":
        return int(importlib.import_module("rpa_mcp.demo").main(argv[1:]))
    parser = argparse.ArgumentParser(prog="rpa-mcp", description="MCP server for supervised desktop RPA.")
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the server (127.0.0.1:8765 by default)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.set_defaults(fn=cmd_serve)
    token = sub.add_parser("token", help="mint an access token (printed alone on stdout)")
    token.add_argument("--sub", required=True, help="who the token identifies")
    token.add_argument("--role", required=True, action="append", choices=["operator", "viewer", "agent", "approver"])
    token.add_argument("--ttl", type=int, default=3600, help="lifetime in seconds (default 3600)")
    token.set_defaults(fn=cmd_token)
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
    catalog = sub.add_parser("catalog", help="catalog tools")
    catalog.add_argument("action", choices=["check"])
    catalog.set_defaults(fn=cmd_catalog)
    bench = sub.add_parser("bench", help="run benchmarks (medians and ratios)")
    bench.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    bench.add_argument("--rest", nargs=argparse.REMAINDER, default=[], help="arguments passed to each benchmark")
    bench.set_defaults(fn=cmd_bench)
    sub.add_parser("agent-sim", help="run the reference desktop agent (see rpa-mcp agent-sim --help)")
    sub.add_parser("agent-x11", help="the desktop agent on a real X11 desktop (see rpa-mcp agent-x11 --help)")
    sub.add_parser("demo", help="run the end-to-end story over real HTTP")
    args = parser.parse_args(argv)
    result: int = args.fn(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
