"""The window a replay begins on: the recorded one, or another of the workflow's own windows.

A workflow's own windows are the titles its steps were recorded on or led to, read as templates:
the demonstrated record's parts (a parameter's ``{{name}}`` and the words shown after a name,
``ANY_WORDS``) stand for whatever record the window shows. 'Admission — {{patient}} {{*}}' makes
'Admission — {{*}}': the admission window of any patient.

An application is often left on the last record it showed ('Admission — DUPONT Marie') while the
workflow begins on its search ('Admission — Bureau des entrées'), or on the demonstrated patient's
window. Such a window may stand in for the recorded one, for the *leading steps* only: the first
desktop step and those after it recorded on the same window, up to and including the step that
chooses the run's record (a step with an identity, read on the row before its click). They search
for the record, they do not change one: a run of leading steps that holds an irreversible step, or
leaves the window before choosing a record, never begins on another window (a person brings the
recorded one). The record chosen is still the run's: its identity check is unchanged. Only the
screen observed at the run's start decides it (rpa_mcp.replay.service.preflight).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rpa_mcp.replay import model as m
from rpa_mcp.replay.outcomes import IRREVERSIBLE
from rpa_mcp.validation.text import text_contains, text_equals
from rpa_mcp.vision.text_match import ANY_WORDS, parts

PLACEHOLDER = re.compile(r"\{\{\s*[a-z][a-z0-9_]*\s*\}\}")  # a parameter's place ({{patient}}), never a secret
RUN_OF_ANY = re.compile(r"\{\{\*\}\}(?:\s*\{\{\*\}\})+")
MIN_FIXED_CHARS = 4  # a template must keep this many letters or digits of its own: '{{*}}' names no window


def same_screen(expected: str, seen: str) -> bool:
    """The window `expected` names is `seen`; a title holding a part of the record no one knew in advance
    (ANY_WORDS: a first name beside the patient's name) matches whatever the record shows there."""
    if ANY_WORDS in expected:
        return text_contains(seen, expected)
    return m.screen_signature(expected) == m.screen_signature(seen)


def template_of(title: str) -> str:
    """A window title with the demonstrated record's parts made wildcards."""
    return RUN_OF_ANY.sub(ANY_WORDS, PLACEHOLDER.sub(ANY_WORDS, title)).strip()


def own_templates(titles: Iterable[Any]) -> list[str]:
    """The workflow's own windows as templates, from its steps' titles (before the run's values fill them)."""
    found = (template_of(t) for t in titles if isinstance(t, str) and t.strip())
    return sorted({t for t in found if sum(ch.isalnum() for p in parts(t) for ch in p) >= MIN_FIXED_CHARS})


def step_titles(step: Mapping[str, Any]) -> list[Any]:
    """The titles a workflow step names: its window before and after, its target's window."""
    target = step.get("target") if isinstance(step.get("target"), dict) else {}
    return [step.get("expected_window_before"), step.get("expected_window_after"), (target or {}).get("window_title")]


def own_template(title: str | None, templates: Sequence[str]) -> str | None:
    """The template of the workflow's own window `title` is (its whole title), else None."""
    if not title:
        return None
    return next((t for t in templates if text_equals(title, t)), None)


def recorded_window(action: Mapping[str, Any]) -> str | None:
    """The window a planned step was recorded on (its target's, else its expected window before)."""
    target = action.get("target") if isinstance(action.get("target"), dict) else {}
    title = (target or {}).get("window_title") or (action.get("expected") or {}).get("window_before")
    return title if isinstance(title, str) and title.strip() else None


def leading_run(actions: Sequence[Mapping[str, Any]]) -> list[int]:
    """Indices of the leading steps that may begin on another of the workflow's own windows: from the first
    desktop step, those recorded on its window up to the one that chooses the record; [] when none may."""
    first = next((i for i, a in enumerate(actions) if not a.get("server_side")), None)
    recorded = recorded_window(actions[first]) if first is not None else None
    if first is None or recorded is None:
        return []
    run: list[int] = []
    for i in range(first, len(actions)):
        action = actions[i]
        expected = action.get("expected") or {}
        target = action.get("target") if isinstance(action.get("target"), dict) else {}
        if (
            action.get("server_side")
            or recorded_window(action) != recorded
            or expected.get("step_class") == IRREVERSIBLE
        ):
            return []
        run.append(i)
        if (target or {}).get("identity"):  # the run's record is chosen here, by who it is
            return run
        after = expected.get("window_after")
        if isinstance(after, str) and after.strip() and after != recorded:
            return []  # it leaves the window before a record is chosen: its steps may change one
    return []


def on_window(action: Mapping[str, Any], recorded: str, seen: str) -> tuple[Any, dict[str, Any]]:
    """A leading step's target and expected windows on the window `seen` instead of `recorded`; the step
    that chooses the record still leads to the run's record."""
    target = action.get("target")
    chooses = isinstance(target, dict) and bool(target.get("identity"))
    if isinstance(target, dict) and target.get("window_title") == recorded:
        target = {**target, "window_title": seen}
    expected = dict(action.get("expected") or {})
    for key in ("window_before",) if chooses else ("window_before", "window_after"):
        if expected.get(key) == recorded:
            expected[key] = seen
    outcome = expected.get("outcome")
    if (
        not chooses
        and isinstance(outcome, dict)
        and outcome.get("kind") == "window_title"
        and outcome.get("text") == recorded
    ):
        expected["outcome"] = {**outcome, "text": seen}
    expected["recorded_window"] = recorded  # the evidence says which window it was recorded on
    return target, expected


def starting_on(actions: Sequence[dict[str, Any]], seen: str, *, replay_id: str | None) -> list[int]:
    """The leading steps of `actions` (planned or rows as dicts) moved to the window `seen`, in place;
    the indices changed."""
    run = leading_run(actions)
    recorded = recorded_window(actions[run[0]]) if run else None
    if recorded is None or recorded == seen:
        return []
    for i in run:
        actions[i]["target"], actions[i]["expected"] = on_window(actions[i], recorded, seen)
    m.log_event("start_window", replay_id=replay_id, recorded=recorded, seen=seen, steps=len(run))
    return run
