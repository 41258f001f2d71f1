"""Verifying the chain: an edited row (MAC), a deleted or inserted row (ids, prev_mac), re-hashed
rows (no key, no valid MAC) and a deleted tail (a checkpoint names a row that is gone or differs)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

from rpa_mcp.store.audit.checkpoint import read_checkpoint
from rpa_mcp.store.audit.schema import GENESIS, legacy_hash, row_mac
from rpa_mcp.store.db import Database


@dataclass(frozen=True)
class AuditCheck:
    ok: bool
    rows: int
    first_bad_id: int | None = None
    reason: str = ""


def verify_chain(db: Database, key: bytes, paths: list[Path], *, required: bool) -> AuditCheck:
    """Check the whole chain, and that it reaches every checkpoint of `paths` (a missing file is a
    failure when `required`, else skipped)."""
    legacy = _verify_legacy(db)
    if not legacy.ok:
        return legacy
    prev, count, last_id = GENESIS, 0, 0
    macs: dict[int, str] = {}
    for row in db.query("SELECT * FROM audit ORDER BY id"):
        count += 1
        row_id = int(row["id"])
        if row_id != last_id + 1:
            return AuditCheck(False, count, row_id, f"row(s) {last_id + 1}..{row_id - 1} are missing")
        if row["prev_mac"] != prev:
            return AuditCheck(False, count, row_id, "chain broken: prev_mac does not match the row before")
        if not hmac.compare_digest(row_mac(key, prev, row_id, row), str(row["mac"])):
            return AuditCheck(False, count, row_id, "row content was edited (or re-hashed without the key)")
        prev, last_id = str(row["mac"]), row_id
        macs[row_id] = prev
    head = db.query_one("SELECT id, mac FROM audit_head WHERE one = 1")
    if head is not None and (int(head["id"]), str(head["mac"])) != (last_id, prev):
        return AuditCheck(False, count, last_id + 1, f"the chain ends at row {last_id}, its head says {head['id']}")
    for path in paths:
        try:
            point = read_checkpoint(key, path)
        except ValueError as exc:
            return AuditCheck(False, count, None, str(exc))
        if point is None:
            if required:
                return AuditCheck(False, count, None, f"checkpoint {path} does not exist")
            continue
        row_id, mac = point
        if row_id > last_id:
            return AuditCheck(False, count, last_id + 1, f"rows {last_id + 1}..{row_id} were deleted ({path})")
        if macs.get(row_id) != mac:
            return AuditCheck(False, count, row_id, f"row {row_id} differs from the checkpoint ({path})")
    return AuditCheck(True, count + legacy.rows)


def _verify_legacy(db: Database) -> AuditCheck:
    if db.dialect != "sqlite":
        return AuditCheck(True, 0)
    prev, count, expected_id = GENESIS, 0, None
    for row in db.query("SELECT * FROM audit_legacy ORDER BY id"):
        count += 1
        if expected_id is not None and row["id"] != expected_id:
            return AuditCheck(False, count, row["id"], f"legacy row(s) before id {row['id']} are missing")
        if row["prev_hash"] != prev or legacy_hash(prev, row) != row["hash"]:
            return AuditCheck(False, count, row["id"], "legacy row edited")
        prev, expected_id = row["hash"], row["id"] + 1
    return AuditCheck(True, count)
