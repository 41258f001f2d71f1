"""The workstation agent's own configuration: arguments, then RPA_AGENT_* variables, then its file."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from rpa_agent import config
from rpa_agent.config import ConfigError


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    config.add_options(parser)
    return parser.parse_args(list(argv))


def token_file(folder: Path, token: str = "tok-123") -> Path:
    path = folder / "agent.token"
    path.write_text(f"{token}\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def test_the_command_line_names_the_server_the_machine_and_the_token_file(tmp_path: Path) -> None:
    args = parse("--url", "http://srv:8765", "--machine-id", "PC 12", "--token-file", str(token_file(tmp_path)))
    cfg = config.load(args, environ={"XDG_STATE_HOME": str(tmp_path)})
    assert (cfg.url, cfg.machine_id, cfg.token) == ("http://srv:8765", "PC 12", "tok-123")
    assert cfg.journal == tmp_path / "rpa-agent" / "PC_12.journal.sqlite"


def test_the_environment_gives_what_the_command_line_does_not(tmp_path: Path) -> None:
    env = {"RPA_AGENT_URL": "http://srv", "RPA_AGENT_MACHINE_ID": "PC-3", "RPA_AGENT_TOKEN": " t0k ",
           "RPA_AGENT_DATA_DIR": str(tmp_path / "data")}  # fmt: skip
    cfg = config.load(parse(), environ=env)
    assert (cfg.url, cfg.machine_id, cfg.token, cfg.data_dir) == ("http://srv", "PC-3", "t0k", tmp_path / "data")


def test_a_configuration_file_is_read_with_paths_from_its_folder(tmp_path: Path) -> None:
    token_file(tmp_path)
    (tmp_path / "agent.toml").write_text(
        'url = "https://rpa.example"\nmachine_id = "PC-7"\ntoken_file = "agent.token"\ndata_dir = "state"\n',
        encoding="utf-8",
    )
    cfg = config.load(parse("--config", str(tmp_path / "agent.toml")), environ={})
    assert (cfg.url, cfg.machine_id, cfg.token) == ("https://rpa.example", "PC-7", "tok-123")
    assert cfg.data_dir == tmp_path / "state"


def test_a_misspelled_key_in_the_file_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "agent.toml").write_text('url = "http://x"\nmachine = "PC"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="machine"):
        config.load(parse("--config", str(tmp_path / "agent.toml")), environ={})


def test_without_a_server_url_the_agent_says_where_to_give_it() -> None:
    with pytest.raises(ConfigError, match="RPA_AGENT_URL"):
        config.load(parse("--machine-id", "PC"), environ={})


def test_the_servers_own_api_token_setting_is_never_read(tmp_path: Path) -> None:
    cfg = config.load(parse("--url", "http://x", "--machine-id", "PC"), environ={"RPA_API_TOKEN": "server-secret"})
    assert cfg.token is None


def test_a_token_file_holding_two_words_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="alone"):
        config.read_token(token_file(tmp_path, "two words"))


def test_a_token_on_the_command_line_works_with_a_warning() -> None:
    warnings: list[str] = []
    cfg = config.load(
        parse("--url", "http://x", "--machine-id", "PC", "--token", "t"), environ={}, warn=warnings.append
    )
    assert cfg.token == "t" and "process list" in warnings[0]
