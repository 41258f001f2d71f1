"""Every area's schema steps, for `rpa-mcp db upgrade` and the start-up check."""

from __future__ import annotations

from rpa_mcp.errors import SchemaOutdated
from rpa_mcp.store import (
    audit,
    competences,
    confirmations,
    console,
    coordination,
    replay_schema,
    revocations,
    sign_in_failures,
    traces,
    web_sessions,
)
from rpa_mcp.store.db import Database, Migrations

AREAS: dict[str, Migrations] = {
    "audit": audit.MIGRATIONS,
    "confirmations": confirmations.MIGRATIONS,
    "web": web_sessions.MIGRATIONS,
    "traces": traces.MIGRATIONS,
    "replay": replay_schema.MIGRATIONS,
    "coordination": coordination.MIGRATIONS,
    "competences": competences.MIGRATIONS,
    "console-logins": console.MIGRATIONS,
    "console-tokens": console.TOKEN_MIGRATIONS,
    "sign-in-failures": sign_in_failures.MIGRATIONS,
    "token-revocations": revocations.MIGRATIONS,
}


def pending(db: Database) -> dict[str, tuple[int, int]]:
    """Areas whose schema differs from the code's: area -> (database version, code version)."""
    versions = db.versions()
    out = {}
    for area, migrations in AREAS.items():
        have, need = versions.get(area, 0), len(migrations.steps(db.dialect))
        if have != need:
            out[area] = (have, need)
    return out


def upgrade(db: Database) -> dict[str, tuple[int, int]]:
    """Apply every pending step; returns what changed (area -> (from, to))."""
    before = pending(db)
    auto, db.auto_upgrade = db.auto_upgrade, True
    try:
        for area, migrations in AREAS.items():
            db.migrate(area, migrations)
    finally:
        db.auto_upgrade = auto
    return before


def require_current(db: Database) -> None:
    """Refuse to serve on a schema older or newer than the code (a new, empty database is set up)."""
    if db.auto_upgrade:
        upgrade(db)
        return
    todo = pending(db)
    if todo:
        listed = ", ".join(f"{area} {have} -> {need}" for area, (have, need) in sorted(todo.items()))
        newer = [area for area, (have, need) in todo.items() if have > need]
        if newer:
            raise SchemaOutdated(
                f"the database schema is newer than this server ({listed}): run the newer server version",
                areas=sorted(todo),
            )
        raise SchemaOutdated(
            f"the database schema is older than this server ({listed}): run `rpa-mcp db upgrade` "
            "with the same RPA_STORE_URL / RPA_DATA_DIR, then start again",
            areas=sorted(todo),
        )
