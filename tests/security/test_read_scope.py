"""Every read is scoped: an agent token bound to workstation ALPHA reads ALPHA's data and nothing of BRAVO's.

The walk is generated from the registry: every read operation and every resource template, for
every role and for a token bound to ALPHA, with arguments naming ALPHA's then BRAVO's session,
replay, machine and screenshots. A new read operation is walked as soon as it is registered (one
that takes an argument the walk cannot fill fails here until it is given a value).
"""

from __future__ import annotations

import base64
import json
import re
import time
import typing
import warnings
from dataclasses import dataclass
from typing import Any

import pytest
from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.types import PromptReference

from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.identity import ROLES, Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.common import ImageArg
from rpa_mcp.ops.registry import Operation
from tests.competences.helpers import ir
from tests.conftest import token_for
from tests.replay.kit import steps
from tests.security.conftest import client_for, png

pytestmark = pytest.mark.anyio
EVENTS = "/api/v1/traces/stream/event"
COMPETENCE = "bravo-admission"
BOUND = "agent bound to ALPHA"


@dataclass
class Workstation:
    machine: str
    session: str
    typed: str
    replay: str = ""
    shot: str = ""

    @property
    def markers(self) -> set[str]:
        """Strings that appear only in this workstation's data."""
        return {self.machine, self.session, self.typed, self.replay, self.shot}


ALPHA = Workstation("WS-ALPHA", "sess-alpha", "alpha-typed-text")
BRAVO = Workstation("WS-BRAVO", "sess-bravo", "bravo-typed-text")
NOBODY = Workstation("WS-NOBODY", "sess-nobody", "", "rep_000000000000", "shot_000000000000000000000000")


def events(ws: Workstation, shade: int) -> list[dict[str, Any]]:
    now = time.time()
    base = {"session_id": ws.session, "machine_id": ws.machine}
    return [
        {**base, "ts": now, "type": "focus", "window_title": "Dossier patient", "app": "dxcare.exe"},
        {**base, "ts": now + 1, "type": "screenshot", "screenshot": base64.b64encode(png(64, 48, shade)).decode()},
        {**base, "ts": now + 2, "type": "click", "x": 20, "y": 20},
        {**base, "ts": now + 3, "type": "type", "text": ws.typed},
    ]


@pytest.fixture
async def stations(services):
    """ALPHA and BRAVO each with a session (events, a screenshot, typed text) and a replay; a competence."""
    async with client_for(services, token_for(services, "agent-any", "agent")) as agent:
        for ws, shade in ((ALPHA, 60), (BRAVO, 190)):
            answer = await agent.post(EVENTS, json={"events": events(ws, shade)})
            assert answer.status_code == 200, answer.text
            ws.shot = services.db.query(
                "SELECT screenshot_id FROM trace_screenshots WHERE session_id = ? AND kind = 'frame'", (ws.session,)
            )[0]["screenshot_id"]
            ws.replay = await services.replay.start(steps=steps(1), competence="c", version=1, machine_id=ws.machine)
    competence = ir(COMPETENCE)
    competence["source"]["machine_id"] = BRAVO.machine
    services.competences.save(COMPETENCE, competence, status="candidate", machine_id=BRAVO.machine)
    return ALPHA, BRAVO


def tokens(services) -> dict[str, str]:
    minted = {role: token_for(services, f"who-{role}", role) for role in ROLES}
    minted[BOUND] = str(services.access_tokens.mint("agent-alpha", ["agent"], ttl_s=600, machines=[ALPHA.machine]))
    return minted


# --- arguments from the registry --------------------------------------------------------------------
OVERRIDES: dict[str, dict[str, Any]] = {"get_catalog": {"name": "dialogs"}}


def _is_image(annotation: Any) -> bool:
    return annotation is ImageArg or ImageArg in typing.get_args(annotation)


