"""The collaborators the engine gets when nothing is configured: they refuse with what to set.

A `t2a_decision` step then pauses its replay (SERVER_ACTION_FAILED) with the reason, and the
target resolver records why the `vlm` method was not tried and goes on with the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rpa_mcp.errors import Unavailable
from rpa_mcp.replay.ports import RecordUnreadable

NO_MODEL = "no language model is configured: set RPA_LLM_URL"
NO_VISION_MODEL = "no vision model is configured: set RPA_VLM_URL"


class NoVlmLocator:
    """`VlmLocator` when no grounding model is configured."""

    def locate(self, image: np.ndarray, target: dict[str, Any]) -> tuple[int, int, float, str] | None:
        raise Unavailable(NO_VISION_MODEL)


class NoServerActionRunner:
    """`ServerActionRunner` when no language model is configured (extract_text needs none)."""

    def run(self, action_type: str, params: dict[str, Any], variables: dict[str, Any]) -> Any:
        raise Unavailable(f"{action_type} cannot run: {NO_MODEL}")


__all__ = ["NO_MODEL", "NO_VISION_MODEL", "NoServerActionRunner", "NoVlmLocator"]


class NoRecordReader:
    """`RecordReader` when no read-back channel is wired: every read-back fails (the run stays completed)."""

    def get_json(self, url: str, *, timeout_s: float) -> Any:
        raise RecordUnreadable("no read-back channel is configured on this server")


class RunNow:
    """`Background` that runs the job at once (tests, one-shot tools); the server runs it on a thread."""

    def submit(self, job: Callable[[], None]) -> None:
        job()
