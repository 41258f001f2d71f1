"""Canonical JSON and its sha256: what a confirmation token binds to."""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from typing import Any


def canonicalize(value: Any) -> Any:
    """NFC strings, integral floats as ints, -0.0 as 0, sorted keys; NaN/inf refused."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("NaN and infinite numbers cannot be confirmed")
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {unicodedata.normalize("NFC", str(k)): canonicalize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonicalize(v) for v in value]
    raise TypeError(f"cannot canonicalize {type(value).__name__}")


def canonical_json(value: Any) -> str:
    return json.dumps(canonicalize(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