def arguments(op: Operation, ws: Workstation) -> dict[str, Any]:
    """Arguments naming `ws`'s data for every field that can name it, and a plain value for the others."""
    by_name: dict[str, Any] = {
        "session_id": ws.session,
        "replay_id": ws.replay,
        "machine_id": ws.machine,
        "competence": COMPETENCE,
        "name": COMPETENCE,
        "action_type": "click_anchor",
        "target_spec": {"label": "OK"},
        "decision": "skip",
        "active_only": False,
        "readback": None,
    }
    args: dict[str, Any] = {}
    for field, info in op.input.model_fields.items():
        if _is_image(info.annotation):
            args[field] = {"ref": f"rpa://screenshots/{ws.shot}"}
        elif field in by_name:
            args[field] = by_name[field]
        elif info.is_required():
            raise AssertionError(f"{op.name}: give the walk a value for its required field {field!r}")
    return args | OVERRIDES.get(op.name, {})


def read_operations(services) -> list[Operation]:
    registry = build_registry()
    reads = [op for op in registry.listing("rest", services) if op.risk == "read" and op.name != "read_resource"]
    assert {"get_understanding", "list_sessions", "get_replay_status", "classify_dialog"} <= {op.name for op in reads}
    return reads


def resource_uris(ws: Workstation) -> list[str]:
    values = {
        "session_id": ws.session,
        "screenshot_id": ws.shot,
        "replay_id": ws.replay,
        "status": "candidate",
        "name": COMPETENCE,
        "dialog_id": "app-save-changes",
    }
    uris = []
    for spec in build_registry().resources:
        if spec.uri.startswith("rpa://catalog/{name}"):
            uris.append("rpa://catalog/dialogs")
            continue
        uris.append(re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], spec.uri))
    return uris


# --- what each role may read (docs/operations.md, "Who reads what") ---------------------------------------
def documented_roles(op_name: str, uri: str | None = None) -> set[str]:
    """Operators, viewers and approvers read everything; agents all but the competences; proposals are an
    operator's (a proposal changes nothing but is the first half of a change)."""
    if op_name.startswith(("propose_", "run_")):
        return {"operator"}
    if op_name in ("list_competences", "get_competence") or (uri or "").startswith("rpa://competences"):
        return {"operator", "viewer", "approver"}
    return {"operator", "viewer", "approver", "agent"}


def leaks(body: Any, ws: Workstation) -> set[str]:
    text = json.dumps(body)
    return {marker for marker in ws.markers if marker and marker in text}


async def call(client, name: str, args: dict[str, Any]) -> tuple[int, Any]:
    answer = await client.post(f"/api/v1/tools/{name}", json=args)
    return answer.status_code, answer.json()


