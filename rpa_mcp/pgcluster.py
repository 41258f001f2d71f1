"""A throwaway PostgreSQL cluster for tests and benchmarks (initdb + pg_ctl in a temp folder).

PostgreSQL refuses to run as root, so as root the cluster runs as an unprivileged user
(`RPA_PG_USER`, default `rpa-test`, created when absent). It listens on 127.0.0.1 on a free
port and on a socket in its folder; trust authentication on loopback only. Never for
production data.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rpa_mcp.testing import loopback_socket

DEFAULT_BIN = Path("/usr/lib/postgresql/15/bin")


def pg_bin() -> Path | None:
    """The folder with initdb/pg_ctl: `RPA_PG_BIN`, Debian's default, or PATH."""
    for candidate in (os.environ.get("RPA_PG_BIN"), str(DEFAULT_BIN)):
        if candidate and (Path(candidate) / "initdb").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _as_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    user = os.environ.get("RPA_PG_USER", "rpa-test")
    try:
        pwd.getpwnam(user)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", user], check=True)
    return ["runuser", "-u", user, "--"]


@contextmanager
def throwaway_cluster(*, max_connections: int = 300) -> Iterator[str]:
    """Start a cluster; yields its URL (`postgresql://rpa@127.0.0.1:PORT/postgres`)."""
    binary = pg_bin()
    if binary is None:
        raise FileNotFoundError("PostgreSQL server binaries (initdb, pg_ctl) not found; apt-get install postgresql")
    prefix = _as_user()
    root = Path(tempfile.mkdtemp(prefix="rpa-pg-"))
    os.chmod(root, 0o755)
    if prefix:
        shutil.chown(root, user=prefix[2])
    data, log = root / "data", root / "log"
    sock = loopback_socket()
    port = sock.getsockname()[1]
    sock.close()
    try:
        subprocess.run([*prefix, str(binary / "initdb"), "-D", str(data), "-A", "trust", "-U", "rpa",
                        "-E", "UTF8", "--no-sync"], check=True, capture_output=True, cwd=root)  # fmt: skip
        options = (
            f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c max_connections={max_connections} "
            "-c fsync=on -c shared_buffers=64MB"
        )
        subprocess.run([*prefix, str(binary / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options,
                        "-w", "-t", "60", "start"], check=True, capture_output=True, cwd=root)  # fmt: skip
        yield f"postgresql://rpa@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, str(binary / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True, cwd=root)  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


def create_database(url: str, name: str) -> str:
    """A new empty database on the cluster of `url`; returns its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name


def drop_database(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
