"""A slow application shows the window a step opens after the agent's still-screen wait (a record slow to open):
when the front window after the step is still the one from before and the check failed only because the
demonstrated window is not there yet, the step gets one later look (no input) that waits for the window;
the input is never sent again, and anything else pauses as before."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.service.later_look import LATE_WINDOW_WAIT_S, TITLE_CHANGES_PARAM
from rpa_mcp.shadow.window_effects import LATE_EFFECT_S
from tests.replay.kit import (
    FakeAgent,
    JumpClock,
    Verdict,
    assert_clean,
    drain,
    later_looks,
    png_b64,
    replay_of,
    sent,
    the_step,
)

pytestmark = pytest.mark.anyio

SEARCH = "Easily — Recherche"
RECORD = "Easily — DURAND Alice — Synthèse"
LOOK_BEFORE = png_b64(120, 240)  # the screen when the look began: never the step's before


async def open_record(
    service: ReplayService,
    agent: FakeAgent,
    *,
    after: str = SEARCH,
    later: str = RECORD,
    shown_before: str = SEARCH,
    shown_after: str = RECORD,
    front: str | None = None,
) -> str:
    """A click whose demonstration went from `shown_before` to `shown_after`; at replay the front window is
    `after` right after the click (`front`: another window in front before and after it), `later` at the look."""
    agent.result_for["click_anchor"] = {"window_title_before": front or SEARCH, "window_title": front or after}
    agent.result_for["screenshot_evidence"] = {
        "screenshot_before": LOOK_BEFORE,
        "actual_position": None,
        "window_title_before": after,
        "window_title": later,
    }
    plan = [
        {
            "index": 0,
            "intent": "Ouvrir le dossier",
            "action_type": "click_anchor",
            "target": {"label": "Ouvrir le dossier", "window_title": SEARCH},
            "expected_window_before": shown_before,
            "expected_window_after": shown_after,
        }
    ]
    return await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")


def title_failure(category: str = "WRONG_APPLICATION") -> Verdict:
    return Verdict("FAILURE", category)


async def test_a_record_window_that_comes_after_the_wait_is_seen_by_a_later_look_and_the_step_completes(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [title_failure(), Verdict("SUCCESS")]  # then the closing look
    rid = await open_record(service, agent)
    assert await agent.step() == "done"  # the click: the search window still in front
    click = the_step(service, rid, "click_anchor")
    assert (click.state, click.outcome) == (m.HELD, m.AWAITING_LATER_LOOK) and click.screen_before
    assert replay_of(service, rid).state == m.RUNNING  # no pause: one more look first
    [look] = later_looks(service, rid)
    assert (look.action_type, look.state) == ("screenshot_evidence", m.PENDING)
    assert look.params == {"seconds": LATE_WINDOW_WAIT_S, TITLE_CHANGES_PARAM: SEARCH}  # waits for another window
    assert look.seq < click.seq and look.expected["looks_at"] == click.action_id

    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.COMPLETED, (replay.pause_reason, replay.pause_detail)
    click = the_step(service, rid, "click_anchor")
    assert sent(agent, click.action_id) == 1 and sent(agent, look.action_id) == 1  # each action exactly once
    assert (click.state, click.outcome, click.verdict["verdict"]) == (m.ACKED, "success", "SUCCESS")
    later = click.verdict["later_look"]
    assert (later["action_id"], later["first_window"]) == (look.action_id, SEARCH)
    assert later["first_verdict"]["failure_category"] == "WRONG_APPLICATION"
    assert services.validator.calls == ["click_anchor", "click_anchor", "screenshot_evidence"]
    # judged again with the window the look saw, against the title from before the click
    first, rejudged = services.validator.observed[:2]
    assert (first.window_title_before, first.window_title_after) == (SEARCH, SEARCH)
    assert (rejudged.window_title_before, rejudged.window_title_after) == (SEARCH, RECORD)
    assert_clean(service, [agent])


async def test_a_window_still_not_there_at_the_later_look_pauses_as_before(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [title_failure(), title_failure()]
    rid = await open_record(service, agent, later=SEARCH)
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    click = the_step(service, rid, "click_anchor")
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED
    assert (replay.pause_detail or {})["action_id"] == click.action_id
    assert (click.state, click.outcome) == (m.HELD, "failed")
    assert len(later_looks(service, rid)) == 1 and sent(agent, click.action_id) == 1  # one look, never a second
    assert_clean(service, [agent])


async def test_a_click_that_changed_nothing_yet_gets_a_later_look_instead_of_a_warned_success(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    # nothing drawn yet: before, a click not strictly checked went on with a warning while its window was coming
    services.validator.script = [title_failure("NO_VISUAL_CHANGE"), Verdict("SUCCESS")]
    rid = await open_record(service, agent)
    await drain(service, [agent], clock)
    assert replay_of(service, rid).state == m.COMPLETED
    click = the_step(service, rid, "click_anchor")
    assert click.outcome == "success" and click.warning is None
    assert click.verdict["later_look"]["first_verdict"]["failure_category"] == "NO_VISUAL_CHANGE"


async def test_a_record_whose_title_is_the_step_s_outcome_is_waited_for_by_its_title(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    # the demonstration recorded no window after, only the record's title as the step's outcome
    services.validator.script = [title_failure("UNEXPECTED_OUTCOME"), Verdict("SUCCESS")]
    agent.result_for["click_anchor"] = {"window_title_before": SEARCH, "window_title": SEARCH}
    agent.result_for["screenshot_evidence"] = {"screenshot_before": LOOK_BEFORE, "window_title": RECORD}
    plan = [
        {
            "index": 0,
            "intent": "Ouvrir le dossier du patient",
            "action_type": "click_anchor",
            "target": {"label": "Ouvrir le dossier", "window_title": SEARCH},
            "expected_window_before": SEARCH,
            "expected_outcome": {"kind": "window_title", "text": "DURAND Alice"},
        }
    ]
    rid = await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    assert replay_of(service, rid).state == m.COMPLETED
    [look] = later_looks(service, rid)
    assert look.params == {"seconds": LATE_WINDOW_WAIT_S, TITLE_CHANGES_PARAM: SEARCH}  # its title, not any change


@pytest.mark.parametrize(
    ("why", "kwargs", "category"),
    [
        ("another window came in front: no window still coming", {"after": "Outlook — Rappel"}, "WRONG_APPLICATION"),
        ("the step began in another window: its click went there", {"front": "PACS — Viewer"}, "WRONG_APPLICATION"),
        ("the demonstration showed no window change", {"shown_after": SEARCH}, "WRONG_APPLICATION"),
        ("the demonstration recorded no window before", {"shown_before": ""}, "WRONG_APPLICATION"),
        ("a wrong target is no window still coming", {}, "WRONG_TARGET"),
        ("an unexpected message is no window still coming", {}, "TEXT_MISMATCH"),
    ],
)
async def test_anything_but_the_same_window_still_in_front_pauses_at_once_without_a_look(
    service: ReplayService,
    services: Any,
    agent: FakeAgent,
    clock: JumpClock,
    why: str,
    kwargs: dict[str, str],
    category: str,
) -> None:
    services.validator.script = [title_failure(category)]
    rid = await open_record(service, agent, **kwargs)
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED, why
    assert later_looks(service, rid) == [] and services.validator.calls == ["click_anchor"], why


async def test_a_look_a_person_skips_leaves_the_step_failed_as_first_seen(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [title_failure("NO_VISUAL_CHANGE")]
    rid = await open_record(service, agent)
    assert await agent.step() == "done"
    await service.pause(rid)
    await service.answer(rid, "skip")  # the look, first in the queue, is skipped: the click is judged as first seen
    replay = replay_of(service, rid)
    click = the_step(service, rid, "click_anchor")
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED
    assert (replay.pause_detail or {})["action_id"] == click.action_id and click.outcome == "failed"
    assert sent(agent, click.action_id) == 1


def test_the_replay_waits_as_long_as_learning_takes_a_window_change_for_its_step_s_effect() -> None:
    assert LATE_WINDOW_WAIT_S == LATE_EFFECT_S
