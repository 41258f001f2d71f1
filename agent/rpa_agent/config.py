"""The workstation agent's own configuration: where the server is, who this workstation is, where it writes.

Read once, in this order (the first that says something wins):

1. the command line (`--url`, `--machine-id`, `--token-file`, `--data-dir`, `--journal`);
2. the environment: `RPA_AGENT_URL`, `RPA_AGENT_MACHINE_ID`, `RPA_AGENT_TOKEN` (the token itself),
   `RPA_AGENT_TOKEN_FILE`, `RPA_AGENT_DATA_DIR`, `RPA_AGENT_JOURNAL`;
3. a configuration file (`--config FILE`, TOML: `url`, `machine_id`, `token_file`, `data_dir`,
   `journal`; relative paths are taken from the file's folder).

The token never comes from the server's settings: a workstation has none. `--token` on the command
line works but is shown in the process list (a warning says so).
"""

from __future__ import annotations

import argparse
import os
import re
import stat
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_TOKEN = "RPA_AGENT_TOKEN"
FILE_KEYS = ("url", "machine_id", "token_file", "data_dir", "journal")


class ConfigError(SystemExit):
    """The configuration is incomplete or unreadable: one line saying what to fix."""


@dataclass(frozen=True)
class AgentConfig:
    url: str
    machine_id: str
    token: str | None
    data_dir: Path
    journal: Path

    @property
    def slug(self) -> str:
        return machine_slug(self.machine_id)


def machine_slug(machine_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", machine_id)[:80] or "machine"


def default_data_dir(environ: Mapping[str, str]) -> Path:
    """%LOCALAPPDATA%\\rpa-agent on Windows, $XDG_STATE_HOME/rpa-agent (~/.local/state) elsewhere."""
    if sys.platform == "win32" and environ.get("LOCALAPPDATA"):
        return Path(environ["LOCALAPPDATA"]) / "rpa-agent"
    state = environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "rpa-agent"


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=None, help="TOML file: url, machine_id, token_file, data_dir.")
    parser.add_argument("--url", default=None, help="Server base URL (http://127.0.0.1:8765); else $RPA_AGENT_URL.")
    parser.add_argument("--machine-id", default=None, help="This workstation's machine id; else $RPA_AGENT_MACHINE_ID.")
    parser.add_argument(
        "--token-file", type=Path, default=None, help=f"File holding the bearer token (mode 0600); else ${ENV_TOKEN}."
    )
    parser.add_argument("--token", default=None, help="Bearer token (shown in the process list: prefer --token-file).")
    parser.add_argument("--data-dir", type=Path, default=None, help="Where the journal goes; else $RPA_AGENT_DATA_DIR.")
    parser.add_argument("--journal", type=Path, default=None, help="Durable journal file (default: <data-dir>/).")


def load(
    args: argparse.Namespace,
    *,
    environ: Mapping[str, str] | None = None,
    warn: Callable[[str], None] = lambda text: None,
) -> AgentConfig:
    """The configuration from the arguments, the environment and the file; ConfigError when incomplete."""
    env = os.environ if environ is None else environ
    file = _file(getattr(args, "config", None))
    base = args.config.parent if getattr(args, "config", None) else Path.cwd()

    def pick(arg: Any, env_name: str, key: str) -> Any:
        if arg is not None:
            return arg
        if env.get(env_name, "").strip():
            return env[env_name].strip()
        return file.get(key)

    url = pick(args.url, "RPA_AGENT_URL", "url")
    machine_id = pick(args.machine_id, "RPA_AGENT_MACHINE_ID", "machine_id")
    if not url:
        raise ConfigError("rpa-agent: no server URL: pass --url, set RPA_AGENT_URL or `url` in --config")
    if not machine_id:
        raise ConfigError("rpa-agent: no machine id: pass --machine-id, set RPA_AGENT_MACHINE_ID or `machine_id`")
    data_dir = args.data_dir or _path(pick(None, "RPA_AGENT_DATA_DIR", "data_dir"), base) or default_data_dir(env)
    journal = args.journal or _path(pick(None, "RPA_AGENT_JOURNAL", "journal"), base)
    token = _token(args, env, file, base, warn)
    return AgentConfig(
        url=str(url),
        machine_id=str(machine_id),
        token=token,
        data_dir=data_dir,
        journal=journal or data_dir / f"{machine_slug(str(machine_id))}.journal.sqlite",
    )


def _token(
    args: argparse.Namespace, env: Mapping[str, str], file: dict[str, Any], base: Path, warn: Callable[[str], None]
) -> str | None:
    if args.token_file is not None:
        return read_token(args.token_file, warn)
    if env.get(ENV_TOKEN, "").strip():
        return env[ENV_TOKEN].strip()
    if env.get("RPA_AGENT_TOKEN_FILE", "").strip():
        return read_token(Path(env["RPA_AGENT_TOKEN_FILE"].strip()), warn)
    if args.token:
        warn(f"--token is visible to every user of this machine in the process list: use --token-file or ${ENV_TOKEN}")
        return str(args.token)
    from_file = _path(file.get("token_file"), base)
    return read_token(from_file, warn) if from_file is not None else None


def read_token(path: Path, warn: Callable[[str], None] = lambda text: None) -> str:
    """The token a file holds alone on one line; ConfigError when missing, empty or unreadable."""
    try:
        mode = path.stat().st_mode
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"cannot read the token file {path}: {exc.strerror or exc}") from None
    if not token or len(token.split()) != 1:
        raise ConfigError(f"the token file {path} must hold the token alone, on one line")
    if sys.platform != "win32" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        warn(f"the token file {path} is readable by others: chmod 600 {path}")
    return token


def _file(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the configuration file {path}: {exc}") from None
    unknown = sorted(set(data) - set(FILE_KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(unknown)} (known: {', '.join(FILE_KEYS)})")
    return data


def _path(value: Any, base: Path) -> Path | None:
    if value is None or value == "":
        return None
    path = Path(str(value)).expanduser()
    return path if path.is_absolute() else base / path
