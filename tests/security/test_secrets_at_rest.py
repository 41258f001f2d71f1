"""Secret values leave no copy at rest: a proposal's `secret:` parameters are scrubbed when it is rejected,
expires or is used (and the replay's once it ends), and the raw database, -wal and -shm files no longer
hold them; the files are readable by their owner only."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import anyio
import pytest

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.confirmation.sweep import run_scrub_sweep
from rpa_mcp.identity import Caller
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.settings import Settings
from rpa_mcp.store.db import SQLITE_FILE, Database
from rpa_mcp.testing import FakeClock, FakeOcr
from tests.conftest import SECRET

pytestmark = pytest.mark.anyio
PASSWORD = "Zq7-unique-S3cret-4242"  # what a person types for the replay: never kept once it is of no use
OPERATOR = Caller("olga", frozenset({"operator"}))
IR = {
    "name": "Connexion DPI",
    "domain": "generic",
    "version": 1,
    "source": {"session_id": "s1", "machine_id": "PC-1"},
    "steps": [
        {
            "index": 1,
            "intent": "Type the password",
            "action_type": "type_text",
            "params": {"text": "{{secret:pwd}}", "secret": True},
        }
    ],
}


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Services, FakeClock]:
    clock = FakeClock()
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET, replay_preflight=False)  # no agent polls here
    services = build_services(settings, clock=clock, ocr=FakeOcr())
    services.competences.save("Connexion DPI", IR, status="validated", machine_id="PC-1")
    return services, clock


async def call(services: Services, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return await dispatch(build_registry(), services, name, args, OPERATOR, surface="rest")


async def propose(services: Services) -> dict[str, Any]:
    args = {"competence": "Connexion DPI", "params": {"secret:pwd": PASSWORD}}
    return await call(services, "propose_start_replay", args)


def files_holding_the_secret(services: Services) -> list[str]:
    services.audit.flush()
    folder = services.settings.data_dir
    files = [folder / SQLITE_FILE, folder / f"{SQLITE_FILE}-wal", folder / f"{SQLITE_FILE}-shm"]
    return [f.name for f in files if f.exists() and PASSWORD.encode() in f.read_bytes()]


def jti_of(proposal: dict[str, Any]) -> str:
    return str(proposal["approval_url"]).rsplit("/", 1)[-1]


async def test_a_rejected_proposal_keeps_no_copy_of_its_secret(setup):
    services, clock = setup
    proposal = await propose(services)
    assert files_holding_the_secret(services)  # held while the proposal may still be approved
    assert services.confirmations.repo.decide(jti_of(proposal), status="rejected", approver="dr-martin", at=clock.now())
    assert files_holding_the_secret(services) == []
    with pytest.raises(Exception) as refused:  # the apply still says why: rejected, not "arguments changed"
        await call(services, "apply_start_replay", {"token": proposal["token"]})
    assert getattr(refused.value, "code", None) == "approval-rejected"


async def test_an_expired_proposal_is_scrubbed_by_the_sweep(setup):
    services, clock = setup
    proposal = await propose(services)
    clock.advance(services.settings.mcp_confirmation_ttl + 6)
    assert services.confirmations.scrub_expired() == 1
    assert files_holding_the_secret(services) == []
    assert services.confirmations.scrub_expired() == 0  # each expired proposal is read once
    with pytest.raises(Exception) as refused:  # the apply still says why: expired
        await call(services, "apply_start_replay", {"token": proposal["token"]})
    assert getattr(refused.value, "code", None) == "confirmation-expired"


async def test_the_sweep_runs_as_soon_as_the_server_starts_then_every_interval():
    stop, runs = anyio.Event(), []

    class Confirmations:
        def scrub_expired(self) -> int:
            runs.append(1)
            if len(runs) == 2:
                stop.set()
            return 0

    with anyio.fail_after(5):
        await run_scrub_sweep(Confirmations(), stop, interval_s=0)  # type: ignore[arg-type]  # a fake service
    assert len(runs) == 2


async def test_a_used_proposal_and_its_ended_replay_keep_no_copy_of_the_secret(setup):
    services, clock = setup
    proposal = await propose(services)
    assert services.confirmations.repo.decide(jti_of(proposal), status="approved", approver="dr-martin", at=clock.now())
    started = await call(services, "apply_start_replay", {"token": proposal["token"]})
    assert files_holding_the_secret(services)  # the running replay needs it to type it
    await call(services, "cancel_replay", {"replay_id": started["replay_id"]})
    assert files_holding_the_secret(services) == []


async def test_the_database_and_its_wal_and_shm_files_are_the_owners_only(setup):
    services, _ = setup
    await propose(services)
    folder = services.settings.data_dir
    for name in (SQLITE_FILE, f"{SQLITE_FILE}-wal", f"{SQLITE_FILE}-shm"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600, name


def test_a_database_left_readable_by_an_older_version_is_narrowed(tmp_path: Path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / SQLITE_FILE).touch(mode=0o644)
    (folder / SQLITE_FILE).chmod(0o644)
    build_services(Settings(data_dir=folder, jwt_secret=SECRET), ocr=FakeOcr())
    assert stat.S_IMODE((folder / SQLITE_FILE).stat().st_mode) == 0o600


def test_a_scrubbed_value_leaves_no_copy_in_the_freed_space_of_the_database(tmp_path: Path):
    db = Database(tmp_path / SQLITE_FILE)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    for i in range(20):  # neighbours: the page is rewritten, not dropped
        db.execute("INSERT INTO notes(id, body) VALUES (?, ?)", (i, f"note {i} " + "x" * 40))
    db.execute("UPDATE notes SET body = ? WHERE id = 7", (f"password {PASSWORD} " + "y" * 200,))
    db.execute("UPDATE notes SET body = '[redacted]' WHERE id = 7")
    db.forget_scrubbed()
    db.close()
    for file in tmp_path.iterdir():
        assert PASSWORD.encode() not in file.read_bytes(), file.name
