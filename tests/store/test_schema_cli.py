"""`rpa-mcp db upgrade` on either backend, and a server that refuses an older schema."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rpa_mcp.bootstrap import build_services
from rpa_mcp.settings import Settings
from rpa_mcp.store import migrations
from rpa_mcp.store.db import Migrations, SchemaOutdated, open_database
from rpa_mcp.testing import FakeClock, FakeOcr

SECRET = "schema-secret-key-that-is-long-enough-0123456789"


@pytest.fixture(params=["sqlite", "postgres"])
def env(request, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RPA_")}
    env |= {"RPA_DATA_DIR": str(tmp_path / "data"), "RPA_JWT_SECRET": SECRET, "RPA_AUDIT_KEY": "a" * 40}
    if request.param == "postgres":
        env["RPA_STORE_URL"] = request.getfixturevalue("pg_url")
    return env


def _settings(env: dict[str, str]) -> Settings:
    return Settings(
        data_dir=env["RPA_DATA_DIR"], jwt_secret=SECRET, audit_key=env["RPA_AUDIT_KEY"],
        store_url=env.get("RPA_STORE_URL"),
    )  # fmt: skip


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rpa_mcp", *args], env=env, capture_output=True, text=True)


def _older_release(settings: Settings) -> None:
    """A database as the previous release left it: every area but traces (no `rev` yet) and
    coordination (did not exist)."""
    db = open_database(settings, auto_upgrade=True)
    for area, steps in migrations.AREAS.items():
        if area == "traces":
            db.migrate(area, Migrations(sqlite=steps.sqlite[:2], postgres=steps.postgres[:2]))
        elif area != "coordination":
            db.migrate(area, steps)
    db.close()


def test_a_server_refuses_an_older_schema_until_db_upgrade_ran(env):
    settings = _settings(env)
    _older_release(settings)
    with pytest.raises(SchemaOutdated) as refused:
        build_services(settings, clock=FakeClock(), ocr=FakeOcr())
    assert "rpa-mcp db upgrade" in refused.value.message
    assert refused.value.details["areas"] == ["coordination", "traces"]
    status = _cli(env, "db", "status")
    assert status.returncode == 1 and "traces: database 2, code 3" in status.stdout
    done = _cli(env, "db", "upgrade")
    assert done.returncode == 0, done.stderr
    assert "traces: 2 -> 3" in done.stdout and "schema up to date" in done.stdout
    assert _cli(env, "db", "upgrade").stdout.strip().endswith("(nothing to do)")
    services = build_services(settings, clock=FakeClock(), ocr=FakeOcr())
    assert services.db.ping()
    services.db.close()
    assert _cli(env, "audit", "verify").returncode == 0


def test_a_store_url_of_another_kind_is_refused_by_name(tmp_path):
    from rpa_mcp.auth.keys import ConfigurationError

    with pytest.raises(ConfigurationError) as refused:
        open_database(Settings(data_dir=tmp_path, store_url="mysql://x"))
    assert refused.value.details["field"] == "RPA_STORE_URL"


def test_postgres_without_a_shared_audit_key_is_refused(pg_url, tmp_path):
    from rpa_mcp.auth.keys import ConfigurationError

    with pytest.raises(ConfigurationError, match="RPA_AUDIT_KEY"):
        build_services(
            Settings(data_dir=tmp_path, jwt_secret=SECRET, store_url=pg_url), clock=FakeClock(), ocr=FakeOcr()
        )


def test_replicas_without_a_configured_signing_key_share_the_one_in_the_database(pg_url, tmp_path):
    make = [
        build_services(
            Settings(data_dir=tmp_path / f"r{i}", audit_key="a" * 40, store_url=pg_url),
            clock=FakeClock(),
            ocr=FakeOcr(),
        )
        for i in range(2)
    ]
    token = make[0].access_tokens.mint("alice", ["viewer"])
    assert make[1].access_tokens.verify(token) is not None
    for services in make:
        services.db.close()
