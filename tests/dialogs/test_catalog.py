from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rpa_mcp.dialogs.catalog import REQUIRED_IDS, SKIP_IDS, check_catalog, parse_dialog_catalog
from rpa_mcp.errors import InternalError
from rpa_mcp.settings import shipped_dir


def raw() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((shipped_dir("catalog") / "dialogs.yaml").read_text(encoding="utf-8"))
    return data


def entry(data: dict[str, Any], dialog_id: str) -> dict[str, Any]:
    return next(e for e in data["dialogs"] if e["id"] == dialog_id)


def test_shipped_catalog_has_every_required_id_and_about_sixty_entries(catalog):
    ids = {d.id for d in catalog.dialogs}
    assert set(REQUIRED_IDS) <= ids
    assert 50 <= len(ids) <= 80


def test_policies_follow_the_spec(catalog):
    by_policy = {p: [d.id for d in catalog.dialogs if d.policy == p] for p in ("auto", "pause", "skip")}
    assert set(by_policy["skip"]) == SKIP_IDS
    assert 8 <= len(by_policy["auto"]) <= 12
    assert len(by_policy["pause"]) > len(by_policy["auto"]) + len(by_policy["skip"])
    assert catalog.get("easily-save-confirm").policy == "auto"
    assert catalog.get("easily-required-field").policy == "pause"
    clinical = catalog.get("easily-clinical-warning")
    assert clinical.policy == "pause" and not clinical.declarative_override
    for dialog_id in (
        "browser-leave-site",
        "notepad-save-changes",
        "office-save-changes",
        "file-save-as",
        "browser-perm-microphone",
        "browser-perm-camera",
    ):
        assert catalog.get(dialog_id).policy == "pause" and catalog.get(dialog_id).declarative_override


def test_every_system_dialog_is_pause_and_locked(catalog):
    for d in catalog.dialogs:
        if d.category == "A" or d.id.startswith(("windows-", "defender-")):
            assert d.policy == "pause" and not d.declarative_override and d.locked, d.id


def test_every_entry_has_french_and_english_titles_and_buttons(catalog):
    for d in catalog.dialogs:
        if d.id != "unknown":
            assert d.titles.en and d.titles.fr, d.id
        for b in d.buttons:
            assert b.en and b.fr, d.id
        if d.policy == "auto":
            assert d.button(d.auto_button) is not None, d.id


def test_check_catalog_on_the_shipped_folder_finds_no_problem():
    assert check_catalog(shipped_dir("catalog")) == []


@pytest.mark.parametrize(
    ("dialog_id", "mutate", "expected"),
    [
        ("windows-uac", lambda e: e.update(policy="auto", auto_button="accept"), "dialogs[windows-uac]"),
        ("windows-uac", lambda e: e.update(declarative_override=True), "dialogs[windows-uac]"),
        ("easily-save-confirm", lambda e: e.update(auto_button="nope"), "auto_button"),
        ("easily-save-confirm", lambda e: e.update(colour="red"), "dialogs[easily-save-confirm].colour"),
        ("app-error", lambda e: e["buttons"][0].update(en=True), "dialogs[app-error].buttons.0.en"),
        ("app-error", lambda e: e["match"].update(title_regex="(unclosed"), "dialogs[app-error].match.title_regex"),
        ("easily-delete-confirm", lambda e: e.update(policy="auto", auto_button="delete"), "easily-delete-confirm"),
        ("easily-required-field", lambda e: e.update(policy="auto", auto_button="ok"), "easily-required-field"),
    ],
)
def test_a_bad_entry_is_refused_naming_its_id_and_field(dialog_id, mutate, expected):
    data = raw()
    mutate(entry(data, dialog_id))
    with pytest.raises(InternalError) as err:
        parse_dialog_catalog(data)
    assert err.value.code == "internal-error"
    assert expected in err.value.message


def test_a_missing_required_id_is_named():
    data = raw()
    data["dialogs"] = [e for e in data["dialogs"] if e["id"] != "windows-hello"]
    with pytest.raises(InternalError, match="windows-hello"):
        parse_dialog_catalog(data)


def test_check_catalog_reports_problems_instead_of_raising(tmp_path: Path):
    (tmp_path / "dialogs.yaml").write_text("version: 1\ndialogs: [{id: x}]\n", encoding="utf-8")
    problems = check_catalog(tmp_path)
    assert problems and "dialogs[x]" in problems[0]
    assert check_catalog(tmp_path / "missing") != []


@pytest.mark.parametrize(
    ("process", "expected"),
    [
        ("msedge.exe", "system_processes: msedge.exe also hosts edge-update"),
        ("WerFault.exe", "also hosts app-error"),
        ("nothing.exe", "named by no entry"),
    ],
)
def test_only_a_process_hosting_nothing_but_system_dialogs_may_decide(process, expected):
    data = raw()
    data["system_processes"] = [*data["system_processes"], process]
    with pytest.raises(InternalError) as err:
        parse_dialog_catalog(data)
    assert expected in err.value.message


def test_the_shipped_system_processes_host_only_system_dialogs(catalog):
    assert {"consent.exe", "CredentialUIBroker.exe"} <= set(catalog.system_processes)
    for process in catalog.system_processes:
        hosts = [e for e in catalog.dialogs if process in e.match.processes]
        assert hosts and all(e.locked and e.category == "A" for e in hosts), process
    assert not {"msedge.exe", "chrome.exe", "notepad.exe", "explorer.exe"} & set(catalog.system_processes)
