"""The checks `rpa-mcp serve` makes before anything heavy loads, each failing in one line.

In order: the environment's `RPA_*` names (a misspelt one is warned with the closest known
name), the data folder's lock (one server per SQLite store), the port, then the database
(an unreachable PostgreSQL answers within `DB_PROBE_S`). The text recognition models load
only after all of them passed.
"""

from __future__ import annotations

import difflib
import fcntl
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from rpa_mcp.errors import ConfigurationError
from rpa_mcp.settings import Settings

LOCK_FILE = "server.lock"
DB_PROBE_S = 4  # libpq's connect_timeout, per address tried (a name may give two: IPv4 and IPv6)
# RPA_* names read by other programs of the package than the server (agents, benchmarks, test clusters).
OTHER_NAMES = frozenset(
    {
        "RPA_AGENT_TOKEN",
        "RPA_BENCH_PG_URL",
        "RPA_CHROMIUM",
        "RPA_CI_CACHE",
        "RPA_CI_IN_CLONE",
        "RPA_PG_BIN",
        "RPA_PG_USER",
        "RPA_TEST_ARTIFACTS",
        "RPA_TEST_PG_URL",
        "RPA_TEST_WINE",
        "RPA_TOKEN",
    }
)


def setting_names() -> list[str]:
    """Every environment name the server reads, `RPA_DATA_DIR` and the like."""
    return sorted("RPA_" + name.upper() for name in Settings.model_fields)


def unknown_names(environ: Mapping[str, str]) -> list[str]:
    """One warning per `RPA_*` name in `environ` that nothing reads, with the closest known name."""
    known = setting_names()
    warnings = []
    for name in sorted(environ):
        if not name.startswith("RPA_") or name in known or name in OTHER_NAMES:
            continue
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else "see docs/reference/settings.md"
        warnings.append(f"{name} is not a setting and is ignored ({hint})")
    return warnings


def describe_settings_error(exc: Exception) -> str:
    """A settings error as one line naming the setting and the form it expects."""
    if isinstance(exc, ValidationError):
        err = exc.errors(include_url=False)[0]
        field = str(err["loc"][0]) if err["loc"] else ""
        return f"{_env_name(field)}: {err['msg']}{_expected(field)} (see docs/reference/settings.md)"
    found = re.search(r'field "(\w+)"', str(exc))  # pydantic-settings' SettingsError names the field so
    field = found.group(1) if found else ""
    return f"{_env_name(field)}: cannot be read{_expected(field)} (see docs/reference/settings.md)"


def _env_name(field: str) -> str:
    return "RPA_" + field.upper() if field else "a setting"


def _expected(field: str) -> str:
    info = Settings.model_fields.get(field)
    if info is None:
        return ""
    kind = "a comma-separated list" if getattr(info.annotation, "__origin__", None) is list else ""
    said = "; ".join(filter(None, (kind, (info.description or "").rstrip("."))))
    return f"; expected {said}" if said else ""


class DataDirLock:
    """An exclusive lock on the data folder's `server.lock`, held while the server runs (the
    kernel releases it when the process ends, however it ends)."""

    def __init__(self, handle: IO[str], path: Path) -> None:
        self.handle, self.path = handle, path

    def release(self) -> None:
        self.handle.close()


def lock_data_dir(settings: Settings) -> DataDirLock | None:
    """The lock of an SQLite data folder, or a ConfigurationError when another server holds it.

    With PostgreSQL (RPA_STORE_URL=postgresql://...) replicas share the database by design and
    keep only their audit checkpoint in their folder: no lock is taken.
    """
    if uses_postgres(settings):
        return None
    folder = settings.data_dir
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    handle = open(os.open(path, os.O_RDWR | os.O_CREAT, 0o600), "r+", encoding="utf-8")  # noqa: SIM115 - held for the process's life
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = handle.read().strip() or "?"
        handle.close()
        raise ConfigurationError(
            f"another rpa-mcp server (pid {holder}) already uses the data folder {folder.resolve()}: stop it, "
            "or give this one its own RPA_DATA_DIR",
            data_dir=str(folder),
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return DataDirLock(handle, path)


def store_url(settings: Settings) -> str:
    return settings.store_url.get_secret_value().strip() if settings.store_url else ""


def uses_postgres(settings: Settings) -> bool:
    return store_url(settings).startswith(("postgresql://", "postgres://"))


def probe_database(settings: Settings, *, timeout_s: int = DB_PROBE_S) -> None:
    """Nothing for SQLite; for PostgreSQL, one connection within `timeout_s` per address, or a
    ConfigurationError naming the server (never the password) and libpq's reason."""
    if not uses_postgres(settings):
        return
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    url = store_url(settings)
    password = settings.store_password.get_secret_value() if settings.store_password else None
    try:
        where = conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise ConfigurationError(f"RPA_STORE_URL is not a PostgreSQL URL: {_one_line(exc)}") from None
    place = f"{where.get('host', 'localhost')}:{where.get('port', 5432)}/{where.get('dbname', '')}"
    extra = {"password": password} if password else {}
    try:
        with psycopg.connect(url, connect_timeout=timeout_s, **extra):  # type: ignore[arg-type]  # libpq's keywords
            pass
    except psycopg.Error as exc:
        raise ConfigurationError(
            f"cannot reach the PostgreSQL database {place} (RPA_STORE_URL): {_one_line(exc)}"
        ) from None


def _one_line(exc: Exception) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines) if lines else type(exc).__name__
