"""What a server-side step produced, shaped and checked against the step's JSON Schema.

`extract_text` reads text off the screen; a step may say how to turn it into data
(`params.pattern`: a regular expression, run on RE2; its named groups make an object) and what
the data must look like (`params.json_schema`, compiled like every caller schema: nothing
fetched, patterns in linear time). A `t2a_decision`'s answer is checked the same way. A
mismatch is an `InvalidInput` naming the problem: the replay pauses with it.
"""

from __future__ import annotations

from typing import Any

import re2

from rpa_mcp.errors import InvalidInput
from rpa_mcp.validation.caller_schema import SchemaLimits, compile_caller_schema

MAX_PATTERN_CHARS = 1000


def shape_extracted(text: str, params: dict[str, Any]) -> Any:
    """The step's output: the text read, or what `params.pattern` takes out of it."""
    pattern = params.get("pattern")
    if not pattern:
        return text
    if not isinstance(pattern, str) or len(pattern) > MAX_PATTERN_CHARS:
        raise InvalidInput(f"params.pattern must be a string of at most {MAX_PATTERN_CHARS} characters",
                           field="params.pattern")  # fmt: skip
    try:
        compiled = re2.compile(pattern)
    except re2.error as exc:
        raise InvalidInput(f"params.pattern does not compile on RE2: {exc}", field="params.pattern") from None
    match = compiled.search(text)
    if match is None:
        raise InvalidInput(f"the text read ({text[:120]!r}) does not match params.pattern", field="params.pattern")
    groups = match.groupdict()
    if groups:
        return {name: value for name, value in groups.items() if value is not None}
    return match.group(0)


def check_output(output: Any, schema: Any, limits: SchemaLimits | None = None, *, what: str = "the output") -> None:
    """Raise InvalidInput when `output` does not satisfy `schema` (None: nothing to check)."""
    if schema is None:
        return
    validator = compile_caller_schema(schema, limits or SchemaLimits(), field="params.json_schema")
    errors = sorted(validator.iter_errors(output), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(root)"
        raise InvalidInput(
            f"{what} does not match the step's JSON Schema at {where}: {first.message[:200]}",
            field="params.json_schema",
            problems=len(errors),
        )
