from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from rpa_mcp.competences import CompetenceStore, slugify, yamlio
from rpa_mcp.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from rpa_mcp.testing import FakeClock
from tests.competences.helpers import ir


@pytest.fixture
def store(tmp_path: Path) -> CompetenceStore:
    return CompetenceStore(tmp_path / "competences", FakeClock(start=1_800_000_000.0))


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


# --- slugs ----------------------------------------------------------------------------
def test_slug_is_lowercase_ascii_without_accents() -> None:
    assert slugify("Admission  Patient — Urgences (Élodie)") == "admission-patient-urgences-elodie"


@pytest.mark.parametrize("name", ["", "   ", "../etc/passwd", "a/b", "..", "a\\b", "x\x00y", "***", "!!"])
def test_names_that_could_escape_or_name_nothing_are_refused(store: CompetenceStore, name: str) -> None:
    with pytest.raises(InvalidInput) as err:
        store.save(name, ir())
    assert err.value.details["field"] == "name"
    assert not (store.root / "candidate").exists() or files_in(store.root / "candidate") == []


def test_a_name_whose_slug_exceeds_80_characters_is_refused() -> None:
    assert len(slugify("a" * 80)) == 80
    with pytest.raises(InvalidInput) as err:
        slugify("a" * 81)
    assert err.value.details["field"] == "name"


@pytest.mark.parametrize("name", ["\uff0e\uff0e\uff0fetc", "a\uff0fb", "a\uff3cb", "\u2025x", "\u2024\u2024\u2215x"])
def test_names_that_unicode_folds_into_a_path_are_refused(store: CompetenceStore, name: str) -> None:
    with pytest.raises(InvalidInput) as err:  # full-width '．．／', two-dot leader, division slash...
        store.save(name, ir())
    assert err.value.details["field"] == "name"
    assert not (store.root / "candidate").exists() or files_in(store.root / "candidate") == []


# --- saving and versions -----------------------------------------------------------------
def test_first_save_writes_the_current_file_as_version_1(store: CompetenceStore) -> None:
    saved = store.save("Admission patient", ir(), machine_id="PC-URG-01")
    assert saved.path == store.root / "candidate" / "admission-patient.yaml"
    assert (saved.version, saved.replaced_version) == (1, None)
    document = yaml.safe_load(saved.path.read_text("utf-8"))
    assert document["version"] == 1
    assert document["source"]["machine_id"] == "PC-URG-01"
    assert files_in(store.root / "candidate") == ["admission-patient.yaml"]


def test_saving_an_existing_name_keeps_every_previous_version_untouched(store: CompetenceStore) -> None:
    store.save("Admission patient", ir(steps=1))
    first = (store.root / "candidate" / "admission-patient.yaml").read_bytes()
    store.save("Admission patient", ir(steps=2))
    second = (store.root / "candidate" / "admission-patient.yaml").read_bytes()
    saved = store.save("Admission patient", ir(steps=3))
    folder = store.root / "candidate"
    assert files_in(folder) == ["admission-patient.v1.yaml", "admission-patient.v2.yaml", "admission-patient.yaml"]
    assert (folder / "admission-patient.v1.yaml").read_bytes() == first
    assert (folder / "admission-patient.v2.yaml").read_bytes() == second
    assert (saved.version, saved.replaced_version) == (3, 2)
    assert store.get("Admission patient").steps == 3
    assert store.get("Admission patient", version=1).steps == 1


def test_a_different_file_already_holding_the_archive_name_is_never_overwritten(store: CompetenceStore) -> None:
    store.save("Admission patient", ir())
    squatter = store.root / "candidate" / "admission-patient.v1.yaml"
    squatter.write_text("something else", "utf-8")
    with pytest.raises(Conflict):
        store.save("Admission patient", ir(steps=3))
    assert squatter.read_text("utf-8") == "something else"
    assert store.get("Admission patient").version == 1


def test_an_archive_left_by_an_interrupted_save_is_reused(store: CompetenceStore) -> None:
    store.save("Admission patient", ir())
    folder = store.root / "candidate"
    os.link(folder / "admission-patient.yaml", folder / "admission-patient.v1.yaml")  # crash after the link
    assert store.save("Admission patient", ir(steps=3)).version == 2


def test_saving_leaves_no_temporary_file(store: CompetenceStore) -> None:
    store.save("Admission patient", ir())
    store.save("Admission patient", ir(steps=4))
    assert not [n for n in files_in(store.root / "candidate") if n.startswith(".")]


def test_an_invalid_workflow_is_refused_naming_the_field(store: CompetenceStore) -> None:
    bad = ir()
    bad["steps"][0]["wait_after_ms"] = -5
    with pytest.raises(InvalidInput) as err:
        store.save("Admission patient", bad)
    assert err.value.details["field"] == "ir.steps.0.wait_after_ms"
    with pytest.raises(InvalidInput):
        store.save("Admission patient", {**ir(), "steps": []})
    with pytest.raises(InvalidInput):
        store.save("Admission patient", {**ir(), "surprise": 1})
    assert files_in(store.root / "candidate") == []