async def test_every_read_operation_and_resource_by_role_and_workstation(services, stations):
    alpha, bravo = stations
    reads = read_operations(services)
    calls: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], str | None]] = [
        (op.name, arguments(op, alpha), arguments(op, bravo), arguments(op, NOBODY), None) for op in reads
    ]
    for a_uri, b_uri, n_uri in zip(resource_uris(alpha), resource_uris(bravo), resource_uris(NOBODY), strict=True):
        calls.append(("read_resource", {"uri": a_uri}, {"uri": b_uri}, {"uri": n_uri}, b_uri))

    outcomes: dict[str, dict[str, tuple[tuple[int, Any], tuple[int, Any], tuple[int, Any]]]] = {}
    for who, token in tokens(services).items():
        async with client_for(services, token) as client:
            outcomes[who] = {
                f"{name} {b_args}": (
                    await call(client, name, a),
                    await call(client, name, b_args),
                    await call(client, name, n),
                )
                for name, a, b_args, n, _ in calls
            }

    bravo_readable, bravo_usable = set(), set()
    for name, _, b_args, _, uri in calls:
        key = f"{name} {b_args}"
        allowed = documented_roles(name, uri)
        reference = outcomes["operator"][key]
        if reference[1][0] == 200:
            bravo_usable.add(name if uri is None else uri.split("/")[2])
            if leaks(reference[1][1], bravo):
                bravo_readable.add(name if uri is None else uri.split("/")[2])
        for role in ROLES:
            got = outcomes[role][key]
            if role not in allowed:
                assert [status for status, _ in got] == [403, 403, 403], (role, key, got)
                continue
            # each role allowed reads what the operator reads, ALPHA's and BRAVO's alike
            assert [status for status, _ in got] == [status for status, _ in reference], (role, key, got)
        alpha_call, bravo_call, nobody_call = outcomes[BOUND][key]
        if "agent" not in allowed:
            assert [alpha_call[0], bravo_call[0], nobody_call[0]] == [403, 403, 403], (key, outcomes[BOUND][key])
            continue
        assert alpha_call[0] == reference[0][0], (key, "the bound agent reads its own workstation", alpha_call)
        assert not leaks(alpha_call[1], bravo), (key, "ALPHA's answer holds BRAVO's data", alpha_call)
        assert not leaks(bravo_call[1], bravo), (key, "BRAVO's data reached the agent bound to ALPHA", bravo_call)
        names_bravo = any(marker in json.dumps(b_args) for marker in (bravo.session, bravo.replay, bravo.shot))
        if names_bravo:  # a session, replay or screenshot of BRAVO's, by id: not found, whatever the answer shows
            assert bravo_call[0] == 404, (key, bravo_call)
        if bravo_call[0] != 200:  # refused exactly as something that does not exist: existence never leaks
            assert bravo_call[0] == 404 and bravo_call[1]["code"] == "not-found", (key, bravo_call)
            assert (nobody_call[0], nobody_call[1]["code"], nobody_call[1].get("detail")) == (
                404,
                "not-found",
                bravo_call[1].get("detail"),
            ), (key, nobody_call, bravo_call)
    # the walk is worth something only if the data is there to leak
    assert {
        "get_understanding",
        "list_sessions",
        "list_machines",
        "get_replay_status",
        "list_replays",
    } <= bravo_readable
    assert {"sessions", "screenshots", "replays", "machines"} <= bravo_readable
    assert {"validate_action", "classify_dialog", "resolve_dialog", "resolve_target"} <= bravo_usable


async def test_the_breaks_of_the_report_are_closed(services, stations):
    """get_understanding, the events and screenshot resources, list_sessions and GET /api/v1/replay/<id>."""
    alpha, bravo = stations
    bound = tokens(services)[BOUND]
    async with client_for(services, bound) as client:
        understanding = await client.get(f"/api/v1/shadow/{bravo.session}/understanding")
        replay = await client.get(f"/api/v1/replay/{bravo.replay}")
        events_read = await call(client, "read_resource", {"uri": f"rpa://sessions/{bravo.session}/events"})
        shot = await call(client, "read_resource", {"uri": f"rpa://screenshots/{bravo.shot}"})
        sessions = await client.get("/api/v1/traces/stream/sessions", params={"active_only": "false"})
        own = await client.get(f"/api/v1/replay/{alpha.replay}")
    assert understanding.status_code == replay.status_code == 404
    assert events_read[0] == shot[0] == 404
    assert [s["session_id"] for s in sessions.json()["sessions"]] == [alpha.session]
    assert own.status_code == 200 and own.json()["replay_id"] == alpha.replay


async def test_an_event_cannot_reuse_another_machines_screenshot(services, stations):
    alpha, bravo = stations
    event = {
        "session_id": alpha.session,
        "machine_id": alpha.machine,
        "ts": time.time(),
        "type": "screenshot",
        "screenshot_ref": f"rpa://screenshots/{bravo.shot}",
    }
    async with client_for(services, tokens(services)[BOUND]) as client:
        refused = await client.post(EVENTS, json=event)
        own = await client.post(EVENTS, json={**event, "screenshot_ref": f"rpa://screenshots/{alpha.shot}"})
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert own.status_code == 200, own.text


