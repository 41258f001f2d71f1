"""Find what in a value cannot be kept as JSON in an audit row (NaN, infinities, odd keys)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 200


@dataclass(frozen=True)
class Unauditable:
    path: str
    problem: str


def unauditable(value: Any, path: str = "(arguments)") -> Unauditable | None:
    """The first place in `value` that JSON cannot carry faithfully, or None."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return Unauditable(where, f"{item!r} is not a JSON number")
        elif isinstance(item, dict):
            if depth >= MAX_DEPTH:
                return Unauditable(where, f"nested deeper than {MAX_DEPTH} levels")
            for key, sub in item.items():
                if not isinstance(key, str):
                    return Unauditable(where, f"key {key!r} is not a string")
                stack.append((sub, key if where == "(arguments)" else f"{where}.{key}", depth + 1))
        elif isinstance(item, list | tuple):
            if depth >= MAX_DEPTH:
                return Unauditable(where, f"nested deeper than {MAX_DEPTH} levels")
            stack.extend((sub, f"{where}[{i}]", depth + 1) for i, sub in enumerate(item))
    return None