def test_preview_save_shows_the_replaced_version_and_a_diff_and_changes_nothing(store: CompetenceStore) -> None:
    first = store.preview_save("Admission patient", ir())
    assert (first.new_version, first.replaces_version, first.diff) == (1, None, None)
    assert not (store.root / "candidate").exists()
    store.save("Admission patient", ir(intent="Ouvrir"))
    before = files_in(store.root / "candidate")
    preview = store.preview_save("Admission patient", ir(intent="Fermer", steps=3))
    assert (preview.new_version, preview.replaces_version, preview.steps) == (2, 1, 3)
    assert preview.diff is not None
    assert "-  intent: Ouvrir 0" in preview.diff and "+  intent: Fermer 0" in preview.diff
    assert "admission-patient v1" in preview.diff
    assert files_in(store.root / "candidate") == before


# --- files placed by hand ----------------------------------------------------------------------
def test_a_valid_file_placed_by_hand_is_picked_up(store: CompetenceStore) -> None:
    folder = store.root / "validated"
    folder.mkdir(parents=True)
    document = {**ir("Sortie patient"), "version": 4}
    (folder / "sortie-patient.yaml").write_text(yaml.safe_dump(document), "utf-8")
    listing = store.list()
    assert [(c.slug, c.status, c.version, c.steps) for c in listing.competences] == [
        ("sortie-patient", "validated", 4, 2)
    ]
    assert listing.problems == []
    assert store.get("Sortie patient").workflow["steps"][1]["target"]["label"] == "Bouton 1"
    assert store.save("Sortie patient", ir("Sortie patient"), status="validated").version == 5


@pytest.mark.parametrize(
    ("filename", "text", "reason"),
    [
        ("broken.yaml", "name: [unclosed", "not valid YAML"),
        ("python.yaml", "!!python/object/apply:os.system ['true']", "not valid YAML"),
        ("bomb.yaml", "a: &a [1, 2]\nb: [*a, *a]\n", "aliases"),
        ("dup.yaml", "name: dup\nname: dup\n", "duplicate key"),
        ("nosteps.yaml", "name: nosteps\nversion: 1\nsteps: []\n", "steps"),
        ("list.yaml", "- 1\n- 2\n", "invalid competence"),
        ("other-name.yaml", yaml.safe_dump({**ir("Mismatch"), "version": 1}), "does not match the file name"),
        ("Mauvais Nom.yaml", yaml.safe_dump(ir()), "name the file <slug>.yaml"),
        ("admission.yml", yaml.safe_dump(ir()), "name the file <slug>.yaml"),
        ("notes.txt", "hello", "end in .yaml"),
    ],
)
def test_an_invalid_file_placed_by_hand_is_reported_not_ignored(
    store: CompetenceStore, filename: str, text: str, reason: str
) -> None:
    folder = store.root / "candidate"
    folder.mkdir(parents=True)
    (folder / filename).write_text(text, "utf-8")
    store.save("Valid one", ir("Valid one"))
    listing = store.list()
    assert [c.slug for c in listing.competences] == ["valid-one"]
    assert [(p.path.name, p.status) for p in listing.problems] == [(filename, "candidate")]
    assert reason in listing.problems[0].reason


