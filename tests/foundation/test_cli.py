"""The command line: tokens for scripts, audit verification."""

from __future__ import annotations

import jwt
import pytest

from rpa_mcp.cli import main
from tests.conftest import SECRET


def test_token_prints_only_a_verifiable_token(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    assert main(["token", "--sub", "alice", "--role", "operator", "--role", "approver", "--ttl", "60"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    claims = jwt.decode(out.strip(), SECRET, algorithms=["HS256"], audience="rpa-mcp")
    assert claims["sub"] == "alice" and claims["roles"] == ["approver", "operator"]
    assert claims["exp"] - claims["iat"] == 60


def test_token_with_an_unknown_role_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit):
        main(["token", "--sub", "a", "--role", "root"])


def test_audit_verify_reports_an_intact_chain(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    assert main(["audit", "verify"]) == 0
    assert "intact" in capsys.readouterr().out
