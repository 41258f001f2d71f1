"""The audit key: `RPA_AUDIT_KEY`, or a random key kept in the data folder. It never enters the database."""

from __future__ import annotations

from pathlib import Path

MIN_KEY_BYTES = 32
KEY_FILE = "audit.key"


def load_audit_key(secret: str | None, data_dir: Path) -> bytes:
    """`RPA_AUDIT_KEY`, or a random key created once as `data_dir/audit.key` (mode 0600)."""
    if secret is not None:
        key = secret.strip().encode()
    else:
        from rpa_mcp.auth.keys import _key_file

        key = _key_file(data_dir / KEY_FILE)
    if len(key) < MIN_KEY_BYTES:
        from rpa_mcp.errors import ConfigurationError

        raise ConfigurationError(f"the audit key is {len(key)} bytes; at least {MIN_KEY_BYTES} are required")
    return key
