"""Signing keys: from RPA_JWT_SECRET (comma-separated, first signs, all verify) or a key file.

A key shorter than 32 bytes refuses to start. Without a configured secret, a random key is
created once under the data dir with file mode 0600.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from rpa_mcp.errors import ConfigurationError
from rpa_mcp.settings import Settings

MIN_KEY_BYTES = 32
KEY_FILE = "signing.key"


def load_signing_keys(settings: Settings) -> list[bytes]:
    if settings.jwt_secret is not None:
        keys = [k.strip().encode() for k in settings.jwt_secret.get_secret_value().split(",") if k.strip()]
        if not keys:
            raise ConfigurationError("RPA_JWT_SECRET is empty")
    else:
        keys = [_key_file(settings.data_dir / KEY_FILE)]
    for i, key in enumerate(keys):
        if len(key) < MIN_KEY_BYTES:
            raise ConfigurationError(
                f"signing key #{i + 1} is {len(key)} bytes; at least {MIN_KEY_BYTES} are required "
                "(generate one with: python -c 'import secrets; print(secrets.token_urlsafe(48))')"
            )
    return keys


def _key_file(path: Path) -> bytes:
    if path.exists():
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        return path.read_bytes().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
        f.flush()
        os.fsync(f.fileno())
    return key
