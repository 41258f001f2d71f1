"""Competence operations through dispatch(): reads, gated promote/delete, resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rpa_mcp.bootstrap import build_services
from rpa_mcp.errors import RpaError
from rpa_mcp.notify import Notifier
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.competences import RESOURCES
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock
from tests.competences.helpers import ir

pytestmark = pytest.mark.anyio
OPERATOR = Caller("olivia", frozenset({"operator"}))
APPROVER = Caller("carol", frozenset({"approver"}), via="web")  # a person, in the console
VIEWER = Caller("victor", frozenset({"viewer"}))


class RecordingNotifier(Notifier):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    def resource_updated(self, uri: str) -> None:
        self.events.append(uri)

    def tools_changed(self) -> None:
        self.events.append("tools_changed")


@pytest.fixture
def env(tmp_path: Path) -> Any:
    settings = Settings(data_dir=tmp_path / "data", jwt_secret="k" * 64)
    services = build_services(settings, clock=FakeClock(start=1_800_000_000.0), notifier=RecordingNotifier())
    return services, build_registry(areas=("competences",))


async def call(env: Any, name: str, args: dict[str, Any], caller: Caller = OPERATOR) -> dict[str, Any]:
    services, registry = env
    return await dispatch(registry, services, name, args, caller, surface="functions")


async def test_the_registry_exposes_reads_and_gated_mutations_only(env: Any) -> None:
    names = set(env[1].operations)
    assert {
        "list_competences",
        "get_competence",
        "propose_delete_competence",
        "apply_delete_competence",
        "propose_promote_competence",
        "apply_promote_competence",
    } <= names
    assert "delete_competence" not in names and "promote_competence" not in names


async def test_list_and_get_show_versions_and_problems(env: Any) -> None:
    services, _ = env
    services.competences.save("Admission patient", ir(steps=1), machine_id="PC-1")
    services.competences.save("Admission patient", ir(steps=3), machine_id="PC-1")
    (services.competences.root / "candidate" / "broken.yaml").write_text("name: [", "utf-8")
    listing = await call(env, "list_competences", {}, VIEWER)
    assert listing["competences"][0] | {"updated_at": None} == {
        "name": "Admission patient",
        "slug": "admission-patient",
        "status": "candidate",
        "version": 2,
        "versions": [1, 2],
        "steps": 3,
        "machine_id": "PC-1",
        "updated_at": None,
        "path": "competences/candidate/admission-patient.yaml",
    }
    assert listing["problems"][0]["path"] == "competences/candidate/broken.yaml"
    got = await call(env, "get_competence", {"name": "admission-patient", "version": 1}, VIEWER)
    assert (got["version"], got["current"], got["steps"]) == (1, False, 1)
    assert got["workflow"]["steps"][0]["target"]["label"] == "Bouton 0"


async def test_get_with_a_path_like_name_is_invalid_input(env: Any) -> None:
    with pytest.raises(RpaError) as err:
        await call(env, "get_competence", {"name": "../../etc/passwd"})
    assert err.value.code == "invalid-input" and err.value.details["field"] == "name"


async def test_delete_needs_a_person_then_moves_the_files_to_the_trash(env: Any) -> None:
    services, _ = env
    services.competences.save("Admission patient", ir(steps=4))
    proposal = await call(env, "propose_delete_competence", {"name": "Admission patient"})
    assert proposal["approval_mode"] == "human"
    assert "competences/candidate/admission-patient.yaml" in proposal["summary"]
    assert "4 steps" in proposal["summary"] and "version(s) v1" in proposal["summary"]
    assert proposal["details"]["files"] == ["competences/candidate/admission-patient.yaml"]
    assert services.competences.get("Admission patient").version == 1  # propose changed nothing
    with pytest.raises(RpaError) as err:
        await call(env, "apply_delete_competence", {"token": proposal["token"]})
    assert err.value.code == "approval-pending"
    jti = proposal["approval_url"].rsplit("/", 1)[1]
    services.confirmations.decide(jti, APPROVER, True)
    done = await call(env, "apply_delete_competence", {"token": proposal["token"]})
    assert done["versions_deleted"] == [1] and done["trash_path"].startswith("competences/.trash/")
    assert (services.settings.data_dir / done["trash_path"] / "admission-patient.yaml").exists()
    assert services.competences.list().competences == []
    assert "tools_changed" in services.notifier.events


async def test_delete_is_refused_when_the_file_changed_after_the_proposal(env: Any) -> None:
    services, _ = env
    services.competences.save("A", ir("A"))
    proposal = await call(env, "propose_delete_competence", {"name": "A"})
    services.confirmations.decide(proposal["approval_url"].rsplit("/", 1)[1], APPROVER, True)
    services.competences.save("A", ir("A", steps=5))
    with pytest.raises(RpaError) as err:
        await call(env, "apply_delete_competence", {"token": proposal["token"]})
    assert err.value.code == "confirmation-arguments-changed"
    assert services.competences.get("A").version == 2


async def test_deleting_a_validated_competence_says_its_tool_disappears(env: Any) -> None:
    env[0].competences.save("Sortie patient", ir("Sortie patient"), status="validated")
    proposal = await call(env, "propose_delete_competence", {"name": "Sortie patient"})
    assert "the tool run_sortie_patient disappears" in proposal["summary"]
    assert proposal["details"]["changes_tools"] is True


async def test_a_viewer_cannot_propose_a_delete(env: Any) -> None:
    env[0].competences.save("A", ir("A"))
    with pytest.raises(RpaError) as err:
        await call(env, "propose_delete_competence", {"name": "A"}, VIEWER)
    assert err.value.code == "forbidden"


async def test_promote_shows_the_diff_and_tells_clients_the_tools_changed(env: Any) -> None:
    services, _ = env
    services.competences.save("A", ir("A", intent="Ouvrir"))
    services.competences.promote("A")
    services.competences.save("A", ir("A", intent="Fermer"))
    proposal = await call(env, "propose_promote_competence", {"name": "A"})
    assert "replaces validated version 1" in proposal["summary"] and "run_a" in proposal["summary"]
    assert "+  intent: Fermer 0" in proposal["diff"]
    assert proposal["approval_mode"] == "token"
    done = await call(env, "apply_promote_competence", {"token": proposal["token"]})
    assert (done["version"], done["replaced_version"], done["path"]) == (2, 1, "competences/validated/a.yaml")
    assert services.notifier.events[-1] == "tools_changed"
    assert "rpa://competences/validated/a" in services.notifier.events


async def test_the_competence_resource_returns_its_yaml(env: Any) -> None:
    services, _ = env
    services.competences.save("Sortie patient", ir("Sortie patient"), status="validated")
    uri, mime, read = RESOURCES[0].uri, RESOURCES[0].mime_type, RESOURCES[0].read
    assert uri == "rpa://competences/{status}/{name}" and mime == "application/yaml"
    text = await read(services, status="validated", name="sortie-patient")
    assert yaml.safe_load(text)["name"] == "Sortie patient"
    for status, name in (("trash", "sortie-patient"), ("validated", "../x")):
        with pytest.raises(RpaError) as err:
            await read(services, status=status, name=name)
        assert err.value.code == "invalid-input"
    listing = yaml.safe_load(await RESOURCES[1].read(services))
    assert listing["competences"][0]["uri"] == "rpa://competences/validated/sortie-patient"
