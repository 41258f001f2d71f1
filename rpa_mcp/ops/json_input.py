"""Strict JSON at every door: what a client sends is refused with a 400 naming the problem, never a 500.

Python's `json` accepts things no other JSON parser agrees on and that break later steps:
`NaN`/`Infinity` (not JSON; they fail the audit row and every JSON consumer), integers of
thousands of digits (Python refuses to convert them past 4300 digits: a `ValueError`),
nesting thousands deep (a `RecursionError` here or in any recursive walker downstream),
invalid UTF-8 and lone surrogate escapes (`"\\ud800"`: a `str` that cannot be stored or
encoded again), and duplicate keys (the last one silently wins). `loads()` refuses all of
them; `check()` applies the same rules to a value that is already decoded (arguments handed
to `dispatch()` by the MCP SDK or by an in-process agent loop).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from rpa_mcp.errors import MalformedJson

MAX_NUMBER_CHARS = 100  # a float literal longer than this is not a measurement, it is an attack


@dataclass(frozen=True)
class JsonLimits:
    max_depth: int = 64
    max_int_digits: int = 32


class _Refused(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number (NaN and Infinity are not allowed)")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"the key {key[:80]!r} appears twice in one object")
        out[key] = value
    return out


def loads(raw: bytes | str, limits: JsonLimits, *, where: str = "(body)") -> Any:
    """Decode JSON text strictly (UTF-8, finite numbers, bounded integers and depth, unique keys)."""
    if isinstance(raw, bytes | bytearray):
        try:
            text = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedJson(
                f"{where}: not valid UTF-8 (byte {exc.start} is {raw[exc.start : exc.start + 1]!r}); "
                "send the body encoded as UTF-8",
                field=where,
                position=exc.start,
            ) from None
    else:
        text = raw

    def parse_int(literal: str) -> int:
        digits = len(literal) - literal.startswith("-")
        if digits > limits.max_int_digits:
            raise _Refused(f"an integer of {digits} digits is over the limit of {limits.max_int_digits} digits")
        return int(literal)

    def parse_float(literal: str) -> float:
        if len(literal) > MAX_NUMBER_CHARS:
            raise _Refused(f"a number of {len(literal)} characters is over the limit of {MAX_NUMBER_CHARS}")
        value = float(literal)
        if not math.isfinite(value):
            raise _Refused(f"the number {literal[:40]} is out of range for a 64-bit float")
        return value

    decoder = json.JSONDecoder(
        parse_int=parse_int, parse_float=parse_float, parse_constant=_refuse_constant, object_pairs_hook=_object
    )
    try:
        value = decoder.decode(text)
    except RecursionError:
        raise _too_deep(where, limits) from None
    except _Refused as exc:
        raise MalformedJson(f"{where}: {exc}", field=where) from None
    except json.JSONDecodeError as exc:
        raise MalformedJson(
            f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            field=where,
            position=exc.pos,
        ) from None
    if not _checked_while_decoding(raw, text, limits):
        check(value, limits, where=where)
    return value


def _checked_while_decoding(raw: bytes | str, text: str, limits: JsonLimits) -> bool:
    """Whether decoding alone applied every rule, so `check()` has nothing left to find.

    The decoder's hooks refuse NaN, long numbers and duplicate keys. What remains is depth and
    lone surrogates: text that opens no more containers than the depth limit cannot nest
    deeper, and text decoded from valid UTF-8 holds a surrogate only through a `\\u` escape.
    """
    if not isinstance(raw, bytes | bytearray) or "\\u" in text:
        return False
    return text.count("{") + text.count("[") <= limits.max_depth


def check(value: Any, limits: JsonLimits, *, where: str = "(arguments)") -> None:
    """The same rules on a decoded value; iterative, so any depth is measured without recursing."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > limits.max_depth:
                raise _too_deep(where, limits)
            for key, child in item.items():
                if isinstance(key, str):
                    _check_text(key, where)
                stack.append((child, depth + 1))
        elif isinstance(item, list | tuple):
            if depth > limits.max_depth:
                raise _too_deep(where, limits)
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            _check_text(item, where)
        elif isinstance(item, float) and not math.isfinite(item):
            raise MalformedJson(f"{where}: {item} is not a JSON number (NaN and Infinity are not allowed)", field=where)
        elif isinstance(item, int) and _too_many_digits(item, limits.max_int_digits):
            raise MalformedJson(f"{where}: an integer is over the limit of {limits.max_int_digits} digits", field=where)


def _too_many_digits(value: int, max_digits: int) -> bool:
    # bit_length first: the exact power-of-ten comparison runs only for the rare large ones
    return value.bit_length() > 3 * max_digits and abs(value) >= 10**max_digits


def _check_text(text: str, where: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MalformedJson(
            f"{where}: a string holds a lone surrogate ({text[exc.start]!r}), which is not valid Unicode",
            field=where,
        ) from None


def _too_deep(where: str, limits: JsonLimits) -> MalformedJson:
    return MalformedJson(
        f"{where}: JSON nested deeper than {limits.max_depth} levels", field=where, max_depth=limits.max_depth
    )


def limits_of(settings: Any) -> JsonLimits:
    """The configured limits (RPA_MAX_JSON_DEPTH, RPA_MAX_JSON_INT_DIGITS)."""
    return JsonLimits(max_depth=settings.max_json_depth, max_int_digits=settings.max_json_int_digits)
