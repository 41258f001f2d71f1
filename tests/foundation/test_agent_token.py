"""A desktop agent reads its token from a file or the environment; the command line still works, warned."""

from __future__ import annotations

import argparse

import pytest

from rpa_mcp.agent_token import add_token_options, agent_token


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_token_options(parser)
    return parser.parse_args(list(argv))


def test_the_token_file_comes_first_and_is_read_alone(tmp_path):
    path = tmp_path / "agent.token"
    path.write_text("  tok-from-file\n")
    path.chmod(0o600)
    said: list[str] = []
    token = agent_token(_args("--token-file", str(path)), environ={"RPA_AGENT_TOKEN": "env"}, warn=said.append)
    assert token == "tok-from-file" and said == []


def test_a_token_file_readable_by_others_is_warned(tmp_path):
    path = tmp_path / "agent.token"
    path.write_text("tok")
    path.chmod(0o644)
    said: list[str] = []
    assert agent_token(_args("--token-file", str(path)), environ={}, warn=said.append) == "tok"
    assert len(said) == 1 and "chmod 600" in said[0]


@pytest.mark.parametrize("content", [None, "", "two words\n"])
def test_a_missing_or_empty_token_file_stops_in_one_line(tmp_path, content):
    path = tmp_path / "agent.token"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as stopped:
        agent_token(_args("--token-file", str(path)), environ={})
    assert str(path) in str(stopped.value.code) and "\n" not in str(stopped.value.code)


def test_the_environment_comes_before_the_command_line():
    said: list[str] = []
    assert agent_token(_args("--token", "cli"), environ={"RPA_AGENT_TOKEN": "env\n"}, warn=said.append) == "env"
    assert said == []


def test_a_token_on_the_command_line_still_works_and_is_warned():
    said: list[str] = []
    assert agent_token(_args("--token", "cli"), environ={}, warn=said.append) == "cli"
    assert len(said) == 1 and "process list" in said[0]


def test_without_any_the_fallback_is_asked():
    assert agent_token(_args(), environ={}, fallback=lambda: "static") == "static"
