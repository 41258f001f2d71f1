"""Where a desktop agent finds its bearer token: a file (`--token-file`), the environment
(`RPA_AGENT_TOKEN`), or — discouraged — the command line (`--token`, visible to every user of
the machine in the process list). A workstation's token is minted and revoked on the server
(`rpa-mcp token --sub ws-NAME --role agent --machine ID`, docs/operations.md).
"""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path

ENV_NAME = "RPA_AGENT_TOKEN"


def add_token_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--token-file",
        type=Path,
        default=None,
        help=f"File holding the bearer token (mode 0600). Else ${ENV_NAME}, else the RPA_API_TOKEN setting.",
    )
    parser.add_argument(
        "--token",
        default=None,
        help="Bearer token on the command line (shown in the process list: prefer --token-file).",
    )


def agent_token(
    args: argparse.Namespace,
    *,
    environ: Mapping[str, str] | None = None,
    fallback: Callable[[], str | None] = lambda: None,
    warn: Callable[[str], None] = lambda text: None,
) -> str | None:
    """The token: --token-file, then $RPA_AGENT_TOKEN, then --token (with a warning), then `fallback()`.

    A missing, empty or unreadable token file is a SystemExit in one line.
    """
    environ = os.environ if environ is None else environ
    if args.token_file is not None:
        return _read(args.token_file, warn)
    if environ.get(ENV_NAME, "").strip():
        return environ[ENV_NAME].strip()
    if args.token:
        warn(f"--token is visible to every user of this machine in the process list: use --token-file or ${ENV_NAME}")
        return str(args.token)
    return fallback()


def _read(path: Path, warn: Callable[[str], None]) -> str:
    try:
        mode = path.stat().st_mode
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SystemExit(f"cannot read the token file {path}: {exc.strerror or exc}") from None
    if not token or len(token.split()) != 1:
        raise SystemExit(f"the token file {path} must hold the token alone, on one line")
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        warn(f"the token file {path} is readable by others: chmod 600 {path}")
    return token
