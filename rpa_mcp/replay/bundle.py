"""One evidence bundle per run: what happened at each step, and one digest that seals it.

Per action: its step (index, intent, class), how it went out (dispatches, resends), the phase
timings (resolve, inject, settle as the agent measured them; identity, the server's reading of the
record's identity inside the resolve, as the agent relays it; validate as the server did), the
verdict with each checker's finding (the text read back after typing among them), and the
before/after crops by reference (label, box, SHA-256 of the PNG, where to fetch it).
The bundle is built from the stored rows only, in a canonical form: built again later it gives
the same bytes, so its SHA-256, recorded in the audit chain when the run ends, shows any
later change to the rows it was built from. A declared read-back's result joins the bundle once
it is known, and the new digest is recorded in the chain with it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from rpa_mcp.replay.outcomes import ReplayOutcome, step_class
from rpa_mcp.replay.rows import ActionRow, ReplayRow

BUNDLE_VERSION = 1
AGENT_PHASES = ("resolve", "identity", "inject", "settle")


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def digest(bundle: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(bundle)).hexdigest()


def build_bundle(replay: ReplayRow, actions: Sequence[ActionRow], outcome: ReplayOutcome) -> dict[str, Any]:
    bundle = {
        "bundle_version": BUNDLE_VERSION,
        "replay_id": replay.replay_id,
        "competence": replay.competence,
        "version": replay.version,
        "machine_id": replay.machine_id,
        "created_by": replay.created_by,
        "created_at": replay.created_at,
        "finished_at": replay.finished_at,
        "state": replay.state,
        "outcome": outcome.word,
        "steps_total": replay.steps_total,
        "steps_done": outcome.steps_done,
        "irreversible_sent": [e.as_dict() for e in outcome.effects],
        "unverified_steps": outcome.unverified,
        "uncheckable_steps": outcome.uncheckable,
        "steps": [_step(replay.replay_id, a) for a in actions],
    }
    if replay.readback_result is not None:  # absent until read back: a bundle sealed before keeps its digest
        bundle["readback"] = replay.readback_result
    return bundle


def _step(replay_id: str, a: ActionRow) -> dict[str, Any]:
    verdict = a.verdict if isinstance(a.verdict, dict) else {}
    result = a.result if isinstance(a.result, dict) else {}
    found = result.get("phases_ms")
    agent_phases: dict[str, Any] = found if isinstance(found, dict) else {}
    phases = {k: agent_phases.get(k) for k in AGENT_PHASES}
    phases["validate"] = verdict.get("duration_ms")
    checkers = [c for c in verdict.get("evidence") or [] if isinstance(c, dict)]
    typed = None
    if a.action_type == "type_text":
        secret = bool(a.params.get("secret"))
        typed = {
            "expected": None if secret else a.params.get("text"),
            "read_back": None if secret else next((c.get("read") for c in checkers if c.get("read")), None),
        }
    return {
        "action_id": a.action_id,
        "index": a.step_index,
        "intent": a.intent,
        "action_type": a.action_type,
        "step_class": step_class(a),
        "origin": a.origin,
        "state": a.state,
        "outcome": a.outcome,
        "dispatches": a.dispatches,
        "resends": a.resends,
        "executed": result.get("executed"),
        "agent_error": a.error,
        "warning": a.warning,
        "point": result.get("actual_position"),
        "window_title_before": result.get("window_title_before"),
        "window_title_after": result.get("window_title"),
        "phases_ms": phases,
        "verdict": {k: verdict.get(k) for k in ("verdict", "failure_category", "confidence", "reason")},
        "checkers": checkers,
        "typed": typed,
        "crops": [_crop(replay_id, a.action_id, n, c) for n, c in enumerate(a.evidence or []) if isinstance(c, dict)],
    }


def _crop(replay_id: str, action_id: str, n: int, crop: dict[str, Any]) -> dict[str, Any]:
    data = crop.get("data_base64")
    sha = hashlib.sha256(base64.b64decode(data)).hexdigest() if isinstance(data, str) else None
    return {
        "label": crop.get("label"),
        "bbox": crop.get("bbox"),
        "sha256": sha,
        "href": f"/console/replays/{replay_id}/crops/{action_id}/{n}",
    }
