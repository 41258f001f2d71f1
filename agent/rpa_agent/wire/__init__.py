"""The replay wire's JSON Schemas, shipped with the agent (copies of the server's docs/schemas).

One wire contract: the server generates these files (`python -m rpa_mcp.docs_gen` writes docs/schemas
and this folder; its `--check` and a server test fail when the two differ). The agent validates what
it receives and what it sends against them (`rpa_agent.core.wire`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

NAMES = (
    "replay-next-action",
    "replay-receipt",
    "replay-start",
    "replay-heartbeat",
    "replay-result",
    "replay-report-ack",
    "preflight-tree-question",
    "preflight-tree-answer",
    "resolve-target-request",
    "resolve-target-answer",
    "problem",
)


def file_names() -> list[str]:
    """The schema files of this folder ("replay-result.schema.json", ...)."""
    return [f"{name}.schema.json" for name in NAMES]


@cache
def _text(name: str) -> str:
    return resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")


def schema(name: str) -> dict[str, Any]:
    """The schema named `name` ("replay-result"): a fresh copy (a validator compiler may rewrite its refs)."""
    loaded: dict[str, Any] = json.loads(_text(name))
    return loaded
