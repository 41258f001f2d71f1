"""The four shipped prompts are served from files, with arguments that are substituted."""

from __future__ import annotations

import itertools
import re

import pytest
from mcp import Client

from rpa_mcp.entrypoints.app import local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.entrypoints.prompts import PromptArg, PromptFile
from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops import build_registry

pytestmark = pytest.mark.anyio


async def test_the_four_prompts_are_listed_and_render_their_arguments(services):
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert {"teach-me", "review-steps", "supervise-replay", "triage-dialog"} <= set(prompts)
        assert all(p.description and all(a.description for a in p.arguments or []) for p in prompts.values())
        rendered = await client.get_prompt("supervise-replay", {"competence": "Imagerie patient"})
    text = rendered.messages[0].content.text
    assert "Imagerie patient" in text and "{competence}" not in text


def test_a_missing_required_argument_is_named():
    prompt = PromptFile("p", "P", "d", "Hello {who} {other}", (PromptArg("who", "w", required=True),))
    with pytest.raises(InvalidInput) as info:
        prompt.render({})
    assert info.value.details["field"] == "who"
    assert prompt.render({"who": "Ana"}) == "Hello Ana {other}"


def _shipped_prompts():
    from rpa_mcp.entrypoints.prompts import load_prompts
    from rpa_mcp.settings import shipped_dir

    return load_prompts(shipped_dir("prompts"))


@pytest.mark.parametrize("prompt", _shipped_prompts(), ids=lambda p: p.name)
def test_every_prompt_reads_cleanly_without_its_optional_arguments(prompt):
    text = prompt.render({a.name: "Imagerie patient" for a in prompt.arguments if a.required})
    leftovers = [f"{{{a.name}}}" for a in prompt.arguments if f"{{{a.name}}}" in text]
    assert leftovers == [] and "[[" not in text and "]]" not in text and "||" not in text
    for empty in (": .", "( )", "()", '""', " ,", " .", "Known session", "if empty"):
        assert empty not in text, f"{prompt.name}: {empty!r} in {text[:400]!r}"


@pytest.mark.parametrize("prompt", _shipped_prompts(), ids=lambda p: p.name)
def test_every_prompt_uses_every_argument_it_is_given(prompt):
    values = {a.name: f"value-of-{a.name}" for a in prompt.arguments}
    text = prompt.render(values)
    assert [v for v in values.values() if v not in text] == []
    assert "[[" not in text and "||" not in text


def test_an_optional_part_falls_back_to_its_other_words():
    prompt = PromptFile("p", "P", "d", "Go[[ to {where}|| anywhere]].", (PromptArg("where", "w"),))
    assert prompt.render({}) == "Go anywhere."
    assert prompt.render({"where": "Lyon"}) == "Go to Lyon."
    assert prompt.render({"where": "  "}) == "Go anywhere."


def _renderings(prompt):
    """The prompt rendered with its required arguments and every subset of its optional ones."""
    required = {a.name: "Imagerie patient" for a in prompt.arguments if a.required}
    optional = [a.name for a in prompt.arguments if not a.required]
    for size in range(len(optional) + 1):
        for given in itertools.combinations(optional, size):
            yield given, prompt.render({**required, **{name: f"value-of-{name}" for name in given}})


# `{{name}}` is how a workflow writes a parameter (it is prompt text); a lone `{name}` is a leftover.
LEFTOVER = re.compile(r"(?<!\{)\{\w+\}(?!\})")


@pytest.mark.parametrize("prompt", _shipped_prompts(), ids=lambda p: p.name)
def test_every_prompt_renders_cleanly_with_any_subset_of_its_optional_arguments(prompt):
    renderings = list(_renderings(prompt))
    assert len(renderings) == 2 ** len([a for a in prompt.arguments if not a.required])
    for given, text in renderings:
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{prompt.name} given {given or 'no optional argument'}, line {number}: {line!r}"
            assert not re.search(r"\S {2,}\S", line), f"doubled space in {where}"
            assert not re.search(r"\s[.,;:]( |$)", line), f"punctuation after an empty field in {where}"
            assert not LEFTOVER.search(line), f"unfilled placeholder in {where}"
            assert "[[" not in line and "]]" not in line and "||" not in line, f"optional-part markup in {where}"
            assert '""' not in line and "« »" not in line and "''" not in line, f"empty quotes in {where}"


def test_the_clean_rendering_check_catches_what_it_is_for():
    broken = PromptFile(
        "p", "P", "d", 'Task: {task}.  Known session: "{s}".', (PromptArg("task", "t"), PromptArg("s", "s"))
    )
    (_, text), *_ = _renderings(broken)
    assert text == 'Task: .  Known session: "".'
    assert re.search(r"\S {2,}\S", text) and re.search(r"\s[.,;:]( |$)", text) and '""' in text
    assert LEFTOVER.search("Task {task}") and not LEFTOVER.search("types `{{patient}}`")
