"""Starting a replay: workflow IR steps -> planned action rows (with their resend policy).

Step params, targets, expected window titles, post-conditions (``expected_outcome``) and a record's
``identity`` may hold ``{{name}}`` placeholders, filled from the start_replay params (a title never
takes a secret: titles are shown and logged). A step's identity goes into its target as
``identity`` and ``identity_values`` (the run's values that must be read on the record's line); a
record the run's values name only in part (``identity_partial``: the demonstrated first name no
parameter stands for) that no person validated keeps ``identity_partial`` in its target: the resolver
never places it, so the run pauses before that click for a person to choose the record.
A ``{{secret:<name>}}`` placeholder (a password typed while observed, never recorded)
must be given: a replay without it is refused, naming the parameter (``secret:mot_de_passe``).
So must every parameter the workflow declares (``parameters: [{name, type, required}]``), with
a value of its type; a value for a parameter it does not declare is refused too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rpa_mcp.errors import InvalidInput
from rpa_mcp.replay import model as m
from rpa_mcp.replay.readback import plan as readback_plan
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service.core import ReplayCore, new_id
from rpa_mcp.replay.service.preflight import OBSERVE, OBSERVED_ORIGIN
from rpa_mcp.replay.start_window import leading_run, own_templates, step_titles
from rpa_mcp.replay.tree_fallback import QUESTION, tree_question
from rpa_mcp.shadow.classes import step_class_of


class Planning(ReplayCore):
    def plan(
        self,
        steps: Sequence[Any],
        params: Mapping[str, Any] | None = None,
        declared: Sequence[Mapping[str, Any]] = (),
    ) -> list[dict[str, Any]]:
        """Workflow IR steps -> action rows (without replay id). Raises InvalidInput on a bad step or parameter."""
        check_parameters(declared, params or {})
        actions: list[dict[str, Any]] = []
        missing: dict[str, list[int]] = {}
        titles: list[Any] = []  # the workflow's own windows, before this run's values fill them
        for i, step in enumerate(steps):
            step_d = step.model_dump(mode="json") if hasattr(step, "model_dump") else dict(step)
            titles += step_titles(step_d)
            action_type = str(step_d.get("action_type") or "")
            if not action_type:
                raise InvalidInput(f"step {i} has no action_type", field=f"steps[{i}].action_type")
            target = step_d.get("target")
            if isinstance(target, str):
                target = {"label": target}
            if isinstance(target, dict):  # a row chosen by its label; never a secret (targets are shown)
                target = _substitute(target, {k: v for k, v in (params or {}).items() if not k.startswith("secret:")})
            if step_d.get("identity"):  # a record chosen by who it is: compared before the click
                target = {
                    **(target if isinstance(target, dict) else {}),
                    **record_identity(step_d["identity"], params or {}),
                }
                if step_d.get("identity_partial") and not step_d.get("identity_confirmed"):
                    # chosen by part of who it is and no person accepted that: never clicked unattended
                    target["identity_partial"] = [str(w) for w in step_d["identity_partial"]]
            step_params = _substitute(dict(step_d.get("params") or {}), params or {})
            if _secret_placeholders(step_d.get("params") or {}):  # it types a secret, flagged or not: hidden, scrubbed
                step_params["secret"] = True
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
                        "window_before": _title(step_d.get("expected_window_before"), params or {}),
                        "window_after": _title(step_d.get("expected_window_after"), params or {}),
                        "text": _title((step_d.get("expected") or {}).get("text"), params or {}),
                        "expected_modals": step_d.get("expected_modals") or [],
                        "outcome": _outcome(step_d.get("expected_outcome"), params or {}),
                        "wait_after_ms": step_d.get("wait_after_ms") or 0,
                        "step_class": step_class_of(step_d),
                        "uncheckable": bool(step_d.get("uncheckable")),
                    },
                    "idempotent": int(idempotent),
                    "success_strict": int(bool(step_d.get("success_strict"))),
                    "server_side": int(server_side),
                    "max_resends": 0 if server_side else m.max_resends_for(action_type, self.config.max_resends),
                }
            )
        if not actions:
            raise InvalidInput("the workflow has no steps", field="competence")
        _mark_typed_fields(actions)
        leading = leading_run(actions)
        if leading:  # its search may begin on another of the workflow's own windows (start_window.py)
            actions[leading[0]]["expected"]["start_windows"] = own_templates(titles)
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
        declared: Sequence[Mapping[str, Any]] = (),
        readback: Mapping[str, Any] | None = None,
        observe_first: bool = False,
    ) -> str:
        """Insert the replay and its actions; `observe_first` (the preflight's answer when the workstation's
        last screen is not recent) begins it with an observation the first step is checked against."""
        planned = self.plan(steps, params, declared)
        # The competence's read-back, with this run's values; a URL outside the allow-list is refused now.
        checked = readback_plan(readback, params or {}, self.config.readback_urls) if readback else None
        now = self.time.now()
        replay_id = new_id("rp_")
        rows = [
            ActionRow(
                **{**action, "replay_id": replay_id, "action_id": f"{replay_id[3:11]}-{i:03d}", "state": m.PENDING},
                updated_at=now,
            )
            for i, action in enumerate(planned)
        ]
        if observe_first:
            rows.insert(0, _observation(replay_id, planned, self.config.max_resends, now))
        self.store.insert_replay(
            ReplayRow(
                replay_id=replay_id,
                competence=competence,
                version=version,
                machine_id=machine_id,
                state=m.RUNNING,
                params=dict(params or {}),
                variables=dict(params or {}),
                steps_total=len(planned),
                created_by=created_by,
                created_at=now,
                updated_at=now,
                readback=checked,
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


def _observation(replay_id: str, planned: Sequence[Mapping[str, Any]], max_resends: int, now: float) -> ActionRow:
    """A screenshot of the workstation, no input: the first desktop step is checked against it before it is sent.
    It asks the agent whether the window's accessibility tree names the first step's control (when the tree may
    stand in for it: `rpa_mcp.replay.tree_fallback`), for a target OCR may not read."""
    first = next((a for a in planned if not a["server_side"]), planned[0])
    question = tree_question(first) if not first["server_side"] else None
    return ActionRow(
        replay_id=replay_id,
        action_id=f"{replay_id[3:11]}-obs",
        seq=-1.0,
        step_index=int(first["step_index"]),
        intent="Observe the workstation's screen before the first input",
        action_type=OBSERVE,
        target=None,
        params={QUESTION: question} if question else {},
        expected={"step_class": "navigation", "window_before": None, "window_after": None, "outcome": None},
        idempotent=1,
        max_resends=max_resends,
        origin=OBSERVED_ORIGIN,
        state=m.PENDING,
        updated_at=now,
    )


SECRET_PLACEHOLDER = re.compile(r"\{\{\s*(secret:[^{}\s]+)\s*\}\}")
DATE_VALUE = re.compile(r"^\d{1,4}([/.-])\d{1,2}\1\d{1,4}$")


def check_parameters(declared: Sequence[Mapping[str, Any]], given: Mapping[str, Any]) -> None:
    """Every required declared parameter is given, with a value of its type; nothing undeclared is."""
    if not declared:
        return
    names = [str(p.get("name")) for p in declared]
    for p in declared:
        name, kind = str(p.get("name")), p.get("type", "string")
        value = given.get(name)
        described = f" ({p['description']})" if p.get("description") else ""
        if value is None or (isinstance(value, str) and not value.strip()):
            if p.get("required", True):
                raise InvalidInput(
                    f"the workflow needs the parameter '{name}'{described}: give its value in params "
                    f"(in the demonstration it was {p.get('example')!r})",
                    field=f"params.{name}",
                    missing_params=[
                        str(q.get("name"))
                        for q in declared
                        if q.get("required", True) and str(given.get(str(q.get("name"))) or "").strip() == ""
                    ],
                )
            continue
        if kind == "number" and not _is_number(value):
            raise InvalidInput(f"params.{name} must be a number, got {value!r}", field=f"params.{name}")
        if kind == "date" and not (isinstance(value, str) and DATE_VALUE.match(value.strip())):
            raise InvalidInput(
                f"params.{name} must be a date written like {p.get('example')!r}, got {value!r}",
                field=f"params.{name}",
            )
    unknown = sorted(k for k in given if k not in names and not str(k).startswith("secret:"))
    if unknown:
        raise InvalidInput(
            f"params {unknown} are not parameters of this workflow: it takes {names}", field=f"params.{unknown[0]}"
        )


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    try:
        float(str(value).replace(",", "."))
    except ValueError:
        return False
    return True


def _secret_placeholders(value: Any) -> list[str]:
    """Names of the {{secret:...}} placeholders still in `value` (no value was given for them)."""
    if isinstance(value, str):
        return SECRET_PLACEHOLDER.findall(value)
    if isinstance(value, dict):
        return [name for v in value.values() for name in _secret_placeholders(v)]
    if isinstance(value, list):
        return [name for v in value for name in _secret_placeholders(v)]
    return []


def _mark_typed_fields(actions: list[dict[str, Any]]) -> None:
    """A record-selecting target learns the labels of the fields an earlier step typed its value into:
    that field shows the value too, and is never the record."""
    typed: list[tuple[str, str]] = []  # (field label, text typed)
    for action in actions:
        target = action["target"] if isinstance(action["target"], dict) else {}
        if action["action_type"] == "type_text" and target.get("label") and not action["params"].get("secret"):
            typed.append((str(target["label"]), str(action["params"].get("text") or "")))
        values = [str(v) for v in target.get("identity_values") or [] if str(v).strip()]
        fields = [label for label, text in typed if any(v.lower() in text.lower() for v in values)]
        if fields:
            action["target"] = {**target, "typed_fields": list(dict.fromkeys(fields))}


def _title(title: Any, values: Mapping[str, Any]) -> Any:
    """An expected window title with its public placeholders filled (the record of the patient replayed)."""
    public = {k: v for k, v in values.items() if not str(k).startswith("secret:")}
    return _substitute({"title": title}, public)["title"] if isinstance(title, str) else title


PLACEHOLDER = re.compile(r"\{\{\s*([a-z][a-z0-9_]*)\s*\}\}")


def record_identity(template: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """The target's identity for this run: the text with the run's values, and those values (what must be read)."""
    text = str(template)
    used = [str(values[name]) for name in PLACEHOLDER.findall(text) if name in values]
    public = {k: v for k, v in values.items() if not str(k).startswith("secret:")}
    return {"identity": _substitute({"t": text}, public)["t"], "identity_values": used}


def _outcome(outcome: Any, values: Mapping[str, Any]) -> dict[str, Any] | None:
    """The step's post-condition with its public placeholders filled (the patient of this run, not the
    demonstration's); None when the demonstration showed none."""
    if not isinstance(outcome, Mapping) or not outcome.get("text"):
        return None
    public = {k: v for k, v in values.items() if not str(k).startswith("secret:")}
    return _substitute({"kind": outcome.get("kind") or "message", "text": str(outcome["text"])}, public)


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
