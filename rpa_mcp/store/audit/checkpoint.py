"""The chain's head written outside the database (its own file and fsync), MACed with the audit key.

It detects a deleted tail: rows chained since the last checkpoint are protected by the chain and
the head row alone until the next one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
from pathlib import Path

logger = logging.getLogger(__name__)
CHECKPOINT_FILE = "audit.head"


def _checkpoint_mac(key: bytes, row_id: int, mac: str) -> str:
    return hmac.new(key, f"checkpoint|{row_id}|{mac}".encode(), hashlib.sha256).hexdigest()


def write_checkpoint(key: bytes, path: Path, row_id: int, mac: str) -> None:
    """Replace the checkpoint with (row_id, mac), unless another writer of the file is ahead."""
    body = json.dumps({"id": row_id, "mac": mac, "check": _checkpoint_mac(key, row_id, mac)})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        current = read_checkpoint(key, path)
        if current is not None and current[0] >= row_id:
            return  # another writer of this file (a replica sharing it) is ahead
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        logger.error("audit checkpoint %s not written: %r", path, exc)


def read_checkpoint(key: bytes, path: Path) -> tuple[int, str] | None:
    """(row_id, mac) of the checkpoint, None when there is none; ValueError when unreadable or foreign."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ValueError(f"checkpoint {path} is unreadable: {exc}") from exc
    row_id, mac = int(data["id"]), str(data["mac"])
    if not hmac.compare_digest(str(data.get("check", "")), _checkpoint_mac(key, row_id, mac)):
        raise ValueError(f"checkpoint {path} was not written with this audit key")
    return row_id, mac
