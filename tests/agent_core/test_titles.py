"""The agent matches a window title to a step's as the server's validator does (`rpa_mcp.vision.text_match`):
the agent cannot import the server, so the two copies are held to the same answers here."""

from __future__ import annotations

import pytest
from rpa_agent.core import titles

from rpa_mcp.vision import text_match

CASES = [
    ("Admission — FAURE Céline", "Admission — FAURE Céline"),
    ("Admission — FAURE Céline", "Admission — FAURE {{*}}"),
    ("Admission — FAURE Céline", "Admission — DURAND {{*}}"),
    ("Admission — FAURE Céline", "{{*}} — FAURE"),
    ("Admission — FAURE Céline", "Céline {{*}} Admission"),  # parts out of order
    ("Admission", "Admission — FAURE"),
    ("Admission — FAURE Céline", "Admission"),  # holding the wanted text is not equal, without ANY_WORDS
    ("", "{{*}}"),
    ("Notes", "  {{*}}  "),
]


@pytest.mark.parametrize(("title", "wanted"), CASES)
def test_the_agent_and_the_server_match_a_title_alike(title: str, wanted: str) -> None:
    assert titles.title_matches(title, wanted) == text_match.title_matches(title, wanted)


@pytest.mark.parametrize("wanted", ["Admission", "A {{*}} B {{*}}", "{{*}}", "  {{*}} x"])
def test_the_agent_and_the_server_split_an_expected_text_alike(wanted: str) -> None:
    assert titles.parts(wanted) == text_match.parts(wanted)
    assert titles.ANY_WORDS == text_match.ANY_WORDS


def test_the_cases_cover_both_answers() -> None:
    answers = {text_match.title_matches(title, wanted) for title, wanted in CASES}
    assert answers == {True, False}
