"""The propose/apply gate: single-use tokens bound to caller, operation, arguments and state."""

from __future__ import annotations

import base64
import secrets
import time

import anyio
import jwt
import pytest

from rpa_mcp.bootstrap import build_services
from rpa_mcp.errors import RpaError
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock
from tests.foundation.helpers import EXECUTIONS, NOTES, test_registry

pytestmark = pytest.mark.anyio
KEY = "k" * 64
ALICE = Caller("alice", frozenset({"operator"}))
BOB = Caller("bob", frozenset({"operator"}))
APPROVER = Caller("carol", frozenset({"approver"}), via="web")  # a person, in the console


@pytest.fixture
def env(tmp_path):
    clock = FakeClock()
    settings = Settings(data_dir=tmp_path, jwt_secret=KEY, approval="write=token,act=human,dangerous=human")
    return build_services(settings, clock=clock), test_registry(), clock


async def call(env, name, args, caller=ALICE):
    services, registry, _ = env
    return await dispatch(registry, services, name, args, caller, surface="functions")


async def code_of(coro) -> str:
    with pytest.raises(RpaError) as info:
        await coro
    return info.value.code


async def test_propose_changes_nothing_and_apply_executes_once(env):
    proposal = await call(env, "propose_save_note", {"key": "a", "text": "hello"})
    assert proposal["approval_mode"] == "token" and proposal["token"] and NOTES == {}
    result = await call(env, "apply_save_note", {"token": proposal["token"]})
    assert result == {"key": "a", "text": "hello", "version": 1} and EXECUTIONS == ["a"]
    assert await code_of(call(env, "apply_save_note", {"token": proposal["token"]})) == "confirmation-already-used"


async def test_the_gated_operation_itself_is_not_callable(env):
    assert await code_of(call(env, "save_note", {"key": "a", "text": "x"})) == "not-found"


async def test_expired_token_is_refused(env):
    proposal = await call(env, "propose_save_note", {"key": "a", "text": "x"})
    env[2].advance(301 + 10)
    assert await code_of(call(env, "apply_save_note", {"token": proposal["token"]})) == "confirmation-expired"
    assert EXECUTIONS == []


async def test_another_caller_cannot_apply(env):
    proposal = await call(env, "propose_save_note", {"key": "a", "text": "x"})
    assert await code_of(call(env, "apply_save_note", {"token": proposal["token"]}, BOB)) == "confirmation-other-caller"


async def test_a_token_for_another_operation_is_refused(env):
    proposal = await call(env, "propose_save_note", {"key": "a", "text": "x"})
    code = await code_of(call(env, "apply_act_note", {"token": proposal["token"]}))
    assert code == "confirmation-other-operation"


async def test_changed_state_since_the_proposal_is_refused(env):
    proposal = await call(env, "propose_save_note", {"key": "a", "text": "x"})
    NOTES["a"] = "someone wrote meanwhile"
    assert await code_of(call(env, "apply_save_note", {"token": proposal["token"]})) == "confirmation-arguments-changed"


async def test_tampered_stored_arguments_are_refused(env):
    services = env[0]
    proposal = await call(env, "propose_save_note", {"key": "a", "text": "x"})
    services.db.execute("UPDATE proposals SET args_json = ?", ('{"key": "a", "text": "evil"}',))
    assert await code_of(call(env, "apply_save_note", {"token": proposal["token"]})) == "confirmation-arguments-changed"


async def test_fifty_concurrent_applies_execute_exactly_once(env):
    proposal = await call(env, "propose_save_note", {"key": "a", "text": "x"})
    outcomes: list[str] = []

    async def one() -> None:
        try:
            await call(env, "apply_save_note", {"token": proposal["token"]})
            outcomes.append("ok")
        except RpaError as exc:
            outcomes.append(exc.code)

    async with anyio.create_task_group() as tg:
        for _ in range(50):
            tg.start_soon(one)
    assert outcomes.count("ok") == 1 and EXECUTIONS == ["a"]
    assert set(outcomes) == {"ok", "confirmation-already-used"}


def _forge(claims: dict, key: str = KEY, alg: str = "HS256", typ: str = "rpa-confirm+jwt") -> str:
    return jwt.encode(claims, key, algorithm=alg, headers={"typ": typ})


