"""The server's and the agent's rules for the accessibility tree standing in for a target say the same: the
preflight asks about the first steps the agent's step-time fallback (`by_tree`) would find by the tree (and,
for an input kind that acts at no point, the agent answers it never stands in)."""

from __future__ import annotations

from typing import Any

import pytest
from rpa_agent.core import locate
from rpa_agent.core.wire import NextAction, Target

from rpa_mcp.replay.tree_fallback import TREE_ROLES, tree_question

BUTTON = {"label": "Dossier", "window_title": "MédiDossier", "element": {"name": "Dossier", "role": "Button"}}


def step(action_type: str = "click_anchor", step_class: str = "navigation", **target: Any) -> dict[str, Any]:
    return {"action_type": action_type, "target": {**BUTTON, **target}, "expected": {"step_class": step_class}}


STEPS = {
    "named button": step(),
    "named by its text": step(label=None, by_text="Dossier"),
    "irreversible": step(step_class="irreversible"),
    "record-selecting": step(identity="DUPONT Marie"),
    "name is not the label": step(label="Dossiers"),
    "a grid cell": step(element={"name": "Dossier", "role": "DataItem"}),
    "no element": step(element=None),
    "no window": step(window_title=None),
    "a field": step("type_text", element={"name": "Dossier", "role": "Edit"}),
    "a template window": step(window_title="Admission — {{*}}"),
}


def as_sent(planned: dict[str, Any]) -> NextAction:
    """The step as the agent receives it at step time (its target's label, window and whole spec)."""
    target = {k: v for k, v in planned["target"].items() if v is not None}
    return NextAction(
        replay_id="r",
        action_id="a",
        attempt_id="t",
        not_after=1e12,
        server_now=0.0,
        action_type=planned["action_type"],
        target=Target(label=target.get("label") or target.get("by_text"), spec=target),
        irreversible=planned["expected"]["step_class"] == "irreversible",
    )


def test_the_server_and_the_agent_know_the_same_control_types() -> None:
    assert TREE_ROLES == locate.TREE_ROLES


@pytest.mark.parametrize("name", sorted(STEPS))
def test_the_preflight_asks_about_exactly_the_steps_the_agent_finds_by_the_tree(name: str) -> None:
    planned = STEPS[name]
    asked = tree_question(planned)
    at_step_time = locate.tree_query(as_sent(planned))
    assert (asked is not None) == (at_step_time is not None), name
    if asked is not None:  # the question, as the agent rebuilds the step from it, asks the same
        question = asked["target"]
        rebuilt = NextAction(**{**as_sent(planned).__dict__, "target": Target(**question)})
        assert locate.tree_query(rebuilt) == at_step_time


def test_a_step_that_acts_at_no_point_is_asked_about_and_the_agent_answers_not_allowed() -> None:
    # the server does not keep the agent's list of input kinds: it asks, and only an answer `found` counts
    planned = step("key_combo")
    assert tree_question(planned) is not None and locate.tree_query(as_sent(planned)) is None
