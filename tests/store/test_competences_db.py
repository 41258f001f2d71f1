"""Competences in the database behave like the file store, on both backends, and the YAML files
stay the exchange format (export writes the file store's layout, import reads it back)."""

from __future__ import annotations

import threading

import pytest

from rpa_mcp.competences import CompetenceStore
from rpa_mcp.errors import NotFound
from rpa_mcp.store.competences import DbCompetenceStore
from rpa_mcp.testing import FakeClock
from tests.competences.helpers import ir
from tests.store.test_contract import _reopen


@pytest.fixture
def store(backend, tmp_path):
    return DbCompetenceStore(backend, FakeClock(), root=tmp_path / "competences")


def test_saving_again_keeps_the_current_version_as_an_archive(store):
    first = store.save("Admission patient", ir(steps=2), machine_id="PC-1")
    second = store.save("Admission patient", ir(steps=3))
    assert (first.version, second.version, second.replaced_version) == (1, 2, 1)
    current = store.get("Admission patient")
    assert (current.version, current.steps, current.current, current.versions) == (2, 3, True, (1, 2))
    assert store.get("Admission patient", version=1).steps == 2
    assert store.preview_save("Admission patient", ir(steps=4)).diff is not None
    listed = store.list()
    assert [(c.slug, c.status, c.version, c.versions) for c in listed] == [
        ("admission-patient", "candidate", 2, (1, 2))
    ]
    assert str(listed.competences[0].path).endswith("competences/candidate/admission-patient.yaml")


def test_promotion_moves_the_candidate_and_its_archives_to_validated(store):
    store.save("Admission patient", ir(steps=2))
    store.save("Admission patient", ir(steps=3))
    preview = store.preview_promote("Admission patient")
    assert (preview.version, preview.new_version, preview.replaces_version) == (2, 2, None)
    done = store.promote("Admission patient")
    assert (done.status, done.version) == ("validated", 2)
    with pytest.raises(NotFound):
        store.get("Admission patient", status="candidate")
    assert store.get("Admission patient").status == "validated" and store.get("Admission patient").versions == (1, 2)
    store.save("Admission patient", ir(steps=5))  # a new candidate takes the next number
    assert store.promote("Admission patient").version == 3
    assert store.get("Admission patient", status="validated").versions == (1, 2, 3)


def test_deleting_the_current_version_restores_the_archive_and_keeps_the_number_used(store):
    store.save("Admission patient", ir(steps=2))
    store.save("Admission patient", ir(steps=3))
    preview = store.preview_delete("Admission patient", version=2)
    assert (preview.versions, preview.restores_version, preview.current_after) == ((2,), 1, 1)
    store.delete("Admission patient", version=2)
    assert store.get("Admission patient").version == 1
    assert store.save("Admission patient", ir()).version == 3  # a number once used is never given again
    store.delete("Admission patient")
    with pytest.raises(NotFound):
        store.get("Admission patient")


def test_export_writes_the_file_store_layout_and_import_reads_it_back(store, backend, tmp_path):
    store.save("Admission patient", ir(steps=2), machine_id="PC-1")
    store.save("Admission patient", ir(steps=3))
    store.promote("Admission patient")
    store.save("Sortie patient", ir(name="Sortie patient"))
    assert store.export_to(tmp_path / "out") == 3
    files = CompetenceStore(tmp_path / "out", FakeClock())
    assert [(c.slug, c.status, c.version, c.versions) for c in files.list()] == [
        ("sortie-patient", "candidate", 1, (1,)),
        ("admission-patient", "validated", 2, (1, 2)),
    ]
    assert files.get("Admission patient").workflow == store.get("Admission patient").workflow
    other = DbCompetenceStore(backend, FakeClock(), root=tmp_path / "c2")
    backend.execute("DELETE FROM competence_versions")
    assert other.import_from(tmp_path / "out") == (3, [])
    assert other.import_from(tmp_path / "out") == (0, [])  # already there: nothing added twice
    assert [(c.slug, c.version, c.versions) for c in other.list()] == [
        ("sortie-patient", 1, (1,)),
        ("admission-patient", 2, (1, 2)),
    ]


def test_two_replicas_saving_one_competence_at_once_get_distinct_versions(store, backend, tmp_path):
    other_db = _reopen(backend)
    stores = [store, DbCompetenceStore(other_db, FakeClock(), root=tmp_path / "c")]
    barrier = threading.Barrier(8)
    versions: list[int] = []

    def save(i: int) -> None:
        barrier.wait()
        versions.append(stores[i % 2].save("Admission patient", ir(steps=1 + i % 3)).version)

    threads = [threading.Thread(target=save, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other_db.close()
    assert sorted(versions) == list(range(1, 9))
    assert store.get("Admission patient").version == 8 and len(store.get("Admission patient").versions) == 8
