"""The audit chain detects edits and deletions; the domain stays free of transport code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from tests.foundation.helpers import test_registry

pytestmark = pytest.mark.anyio
DOMAIN = ("vision", "shadow", "replay", "validation", "dialogs", "confirmation", "competences")
FORBIDDEN = (
    "mcp",
    "starlette",
    "uvicorn",
    "httpx",
    "httpx2",
    "jwt",
    "rpa_mcp.ops",
    "rpa_mcp.entrypoints",
    "rpa_mcp.store",
)


async def _some_calls(services) -> None:
    from rpa_mcp.errors import InvalidInput

    registry = test_registry()
    for i in range(3):
        with pytest.raises(InvalidInput):
            await dispatch(
                registry,
                services,
                "draft_note",
                {"key": f"k{i}", "text": "secret: x", "password": "p"},
                Caller("alice", frozenset({"operator"})),
                surface="rest",
            )


async def test_every_call_leaves_one_audit_row_with_secrets_summarized(services):
    await _some_calls(services)
    rows = services.audit.rows(operation="draft_note")
    assert len(rows) == 3 and all(r["actor"] == "alice" and r["via"] == "rest" for r in rows)
    assert '"password": "[redacted]"' in rows[0]["args_summary"]
    assert rows[0]["outcome"] == "error" and rows[0]["code"] == "invalid-input"  # password is not a field
    assert services.audit.verify().ok


async def test_an_edited_audit_row_is_detected(services):
    await _some_calls(services)
    with pytest.raises(Exception, match="append-only"):
        services.db.execute("UPDATE audit SET actor = 'mallory' WHERE id = 2")
    services.db.execute("DROP TRIGGER audit_no_update")  # an attacker with file access
    services.db.execute("UPDATE audit SET actor = 'mallory' WHERE id = 2")
    check = services.audit.verify()
    assert not check.ok and check.first_bad_id == 2


async def test_a_deleted_audit_row_is_detected(services):
    await _some_calls(services)
    services.db.execute("DROP TRIGGER audit_no_delete")
    services.db.execute("DELETE FROM audit WHERE id = 2")
    assert not services.audit.verify().ok


def test_domain_packages_import_no_transport_or_adapter():
    root = Path(__file__).resolve().parents[2] / "rpa_mcp"
    offenders = []
    for area in DOMAIN:
        for path in (root / area).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                for name in names:
                    if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
                        offenders.append(f"{path.relative_to(root)} imports {name}")
    assert offenders == []


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_the_token_adapters_need_nothing_of_the_operations_layer():
    root = Path(__file__).resolve().parents[2] / "rpa_mcp"
    offenders = [
        f"{path.name} imports {name}"
        for path in (root / "auth").rglob("*.py")
        for name in _imports(path)
        if name.startswith(("rpa_mcp.ops", "rpa_mcp.entrypoints", "rpa_mcp.bootstrap"))
    ]
    assert offenders == []
    assert [n for n in _imports(root / "identity.py") if n != "__future__"] == ["collections.abc", "dataclasses"]


def test_rows_recorded_without_waiting_are_committed_in_order_and_chained(services):
    for i in range(50):
        services.audit.record(actor="a", operation=f"op{i}", args={}, outcome="ok", wait=i % 7 == 0)
    operations = [r["operation"] for r in services.audit.rows() if r["operation"].startswith("op")]
    assert operations == [f"op{i}" for i in range(50)]
    assert services.audit.verify().ok