def test_a_symlink_pointing_outside_the_folder_is_reported(store: CompetenceStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text(yaml.safe_dump(ir("evil")), "utf-8")
    folder = store.root / "candidate"
    folder.mkdir(parents=True)
    (folder / "evil.yaml").symlink_to(outside)
    listing = store.list()
    assert listing.competences == []
    assert "outside" in listing.problems[0].reason
    with pytest.raises(PreconditionFailed):
        store.get("evil")


def test_list_filters_by_status(store: CompetenceStore) -> None:
    store.save("A", ir("A"))
    store.save("B", ir("B"), status="validated")
    assert [c.slug for c in store.list("validated").competences] == ["b"]
    assert [c.slug for c in store.list("candidate").competences] == ["a"]


def test_get_an_unknown_name_or_version_is_not_found(store: CompetenceStore) -> None:
    store.save("A", ir("A"))
    with pytest.raises(NotFound):
        store.get("B")
    with pytest.raises(NotFound):
        store.get("A", version=7)
    with pytest.raises(InvalidInput) as err:
        store.get("../candidate/a")
    assert err.value.details["field"] == "name"


def test_yaml_written_is_plain_and_reloadable() -> None:
    text = yamlio.dump({"name": "Évaluation", "steps": [{"a": 1}, {"a": 1}]})
    assert "&" not in text and "*" not in text
    assert yamlio.load(text)["name"] == "Évaluation"


# --- delete to the trash -----------------------------------------------------------------------
def test_delete_moves_every_version_to_the_trash_with_a_manifest(store: CompetenceStore) -> None:
    store.save("Admission patient", ir(steps=1))
    store.save("Admission patient", ir(steps=2))
    preview = store.preview_delete("Admission patient")
    assert (preview.versions, preview.steps, preview.status) == ((1, 2), 2, "candidate")
    assert files_in(store.root / "candidate") == ["admission-patient.v1.yaml", "admission-patient.yaml"]
    done = store.delete("Admission patient")
    assert files_in(store.root / "candidate") == []
    assert done.trash_path.parent == store.root / ".trash"
    assert done.trash_path.name == "20270115T080000Z-candidate-admission-patient"
    assert files_in(done.trash_path) == ["admission-patient.v1.yaml", "admission-patient.yaml", "deleted.yaml"]
    manifest = yaml.safe_load((done.trash_path / "deleted.yaml").read_text("utf-8"))
    assert manifest["versions"] == [1, 2]
    assert store.list().competences == []
    with pytest.raises(NotFound):
        store.get("Admission patient")


def test_deleting_the_current_version_makes_the_previous_one_current(store: CompetenceStore) -> None:
    store.save("A", ir("A", steps=1))
    store.save("A", ir("A", steps=2))
    preview = store.preview_delete("A", version=2)
    assert (preview.restores_version, preview.current_after) == (1, 1)
    store.delete("A", version=2)
    assert (store.get("A").version, store.get("A").steps) == (1, 1)
    assert files_in(store.root / "candidate") == ["a.yaml"]
    assert store.save("A", ir("A")).version == 3  # 2 is in the trash: never reused for other content


def test_deleting_an_old_version_keeps_the_current_one(store: CompetenceStore) -> None:
    store.save("A", ir("A", steps=1))
    store.save("A", ir("A", steps=2))
    preview = store.preview_delete("A", version=1)
    assert (preview.files[0].name, preview.steps, preview.current_after) == ("a.v1.yaml", 1, 2)
    store.delete("A", version=1)
    assert files_in(store.root / "candidate") == ["a.yaml"]
    with pytest.raises(NotFound):
        store.delete("A", version=1)


def test_deleting_twice_in_the_same_second_keeps_both_trash_folders(store: CompetenceStore) -> None:
    store.save("A", ir("A"))
    first = store.delete("A")
    store.save("A", ir("A"))
    second = store.delete("A")
    assert first.trash_path != second.trash_path and first.trash_path.exists() and second.trash_path.exists()


def test_an_invalid_file_can_still_be_deleted(store: CompetenceStore) -> None:
    folder = store.root / "candidate"
    folder.mkdir(parents=True)
    (folder / "broken.yaml").write_text("name: [", "utf-8")
    with pytest.raises(PreconditionFailed):
        store.save("broken", ir("broken"))
    store.delete("broken")
    assert files_in(folder) == []


def test_a_name_in_both_folders_needs_a_status_to_delete(store: CompetenceStore) -> None:
    store.save("A", ir("A"))
    store.promote("A")
    store.save("A", ir("A", steps=3))
    with pytest.raises(InvalidInput) as err:
        store.preview_delete("A")
    assert err.value.details["field"] == "status"
    store.delete("A", status="candidate")
    assert [c.status for c in store.list().competences] == ["validated"]


# --- promotion ---------------------------------------------------------------------------------
def test_promote_moves_the_candidate_and_its_history_to_validated(store: CompetenceStore) -> None:
    store.save("A", ir("A", steps=1))
    store.save("A", ir("A", steps=2))
    saved = store.promote("A")
    assert (saved.status, saved.version, saved.replaced_version) == ("validated", 2, None)
    assert files_in(store.root / "candidate") == []
    assert files_in(store.root / "validated") == ["a.v1.yaml", "a.yaml"]
    assert store.get("A").status == "validated"


def test_promoting_again_keeps_the_previous_validated_version(store: CompetenceStore) -> None:
    store.save("A", ir("A", steps=1))
    store.promote("A")
    store.save("A", ir("A", steps=3, intent="Valider"))
    assert store.get("A").version == 2  # numbers are shared by both folders
    preview = store.preview_promote("A")
    assert (preview.version, preview.new_version, preview.replaces_version) == (2, 2, 1)
    assert preview.diff is not None and "+  intent: Valider 2" in preview.diff
    saved = store.promote("A")
    assert (saved.version, saved.replaced_version) == (2, 1)
    assert files_in(store.root / "validated") == ["a.v1.yaml", "a.yaml"]
    assert store.get("A", version=1, status="validated").steps == 1


def test_promote_without_a_candidate_is_not_found(store: CompetenceStore) -> None:
    with pytest.raises(NotFound):
        store.promote("nothing")


def test_a_listing_iterates_over_its_valid_competences(store: CompetenceStore) -> None:
    store.save("A", ir("A"))
    (store.root / "candidate" / "broken.yaml").write_text("name: [", "utf-8")
    listing = store.list()
    assert [c.slug for c in listing] == ["a"] and len(listing) == 1 and len(listing.problems) == 1