def _claims_of(token: str) -> dict:
    return jwt.decode(token, options={"verify_signature": False})


@pytest.mark.parametrize(
    "mutation",
    ["alg_none", "hs512", "wrong_typ", "missing_jti", "missing_exp", "wrong_audience", "wrong_issuer", "retired_key"],
)
async def test_forged_or_malformed_tokens_are_refused(env, mutation):
    proposal = await call(env, "propose_save_note", {"key": "a", "text": "x"})
    claims = _claims_of(proposal["token"])
    forged = {
        "alg_none": lambda: jwt.encode(claims, None, algorithm="none", headers={"typ": "rpa-confirm+jwt"}),
        "hs512": lambda: _forge(claims, alg="HS512"),
        "wrong_typ": lambda: _forge(claims, typ="JWT"),
        "missing_jti": lambda: _forge({k: v for k, v in claims.items() if k != "jti"}),
        "missing_exp": lambda: _forge({k: v for k, v in claims.items() if k != "exp"}),
        "wrong_audience": lambda: _forge({**claims, "aud": "rpa-mcp"}),
        "wrong_issuer": lambda: _forge({**claims, "iss": "evil"}),
        "retired_key": lambda: _forge(claims, key="r" * 64),
    }[mutation]()
    assert (await code_of(call(env, "apply_save_note", {"token": forged}))).startswith("confirmation-")
    assert EXECUTIONS == []


async def test_key_rotation_first_key_signs_all_verify(tmp_path):
    old_key, new_key = "o" * 40, "n" * 40
    old = build_services(Settings(data_dir=tmp_path, jwt_secret=old_key))
    registry = test_registry()
    proposal = await dispatch(registry, old, "propose_save_note", {"key": "a", "text": "x"}, ALICE, surface="mcp")
    rotated = build_services(Settings(data_dir=tmp_path, jwt_secret=f"{new_key},{old_key}"))
    result = await dispatch(registry, rotated, "apply_save_note", {"token": proposal["token"]}, ALICE, surface="mcp")
    assert result["text"] == "x"
    assert _claims_of(rotated.confirmations.codec.encode({"sub": "s"}))  # signs with the new key
    assert jwt.decode(
        rotated.confirmations.codec.encode({"sub": "s", "exp": time.time() + 60}),
        new_key,
        algorithms=["HS256"],
        audience="rpa-mcp/confirm",
    )


async def test_a_used_token_stays_used_across_a_restart(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=KEY)
    registry = test_registry()
    first = build_services(settings)
    proposal = await dispatch(registry, first, "propose_save_note", {"key": "a", "text": "x"}, ALICE, surface="mcp")
    await dispatch(registry, first, "apply_save_note", {"token": proposal["token"]}, ALICE, surface="mcp")
    first.db.close()
    second = build_services(settings)
    with pytest.raises(RpaError) as info:
        await dispatch(registry, second, "apply_save_note", {"token": proposal["token"]}, ALICE, surface="mcp")
    assert info.value.code == "confirmation-already-used"


async def test_restart_between_propose_and_apply_keeps_the_proposal(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=KEY)
    registry = test_registry()
    first = build_services(settings)
    proposal = await dispatch(registry, first, "propose_save_note", {"key": "a", "text": "x"}, ALICE, surface="mcp")
    first.db.close()
    second = build_services(settings)
    result = await dispatch(registry, second, "apply_save_note", {"token": proposal["token"]}, ALICE, surface="mcp")
    assert result["version"] == 1


# --- human approval ------------------------------------------------------------------
async def test_human_mode_waits_for_approval_then_applies(env):
    services = env[0]
    proposal = await call(env, "propose_act_note", {"key": "a", "text": "x"})
    assert proposal["approval_mode"] == "human" and proposal["approval_url"].endswith(
        f"/approvals/{_claims_of(proposal['token'])['jti']}"
    )
    assert await code_of(call(env, "apply_act_note", {"token": proposal["token"]})) == "approval-pending"
    jti = _claims_of(proposal["token"])["jti"]
    assert [p.jti for p in services.confirmations.list_pending()] == [jti]
    services.confirmations.decide(jti, APPROVER, True)
    assert (await call(env, "apply_act_note", {"token": proposal["token"]}))["text"] == "x"


