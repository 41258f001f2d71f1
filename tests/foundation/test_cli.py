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


def test_token_in_a_folder_without_a_key_refuses_and_creates_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("RPA_JWT_SECRET", raising=False)
    assert main(["token", "--sub", "alice", "--role", "operator"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "no signing key in" in captured.err and "--init" in captured.err
    assert not (tmp_path / "data" / "signing.key").exists()


def test_token_says_on_stderr_which_folder_and_key_it_used(tmp_path, monkeypatch, capsys):
    from rpa_mcp.auth.keys import fingerprint

    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("RPA_JWT_SECRET", raising=False)
    assert main(["token", "--sub", "alice", "--role", "operator", "--init"]) == 0
    first = capsys.readouterr()
    key = (tmp_path / "data" / "signing.key").read_bytes().strip()
    assert f"data folder {(tmp_path / 'data').resolve()}" in first.err and fingerprint(key) in first.err
    assert main(["token", "--sub", "bob", "--role", "agent"]) == 0  # the key now exists: no --init needed
    second = capsys.readouterr()
    assert jwt.decode(second.out.strip(), key, algorithms=["HS256"], audience="rpa-mcp")["sub"] == "bob"
    assert fingerprint(key) in second.err and key.decode() not in second.err + second.out


def test_serve_on_a_busy_port_says_so_in_one_line_and_prints_nothing_else(tmp_path, monkeypatch, capsys):
    import socket

    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        assert main(["serve", "--port", str(busy.getsockname()[1])]) == 2
    finally:
        busy.close()
    captured = capsys.readouterr()
    assert captured.out == ""  # no URL, no token, no client configuration for a server that is not there
    assert captured.err.count("\n") == 1 and "already in use" in captured.err


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"RPA_AUTH_DISABLED": "true", "RPA_HOST": "0.0.0.0"}, "only allowed on a loopback bind"),
        ({"RPA_JWT_SECRET": "short"}, "at least 32 are required"),
        ({"RPA_PORT": "eighty"}, "RPA_PORT"),
    ],
)
def test_a_refused_start_is_one_line_and_a_non_zero_exit(tmp_path, monkeypatch, capsys, env, said):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    monkeypatch.setenv("RPA_PORT", "0")  # the port is bound before these checks: any free one
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["serve"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and said in captured.err
    assert "Traceback" not in captured.err


def test_bench_help_lists_every_benchmark_with_what_it_measures(capsys):
    from rpa_mcp.bench import BENCHMARKS

    with pytest.raises(SystemExit) as exited:
        main(["bench", "--help"])
    assert exited.value.code == 0
    helped = capsys.readouterr().out
    assert len(BENCHMARKS) >= 10
    for name, what in BENCHMARKS.items():
        line = next((line for line in helped.splitlines() if line.split()[:1] == [name]), None)
        assert line is not None, f"{name} has no line of its own in bench --help"
        assert what in line and len(what.split()) >= 4


def test_bench_refuses_an_unknown_name_in_one_line_naming_the_valid_ones(capsys):
    from rpa_mcp.bench import BENCHMARKS

    assert main(["bench", "nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "unknown benchmark nope" in captured.err
    assert all(name in captured.err for name in BENCHMARKS)


def test_the_readme_names_every_command_and_every_benchmark(capsys):
    import re
    from pathlib import Path

    from rpa_mcp.bench import BENCHMARKS

    with pytest.raises(SystemExit):
        main(["--help"])
    commands = re.search(r"\{([a-z0-9,-]+)\}", capsys.readouterr().out)
    assert commands is not None
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = [line for line in readme.splitlines() if line.startswith("| `rpa-mcp ")]
    named = {line.split("`rpa-mcp ")[1].split()[0].strip("`") for line in table}
    assert set(commands.group(1).split(",")) - named == set()
    bench_row = next(line for line in table if line.startswith("| `rpa-mcp bench"))
    assert [name for name in BENCHMARKS if f"`{name}`" not in bench_row] == []


def test_the_server_no_longer_runs_an_agent_and_says_which_command_does(capsys):
    assert main(["agent-x11", "--url", "http://127.0.0.1:8765"]) == 2
    err = capsys.readouterr().err
    assert "rpa-mcp-agent" in err and "rpa-agent run" in err
