"""The first step's control found by the accessibility tree, before the run: the server's rules.

At step time, a control the server could not place on the screenshot (its label drawn in a font or
colour OCR reads badly, or read joined with its neighbour's) is found by the workstation agent through
the accessible element the demonstration recorded (`rpa_agent.core.locate.by_tree`): the one showing
element of the window in front with the recorded name and control type. The preflight asks the agent
the same question at the look a replay begins with (`TreeQuestion` in the look's params) and, when its
own OCR search of the first target failed, accepts the agent's answer (`TreeAnswer` in the look's
output) as the target being there:

- only for a step the fallback stands in for: a named control (its recorded element's name is the
  step's label, its control type one of `TREE_ROLES`), recorded on a known window, never a record
  chosen by who it is (`identity`), never an irreversible step;
- only when the tree names exactly one such element (the agent answers not found for none or several)
  in the step's own window, in front (the title the look reported and the one the answer names);
- only when the element's centre lies inside that window's box and on the screen.

The agent applies its own rules (`rpa_agent.core.locate.tree_query`) before it answers, the kinds of input
that act at a point among them: only an answer `found` counts, so a step the agent's fallback never stands
in for is never accepted (tests/contract/test_tree_fallback_rules.py keeps the two sides in step). An agent
that does not answer leaves the check as it was: OCR alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from rpa_mcp.replay import model as m
from rpa_mcp.replay.outcomes import IRREVERSIBLE
from rpa_mcp.replay.start_window import same_screen
from rpa_mcp.replay.wire import TreeAnswer, TreeQuestion, WireTarget

QUESTION = "first_step_tree"  # the key of the question in the look's params and of the answer in its output
# The control types the agent's fallback looks for (rpa_agent.core.locate.TREE_ROLES).
TREE_ROLES = frozenset({"Button", "CheckBox", "RadioButton", "ComboBox", "Edit", "MenuItem", "TabItem", "Hyperlink"})


def tree_question(step: Mapping[str, Any]) -> dict[str, Any] | None:
    """The question a look asks about `step` (a planned action or an action row as a dict), or None when the
    accessibility tree may never stand in for its target."""
    target = step.get("target")
    expected = step.get("expected") or {}
    if not isinstance(target, dict) or expected.get("step_class") == IRREVERSIBLE:
        return None
    label, element, identity = (
        target.get("label") or target.get("by_text"),
        target.get("element"),
        target.get("identity"),
    )
    window = target.get("window_title")
    if not isinstance(label, str) or not label.strip() or not isinstance(element, dict):
        return None
    if isinstance(identity, str) and identity.strip():  # a record chosen by who it is: never by its name alone
        return None
    name, role = element.get("name"), element.get("role")
    if not isinstance(name, str) or name.strip() != label.strip() or role not in TREE_ROLES:
        return None
    if not isinstance(window, str) or not window.strip():  # no window recorded: no way to tell it is in front
        return None
    spec = {"element": {"name": name.strip(), "role": role}, "window_title": window}
    wire = WireTarget(label=label, window_title=window, spec=spec)
    question = TreeQuestion(action_type=str(step.get("action_type") or ""), irreversible=False, target=wire)
    return question.model_dump(mode="json", exclude_none=True)


def tree_answer(output: Any, *, replay_id: str | None = None) -> TreeAnswer | None:
    """The agent's answer in a look's output; None when it gave none (an agent that does not know the
    question) or a broken one (never taken as found)."""
    raw = output.get(QUESTION) if isinstance(output, dict) else None
    if raw is None:
        return None
    try:
        return TreeAnswer.model_validate(raw)
    except ValidationError as exc:
        m.log_event("tree_answer_refused", replay_id=replay_id, errors=len(exc.errors()))
        return None


def found_by_tree(
    step: Mapping[str, Any], answer: TreeAnswer | None, seen: str | None, screen: tuple[int, int] | None
) -> dict[str, Any] | None:
    """What the evidence says when the tree answer shows `step`'s target in its own window in front (`seen`:
    the title the look reported; `screen`: its size), else None."""
    question = tree_question(step)
    if question is None or answer is None or not answer.found or answer.point is None:
        return None
    target = question["target"]
    window, element = str(target["window_title"]), target["spec"]["element"]
    if (answer.name, answer.role) != (element["name"], element["role"]):  # an answer to another question
        return None
    if (
        not seen
        or not same_screen(window, seen)
        or not answer.window_title
        or not same_screen(window, answer.window_title)
    ):
        return None
    x, y = answer.point
    if answer.window_box is None or not _inside(x, y, answer.window_box) or screen is None:
        return None
    if not (0 <= x < screen[0] and 0 <= y < screen[1]) or (answer.box is not None and not _inside(x, y, answer.box)):
        return None
    return {
        "found_by": "accessibility_tree",
        "label": target.get("label"),
        "element": dict(element),
        "window_title": answer.window_title,
        "point": [x, y],
        "detail": f"the first step's target {target.get('label')!r} was not found on the screen by OCR; the "
        f"accessibility tree of the window {answer.window_title!r} in front names one showing "
        f"{element['role']} {element['name']!r} there",
    }


def _inside(x: int, y: int, box: list[int]) -> bool:
    bx, by, bw, bh = box
    return bx <= x < bx + bw and by <= y < by + bh