async def test_over_mcp_resources_and_completions_show_a_bound_agent_its_workstation_only(services, stations):
    alpha, bravo = stations
    caller = Caller("agent-alpha", frozenset({"agent"}), machines=frozenset({alpha.machine}))
    server = build_mcp_server(build_registry(), services, local_caller=caller)
    async with Client(server) as client:
        own = (await client.read_resource(f"rpa://sessions/{alpha.session}/events")).contents[0]
        for uri in (f"rpa://sessions/{bravo.session}/events", f"rpa://screenshots/{bravo.shot}"):
            with pytest.raises(MCPError, match="not-found"):
                await client.read_resource(uri)
        machines = (await client.read_resource("rpa://machines")).contents[0]
        review = PromptReference(type="ref/prompt", name="review-steps")
        sessions = await client.complete(review, {"name": "session_id", "value": ""})
    assert alpha.typed in own.text
    assert [m["machine_id"] for m in json.loads(machines.text)["machines"]] == [alpha.machine]
    assert sessions.completion.values == [alpha.session]


async def test_a_bound_agent_cannot_subscribe_to_another_machines_resource(services, stations):
    alpha, bravo = stations
    caller = Caller("agent-alpha", frozenset({"agent"}), machines=frozenset({alpha.machine}))
    server = build_mcp_server(build_registry(), services, local_caller=caller)
    async with Client(server, mode="legacy") as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)  # resources/subscribe is deprecated (SEP-2575)
            await client.subscribe_resource(f"rpa://sessions/{alpha.session}/understanding")
            with pytest.raises(MCPError) as refused:
                await client.subscribe_resource(f"rpa://sessions/{bravo.session}/understanding")
    assert refused.value.data == {"code": "not-found"}


async def test_a_bound_agent_learns_nothing_of_another_workstations_target_memory(services, stations):
    """BRAVO's remembered spot for a guessed window title: the agent bound to ALPHA gets the answer of an
    unknown title (no position, no `from_memory`); ALPHA's own memory still answers it."""
    alpha, bravo = stations
    spot = {"bbox": [4, 4, 8, 8], "resolve_order": ["memory"]}  # no label: a trusted spot is used as it is
    memory = services.replay.memory
    for _ in range(2):
        memory.record_success(bravo.machine, "Bravo records", spot, [30, 20])
        memory.record_success(alpha.machine, "Alpha records", spot, [12, 14])

    def resolving(title: str, **more: Any) -> dict[str, Any]:
        shot = {"ref": f"rpa://screenshots/{alpha.shot}"}
        return {"image": shot, "target_spec": spot, "window_title": title, **more}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in body.items() if k != "elapsed_ms"}

    async with client_for(services, tokens(services)[BOUND]) as client:
        guessed = await call(client, "resolve_target", resolving("Bravo records"))
        unknown = await call(client, "resolve_target", resolving("Nobody records"))
        own = await call(client, "resolve_target", resolving("Alpha records"))
        named = await call(client, "resolve_target", resolving("Bravo records", machine_id=bravo.machine))
        nobody = await call(client, "resolve_target", resolving("Bravo records", machine_id=NOBODY.machine))
    assert guessed[0] == unknown[0] == 200 and answer(guessed[1]) == answer(unknown[1])
    assert not guessed[1]["resolved"] and not guessed[1]["from_memory"]
    assert own[1]["from_memory"] and (own[1]["x"], own[1]["y"]) == (12, 14)
    assert named[0] == nobody[0] == 404 and named[1]["code"] == nobody[1]["code"] == "not-found"
    assert named[1]["detail"] == nobody[1]["detail"]
    async with client_for(services, tokens(services)["operator"]) as client:  # not bound: names the workstation
        operator = await call(client, "resolve_target", resolving("Bravo records", machine_id=bravo.machine))
    assert operator[1]["from_memory"] and (operator[1]["x"], operator[1]["y"]) == (30, 20)