async def test_the_approval_url_names_the_request_whatever_the_random_bytes_of_its_id(env, monkeypatch):
    """The request's id is random: whatever it draws, the approval URL returned keeps it, never taken
    for a secret by the output's redaction (an id reading "sk-…" like an API key once left as
    ".../approvals/[redacted]", and the page answered "No such request")."""
    like_a_key = base64.urlsafe_b64decode("sk-MuG1_lrqiQDSLSmHVFYyj")  # 18 bytes that encode as "sk-…"
    monkeypatch.setattr(secrets, "token_bytes", lambda n=32: (like_a_key * 4)[:n])
    proposal = await call(env, "propose_act_note", {"key": "a", "text": "x"})
    jti = _claims_of(proposal["token"])["jti"]
    assert proposal["approval_url"].endswith(f"/console/approvals/{jti}"), proposal["approval_url"]
    assert proposal["approval_url"] in proposal["next_step"]
    assert env[0].confirmations.get_approval(proposal["approval_url"].rsplit("/", 1)[1]).status == "pending"


async def test_the_proposer_cannot_approve_their_own_request(env):
    services = env[0]
    proposal = await call(env, "propose_act_note", {"key": "a", "text": "x"})
    jti = _claims_of(proposal["token"])["jti"]
    with pytest.raises(RpaError) as info:
        services.confirmations.decide(jti, ALICE, True)
    assert info.value.code == "forbidden"


async def test_a_viewer_cannot_approve(env):
    proposal = await call(env, "propose_act_note", {"key": "a", "text": "x"})
    with pytest.raises(RpaError) as info:
        env[0].confirmations.decide(_claims_of(proposal["token"])["jti"], Caller("v", frozenset({"viewer"})), True)
    assert info.value.code == "forbidden"


async def test_rejected_then_apply_is_refused(env):
    services = env[0]
    proposal = await call(env, "propose_act_note", {"key": "a", "text": "x"})
    jti = _claims_of(proposal["token"])["jti"]
    services.confirmations.decide(jti, APPROVER, False)
    assert await code_of(call(env, "apply_act_note", {"token": proposal["token"]})) == "approval-rejected"
    with pytest.raises(RpaError) as info:
        services.confirmations.decide(jti, APPROVER, True)
    assert info.value.code == "conflict"
    assert EXECUTIONS == []


async def test_every_propose_approve_and_apply_is_audited_with_its_actor(env):
    services = env[0]
    proposal = await call(env, "propose_act_note", {"key": "a", "text": "x"})
    services.confirmations.decide(_claims_of(proposal["token"])["jti"], APPROVER, True)
    await call(env, "apply_act_note", {"token": proposal["token"]})
    rows = [(r["actor"], r["operation"]) for r in services.audit.rows()]
    assert ("alice", "propose:act_note") in rows
    assert ("carol", "approve:act_note") in rows
    assert ("alice", "apply:act_note") in rows and ("alice", "apply_act_note") in rows
    assert services.audit.verify().ok


async def test_secret_arguments_are_scrubbed_from_the_store_once_applied(env):
    services = env[0]
    services.confirmations.propose(
        operation="save_note",
        risk="write",
        proposer="alice",
        args={"key": "k", "params": {"secret:pin": "1234"}},
        summary="s",
        details={},
        diff=None,
        binding={},
    )
    jti = services.db.query_one("SELECT jti FROM proposals")["jti"]
    assert "1234" in services.db.query_one("SELECT args_json FROM proposals")["args_json"]  # needed until apply
    assert services.confirmations.repo.consume(jti, at=0.0)
    stored = services.db.query_one("SELECT args_json FROM proposals")["args_json"]
    assert "1234" not in stored and '"key": "k"' in stored


def test_redaction_keeps_flags_that_only_name_a_secret_field():
    from rpa_mcp.ops.redaction import redact

    assert redact({"secret:pin": "1234", "is_password": True}) == {"secret:pin": "[redacted]", "is_password": True}
