"""Secrets never leave in results or audit rows."""

from __future__ import annotations

import json
import re
from typing import Any

SECRET_KEYS = re.compile(
    r"(pass(word)?|secret|api[_-]?key|authorization|cookie|private[_-]?key|credential|jwt_secret)", re.I
)
SECRET_VALUES = [
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{12,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),  # JWTs
    re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}\b"),  # API keys
]
REDACTED = "[redacted]"
KEEP_KEYS = frozenset({"token"})  # a confirmation token is meant for the caller


def _is_flag(value: Any) -> bool:
    """`"secret": true` or `"is_password": false` says what a field is; it holds no secret."""
    return isinstance(value, bool) or value is None


def redact_text(text: str) -> str:
    for pattern in SECRET_VALUES:
        text = pattern.sub(REDACTED, text)
    return text


def redact(value: Any, *, key: str = "") -> Any:
    if key and SECRET_KEYS.search(key) and key not in KEEP_KEYS and not _is_flag(value):
        return REDACTED
    if isinstance(value, dict):
        return {k: redact(v, key=str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str) and key not in KEEP_KEYS:
        return redact_text(value)
    return value


def summarize_args(args: Any, *, max_len: int = 400) -> str:
    """A short, redacted view of arguments for the audit log (images reduced to their size)."""

    def shrink(value: Any, key: str = "") -> Any:
        if key and SECRET_KEYS.search(key) and not _is_flag(value):
            return REDACTED
        if isinstance(value, dict):
            return {k: shrink(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [shrink(v) for v in value[:10]] + ([f"... +{len(value) - 10}"] if len(value) > 10 else [])
        if isinstance(value, str):
            if key == "token" or len(value) > 120:
                return f"<{len(value)} chars>"
            return redact_text(value)
        return value

    text = json.dumps(shrink(args), ensure_ascii=False, default=str)
    return text if len(text) <= max_len else text[: max_len - 3] + "..."
