"""JSON Schemas supplied by a caller (`expected.json_schema`) are data, never instructions to fetch or to backtrack.

- No reference is ever retrieved: the registry resolves only what the schema itself contains
  (`#/...` pointers, anchors, embedded `$id`s) and refuses retrieval of anything else, so a
  `$ref` to `http://...` or `file:///...` is a 422, as is a pointer to nowhere. Every
  reference is resolved here, before validation, so an unknown one never surfaces as a 500.
- Size (bytes of JSON) and nesting depth are bounded (RPA_MAX_SCHEMA_BYTES, RPA_MAX_SCHEMA_DEPTH).
- Every regular expression (`pattern`, `patternProperties`, the additional-properties test
  derived from them) runs on RE2, a linear-time engine that releases the GIL: a pattern such as
  `^(a+)+$` costs microseconds, never seconds, and cannot freeze the event loop. RE2 has no
  lookaround, no backreferences and no `\\Z`; a pattern using them is refused with a 422
  naming it. `unevaluatedProperties` next to `patternProperties` is refused too (the library
  would evaluate those patterns with Python's backtracking engine).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema
import re2
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema.exceptions import SchemaError, ValidationError

from rpa_mcp.errors import InvalidInput

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a refused pattern is the caller's 422, not a line on the server's stderr
_RE2_OPTIONS.never_capture = True  # only "does it match" is asked: the DFA, ~30x faster than with submatches


@dataclass(frozen=True)
class SchemaLimits:
    max_bytes: int = 65536
    max_depth: int = 32


def _refuse_retrieval(uri: str) -> referencing.Resource[Any]:
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class


def compile_caller_schema(
    schema: Any, limits: SchemaLimits = SchemaLimits(), *, field: str = "expected.json_schema"
) -> Any:
    """A validator for `schema` that fetches nothing and matches patterns in linear time; 422 otherwise."""
    if not isinstance(schema, dict | bool):
        raise InvalidInput(f"{field} must be a JSON object (or true/false)", field=field)
    size = len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode())
    if size > limits.max_bytes:
        raise InvalidInput(
            f"{field} is {size} bytes; the limit is {limits.max_bytes} (RPA_MAX_SCHEMA_BYTES)",
            field=field,
            max_bytes=limits.max_bytes,
        )
    if _depth(schema) > limits.max_depth:
        raise InvalidInput(
            f"{field} is nested deeper than {limits.max_depth} levels (RPA_MAX_SCHEMA_DEPTH)",
            field=field,
            max_depth=limits.max_depth,
        )
    base = _dialect(schema, field)
    try:
        base.check_schema(schema)
    except SchemaError as exc:
        raise InvalidInput(f"{field} is not a valid JSON Schema: {exc.message}", field=field) from None
    specification = referencing.jsonschema.specification_with(base.META_SCHEMA.get("$id", DRAFT_2020_12))
    root = specification.create_resource(schema)
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse_retrieval)  # type: ignore[call-arg]  # retrieve is a keyword of the attrs class
    registry = registry.with_resource(root.id() or "", root)
    patterns = _check_resources(root, registry.resolver(root.id() or ""), field)
    return _validator_class(base, patterns)(schema, registry=registry)


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _dialect(schema: Any, field: str) -> Any:
    if not isinstance(schema, dict) or "$schema" not in schema:
        return jsonschema.Draft202012Validator
    found = jsonschema.validators.validator_for(schema, default=None)
    if found is None or found is jsonschema.Draft3Validator:
        raise InvalidInput(
            f"{field}: $schema {str(schema['$schema'])[:120]!r} is not a dialect known here "
            "(drafts 4, 6, 7, 2019-09 and 2020-12 are; meta-schemas are never fetched)",
            field=field,
        )
    return found


def _walk(resource: referencing.Resource[Any], resolver: Any) -> Iterator[tuple[Any, Any]]:
    """Every subschema with the resolver in force where it sits (an embedded `$id` moves the base)."""
    stack = [(resource, resolver)]
    while stack:
        current, scope = stack.pop()
        if current.id() is not None and current is not resource:
            scope = scope.in_subresource(current)
        yield current.contents, scope
        stack.extend((sub, scope) for sub in current.subresources())


def _check_resources(root: referencing.Resource[Any], resolver: Any, field: str) -> dict[str, Any]:
    patterns: dict[str, Any] = {}
    pattern_properties = unevaluated = False
    for contents, where in _walk(root, resolver):
        if not isinstance(contents, dict):
            continue
        for keyword in ("$ref", "$dynamicRef"):
            ref = contents.get(keyword)
            if isinstance(ref, str):
                try:
                    where.lookup(ref)
                except referencing.exceptions.Unresolvable:
                    raise InvalidInput(
                        f"{field}: {keyword} {ref[:200]!r} does not point inside the schema; only local "
                        "references (#/..., anchors, embedded $id) are resolved, nothing is ever fetched",
                        field=field,
                        ref=ref[:200],
                    ) from None
        if isinstance(contents.get("pattern"), str):
            patterns[contents["pattern"]] = _compile(contents["pattern"], field)
        if isinstance(contents.get("patternProperties"), dict):
            pattern_properties = True
            keys = list(contents["patternProperties"])
            for key in keys:
                patterns[key] = _compile(key, field)
            if keys:
                patterns["|".join(keys)] = _compile("|".join(keys), field)
        unevaluated = unevaluated or "unevaluatedProperties" in contents
    if pattern_properties and unevaluated:
        raise InvalidInput(
            f"{field}: unevaluatedProperties together with patternProperties is not supported in caller schemas "
            "(those patterns would run on a backtracking engine); use additionalProperties instead",
            field=field,
        )
    return patterns


def _compile(pattern: str, field: str) -> Any:
    try:
        return re2.compile(pattern, options=_RE2_OPTIONS)
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise InvalidInput(
            f"{field}: pattern {pattern[:120]!r} is refused ({detail}); caller patterns run on a linear-time "
            "engine without lookaround, backreferences or \\Z",
            field=field,
            pattern=pattern[:120],
        ) from None


# --- the keywords that match regular expressions, on RE2 --------------------------------------------------
def _validator_class(base: Any, patterns: dict[str, Any]) -> Any:
    """`base` with its regex keywords on the patterns compiled above (a class per schema: ~0.5 ms)."""

    def search(pattern: str, text: str) -> bool:
        compiled = patterns.get(pattern)
        if compiled is None:  # every pattern of the schema was compiled above; anything else is refused
            raise InvalidInput(f"pattern {pattern[:120]!r} was not checked", pattern=pattern[:120])
        return compiled.search(text) is not None

    def pattern(validator: Any, value: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
        if validator.is_type(instance, "string") and not search(value, instance):
            yield ValidationError(f"{instance[:80]!r} does not match {value!r}")

    def pattern_properties(validator: Any, value: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for regex, subschema in value.items():
            for key, child in instance.items():
                if search(regex, key):
                    yield from validator.descend(child, subschema, path=key, schema_path=regex)

    def additional_properties(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        properties = schema.get("properties", {})
        joined = "|".join(schema.get("patternProperties", {}))
        extras = [k for k in instance if k not in properties and not (joined and search(joined, k))]
        if validator.is_type(value, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], value, path=extra)
        elif value is False and extras:
            listed = ", ".join(repr(k) for k in sorted(extras)[:20])
            yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")

    return jsonschema.validators.extend(
        base,
        {"pattern": pattern, "patternProperties": pattern_properties, "additionalProperties": additional_properties},
    )
