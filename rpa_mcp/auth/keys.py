"""Signing keys: from RPA_JWT_SECRET (comma-separated, first signs, all verify) or a key file.

A key shorter than 32 bytes refuses to start. Without a configured secret, a random key is
created once under the data dir with file mode 0600 (by the server's first start, or by
`rpa-mcp token --init`); `key_source()` says which key is used, for people to check that a
token and the server agree.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Sequence
from pathlib import Path

from rpa_mcp.errors import ConfigurationError
from rpa_mcp.settings import Settings

MIN_KEY_BYTES = 32
KEY_FILE = "signing.key"


def key_path(settings: Settings) -> Path:
    return settings.data_dir / KEY_FILE


def fingerprint(key: bytes) -> str:
    """A short public name for a key (the first 12 hex digits of its SHA-256): safe to print."""
    return hashlib.sha256(key).hexdigest()[:12]


def key_source(settings: Settings, keys: Sequence[bytes]) -> str:
    """Where the signing key comes from, in words, with its fingerprint (never the key)."""
    where = "RPA_JWT_SECRET" if settings.jwt_secret is not None else str(key_path(settings).resolve())
    return f"{where} (fingerprint {fingerprint(keys[0])})"


def load_signing_keys(settings: Settings, *, create: bool = True) -> list[bytes]:
    """The signing keys; without RPA_JWT_SECRET, the key file of the data folder.

    `create=False` refuses (ConfigurationError) when that file does not exist yet: a command run
    in the wrong folder must not make a key of its own and mint tokens the server refuses.
    """
    if settings.jwt_secret is not None:
        keys = [k.strip().encode() for k in settings.jwt_secret.get_secret_value().split(",") if k.strip()]
        if not keys:
            raise ConfigurationError("RPA_JWT_SECRET is empty")
    else:
        path = key_path(settings)
        if not create and not path.exists():
            raise ConfigurationError(
                f"no signing key in {settings.data_dir.resolve()} (no {KEY_FILE}, no RPA_JWT_SECRET): run this in "
                "the server's folder, set RPA_DATA_DIR or RPA_JWT_SECRET as the server has them, or pass --init "
                "to create a new key there",
                data_dir=str(settings.data_dir),
            )
        keys = [_key_file(path)]
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
