"""Starting a replay: workflow IR steps -> planned action rows (with their resend policy).

Step params may hold ``{{name}}`` placeholders, filled from the start_replay params. A
``{{secret:<name>}}`` placeholder (a password typed while observed, never recorded) must be
given: a replay without it is refused, naming the parameter (``secret:mot_de_passe``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rpa_mcp.errors import InvalidInput
from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service.core import ReplayCore, new_id


class Planning(ReplayCore):
    def plan(self, steps: Sequence[Any], params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Workflow IR steps -> action rows (without replay id). Raises InvalidInput on a bad step."""
        actions: list[dict[str, Any]] = []
        missing: dict[str, list[int]] = {}
        for i, step in enumerate(steps):
            step_d = step.model_dump(mode="json") if hasattr(step, "model_dump") else dict(step)
            action_type = str(step_d.get("action_type") or "")
            if not action_type:
                raise InvalidInput(f"step {i} has no action_type", field=f"steps[{i}].action_type")
            target = step_d.get("target")
            if isinstance(target, str):
                target = {"label": target}
            step_params = _substitute(dict(step_d.get("params") or {}), params or {})
            for name in dict.fromkeys(_secret_placeholders(step_params)):
                missing.setdefault(name, []).append(int(step_d.get("index", i)))
            idempotent = bool(
                step_params.pop("idempotent", None)
                or action_type in m.IDEMPOTENT_ACTIONS
                or step_params.pop("verifiable", None)
            )
            server_side = action_type in m.SERVER_SIDE_ACTIONS and step_params.get("executor") != "agent"
            actions.append(
                {
                    "seq": float(i),
                    "step_index": int(step_d.get("index", i)),
                    "intent": step_d.get("intent"),
                    "action_type": action_type,
                    "target": target,
                    "params": step_params,
                    "expected": {
                        "window_before": step_d.get("expected_window_before"),
                        "window_after": step_d.get("expected_window_after"),
                        "expected_modals": step_d.get("expected_modals") or [],
                        "wait_after_ms": step_d.get("wait_after_ms") or 0,
                    },
                    "idempotent": int(idempotent),
                    "success_strict": int(bool(step_d.get("success_strict"))),
                    "server_side": int(server_side),
                    "max_resends": 0 if server_side else m.max_resends_for(action_type, self.config.max_resends),
                }
            )
        if not actions:
            raise InvalidInput("the workflow has no steps", field="competence")
        if missing:
            names = ", ".join(f"'{name}' (step {', '.join(map(str, where))})" for name, where in missing.items())
            raise InvalidInput(
                f"the workflow types a secret that was never recorded: give its value in params as {names}; "
                "it is sent only to the workstation",
                field=f"params.{next(iter(missing))}",
                missing_params=sorted(missing),
            )
        return actions

    async def start(
        self,
        *,
        steps: Sequence[Any],
        competence: str,
        version: int | None,
        machine_id: str | None,
        params: Mapping[str, Any] | None = None,
        created_by: str | None = None,
    ) -> str:
        planned = self.plan(steps, params)
        now = self.time.now()
        replay_id = new_id("rp_")
        rows = [
            ActionRow(
                **{**action, "replay_id": replay_id, "action_id": f"{replay_id[3:11]}-{i:03d}", "state": m.PENDING},
                updated_at=now,
            )
            for i, action in enumerate(planned)
        ]
        self.store.insert_replay(
            ReplayRow(
                replay_id=replay_id,
                competence=competence,
                version=version,
                machine_id=machine_id,
                state=m.RUNNING,
                params=dict(params or {}),
                variables=dict(params or {}),
                steps_total=len(rows),
                created_by=created_by,
                created_at=now,
                updated_at=now,
            ),
            rows,
        )
        m.log_event(
            "replay_started",
            replay_id=replay_id,
            competence=competence,
            version=version,
            machine_id=machine_id,
            steps=len(rows),
        )
        self._advance(replay_id)
        self._wake(machine_id)
        self._changed(replay_id)
        return replay_id


SECRET_PLACEHOLDER = re.compile(r"\{\{\s*(secret:[^{}\s]+)\s*\}\}")


def _secret_placeholders(value: Any) -> list[str]:
    """Names of the {{secret:...}} placeholders still in `value` (no value was given for them)."""
    if isinstance(value, str):
        return SECRET_PLACEHOLDER.findall(value)
    if isinstance(value, dict):
        return [name for v in value.values() for name in _secret_placeholders(v)]
    if isinstance(value, list):
        return [name for v in value for name in _secret_placeholders(v)]
    return []


def _substitute(params: dict[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    def sub(value: Any) -> Any:
        if isinstance(value, str):
            for key, val in values.items():
                value = value.replace("{{" + str(key) + "}}", str(val))
            return value
        if isinstance(value, dict):
            return {k: sub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [sub(v) for v in value]
        return value

    return {k: sub(v) for k, v in params.items()}
