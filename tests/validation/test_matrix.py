"""The validator matrix: complete, validated at load, and refusing the anti-patterns."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rpa_mcp.errors import InvalidInput
from rpa_mcp.settings import shipped_dir
from rpa_mcp.validation import ACTION_TYPES, VerdictKind, check_matrix, load_validator_matrix
from rpa_mcp.validation.matrix import MATRIX_FILE, ValidatorMatrix


def _raw() -> dict:
    return yaml.safe_load((shipped_dir("catalog") / MATRIX_FILE).read_text(encoding="utf-8"))


def _write(tmp_path: Path, raw: dict) -> Path:
    (tmp_path / MATRIX_FILE).write_text(yaml.safe_dump(raw), encoding="utf-8")
    return tmp_path


def test_the_shipped_matrix_covers_the_28_action_types(matrix: ValidatorMatrix) -> None:
    assert len(ACTION_TYPES) == 28
    assert set(matrix.actions) == set(ACTION_TYPES)
    for spec in matrix.actions.values():
        assert spec.primary and spec.secondary and spec.fallback
        assert spec.target_latency_ms > 0 and spec.wait_after_ms >= 0
        assert VerdictKind.UNCERTAIN in spec.verdicts


def test_check_matrix_reports_nothing_for_the_shipped_catalog() -> None:
    assert check_matrix(shipped_dir("catalog")) == []


def test_switch_tab_aggregation_is_the_documented_rule(matrix: ValidatorMatrix) -> None:
    rules = {r.id: r for r in matrix.actions["switch_tab"].rules}
    assert {k: str(v) for k, v in rules["tab-active"].when.items()} == {"primary": ">=0.85"}
    assert {k: str(v) for k, v in rules["tab-active-content-changed"].when.items()} == {
        "primary": ">=0.65",
        "secondary": ">=0.7",
    }


def test_a_missing_action_type_is_named(tmp_path: Path) -> None:
    raw = _raw()
    del raw["actions"]["scroll"]
    problems = check_matrix(_write(tmp_path, raw))
    assert len(problems) == 1 and "scroll" in problems[0]


def test_a_rule_on_an_undefined_signal_is_refused(tmp_path: Path) -> None:
    raw = _raw()
    raw["actions"]["save"]["rules"].append({"id": "x", "when": {"nope": ">=0.5"}, "verdict": "SUCCESS"})
    assert "undefined signal 'nope'" in check_matrix(_write(tmp_path, raw))[0]


def test_a_malformed_condition_is_refused(tmp_path: Path) -> None:
    raw = _raw()
    raw["actions"]["save"]["rules"][0]["when"] = {"app": "about half"}
    assert "is not '<op> <number in 0..1>'" in check_matrix(_write(tmp_path, raw))[0]


def test_a_failure_rule_without_category_is_refused(tmp_path: Path) -> None:
    raw = _raw()
    del raw["actions"]["save"]["rules"][0]["category"]
    assert "needs a category" in check_matrix(_write(tmp_path, raw))[0]


def test_a_verdict_without_evidence_is_refused(tmp_path: Path) -> None:
    raw = _raw()
    raw["actions"]["click_anchor"]["rules"].insert(0, {"id": "sent", "when": {}, "verdict": "SUCCESS"})
    assert "no verdict without evidence" in check_matrix(_write(tmp_path, raw))[0]


def test_an_unknown_checker_is_refused(tmp_path: Path) -> None:
    raw = _raw()
    raw["actions"]["save"]["signals"]["saved"]["checker"] = "SsimChecker"
    assert "unknown checker 'SsimChecker'" in check_matrix(_write(tmp_path, raw))[0]


def test_a_missing_or_broken_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as missing:
        load_validator_matrix(tmp_path / MATRIX_FILE)
    assert missing.value.code == "invalid-input"
    (tmp_path / MATRIX_FILE).write_text("actions: [unclosed", encoding="utf-8")
    assert "not valid YAML" in check_matrix(tmp_path)[0]
