"""The console in a supervisor's words: phrases for codes (the code in a detail line), checkers
summarised, a dialog handled as designed shown as handled, numbering, progress, live badge, a home
page with what waits, expiry, audit paging, a styled 404 — in English and French."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.requests import Request

from rpa_mcp.bootstrap import Services
from rpa_mcp.console.base import ConsoleBase
from rpa_mcp.console.i18n import FR
from rpa_mcp.console.words import all_phrases, checker_summary, workflow_steps
from rpa_mcp.ops import build_registry
from rpa_mcp.store.web_sessions import WebSessionStore
from tests.console.conftest import Browser
from tests.console.helpers import call, jti_of
from tests.console.test_replays import start
from tests.integration.test_replay_http import BACK_TO_DOSSIER, IMAGERIE, MACHINE, promote
from tests.integration.test_replay_http import workflow as replay_workflow

SPECKS = "; ".join(f"isolated speck at [{i}, 8, 24, 32]: 16 px ignored" for i in range(40))
PIXELS = {"checker": "PixelDiffChecker", "signal": "changed", "score": 1.0, "detail": f"5100 px changed; {SPECKS}"}


def render(services: Services, template: str, lang: str, **context: Any) -> str:
    base = ConsoleBase(services, build_registry(), WebSessionStore(services.db, services.clock), static_version="t")
    headers = [(b"accept-language", lang.encode())]
    request = Request({"type": "http", "path": "/console/replays/rp_1", "headers": headers, "query_string": b""})
    return base.html(request, template, person=None, **context)


def action(index: int, **fields: Any) -> dict[str, Any]:
    return {
        "action_id": f"a{index}-{fields.get('origin', 'workflow')}",
        "index": index,
        "intent": f"Step {index}",
        "action_type": "click_anchor",
        "state": "ACKED",
        "outcome": "success",
        "origin": "workflow",
        "dispatches": 1,
        "verdict": "SUCCESS",
        "failure_category": None,
        "warning": None,
        "error": None,
        "target": {},
        "params": {},
        "point": None,
        "checkers": [],
        "dialog": None,
        "evidence": [],
        "updated_at": 1_700_000_000.0,
        **fields,
    }


def timeline(actions: list[dict[str, Any]], state: str = "completed", steps_total: int = 7) -> dict[str, Any]:
    return {
        "replay_id": "rp_1",
        "competence": "Imagerie",
        "version": 1,
        "machine_id": MACHINE,
        "state": state,
        "pause_reason": None,
        "pause_detail": None,
        "evidence_sha256": None,
        "outcome": "completed",
        "meaning": "Every step was done and its outcome seen.",
        "steps_done": 6,
        "irreversible_sent": [],
        "current_action_id": None,
        "needs_answer": False,
        "steps_total": steps_total,
        "actions": actions,
        "created_by": "carol",
        "created_at": 1_700_000_000.0,
    }


def helpers() -> dict[str, Any]:
    from rpa_mcp.console.views.replays import click_view, other_crops

    return {"click_view": click_view, "other_crops": other_crops}


def test_every_phrase_for_a_code_has_its_french_translation() -> None:
    assert not sorted(p for p in all_phrases() if p not in FR)


def test_the_pixel_checkers_specks_are_counted_not_listed() -> None:
    summary, ignored = checker_summary(PIXELS["detail"])
    assert summary == "5100 px changed" and ignored == 40


@pytest.mark.parametrize(("lang", "words"), [("en", "Screen changed"), ("fr", "L&#39;écran a changé")])
def test_a_checker_shows_as_words_with_its_code_in_a_detail_line(services: Services, lang: str, words: str) -> None:
    t = timeline([action(1, checkers=[PIXELS])])
    html = render(services, "_action.html", lang, t=t, a=t["actions"][0], **helpers())
    assert words in html and '<small class="code">PixelDiffChecker · changed</small>' in html
    assert "isolated speck" not in html and "40" in html  # the specks stay in the evidence bundle


@pytest.mark.parametrize(("lang", "handled"), [("en", "dialog handled as designed"), ("fr", "traitée comme prévu")])
def test_a_dialog_answered_by_its_policy_is_shown_as_handled_not_as_a_failure(
    services: Services, lang: str, handled: str
) -> None:
    opened = action(
        5,
        verdict="FAILURE",
        failure_category="UNEXPECTED_DIALOG",
        outcome="success_dialog_auto",
        dialog={"dialog_id": "save-confirm", "decision": "auto"},
    )
    html = render(services, "_action.html", lang, t=timeline([opened]), a=opened, **helpers())
    assert handled in html and "v-handled" in html and "v-failure" not in html
    assert "save-confirm · auto" in html


def test_a_real_failure_reads_as_words_with_its_category_and_code(services: Services) -> None:
    failed = action(2, state="HELD", outcome="failed", verdict="FAILURE", failure_category="NO_VISUAL_CHANGE")
    html = render(services, "_action.html", "fr", t=timeline([failed]), a=failed, **helpers())
    assert "non conforme" in html and "rien n&#39;a changé à l&#39;écran" in html
    assert '<small class="code">FAILURE · NO_VISUAL_CHANGE</small>' in html


def test_a_dialogs_answer_is_not_numbered_as_a_second_step_and_dispatches_are_counted_in_words(
    services: Services,
) -> None:
    step, answer = action(5, dispatches=1), action(5, origin="dialog", action_type="dialog_button", dispatches=2)
    t = timeline([step, answer])
    first = render(services, "_action.html", "en", t=t, a=step, **helpers())
    second = render(services, "_action.html", "en", t=t, a=answer, **helpers())
    assert '<span class="idx">5</span>' in first and "1 dispatch ·" in first and "1 dispatches" not in first
    assert '<span class="idx">5</span>' not in second and "2 dispatches" in second and "dialog answer" in second
    assert "1 envoi ·" in render(services, "_action.html", "fr", t=t, a=step, **helpers())


def test_progress_counts_workflow_steps_not_a_dialogs_answer(services: Services) -> None:
    actions = [action(i) for i in range(1, 7)] + [action(3, origin="dialog", action_type="dialog_button")]
    assert workflow_steps(actions, steps_total=7) == 6
    html = render(services, "_replay_head.html", "en", t=timeline(actions), **helpers())
    assert 'id="progress">6 / 6<' in html


@pytest.mark.parametrize(("state", "live"), [("running", True), ("paused", True), ("cancelled", False)])
def test_the_live_badge_shows_only_while_the_replay_can_still_change(
    services: Services, state: str, live: bool
) -> None:
    t = timeline([action(1)], state=state)
    html = render(services, "replay.html", "en", t=t, waiting={"approvals": 0, "paused": 0}, **helpers())
    assert ('id="live-badge"' in html) is live


@pytest.mark.anyio
async def test_the_home_page_lists_pending_approvals_and_paused_replays_with_counts_in_the_menu(
    browser: Browser, services: Services
) -> None:
    paused = await start(services, IMAGERIE, BACK_TO_DOSSIER)
    await call(services, "pause_replay", {"replay_id": paused})
    name = promote(type("S", (), {"services": services})(), replay_workflow("Radiologie", IMAGERIE))
    proposal = await call(services, "propose_start_replay", {"competence": name, "machine_id": MACHINE})
    browser.sign_in("carol", "approver")
    page = browser.get("/console", headers={"accept-language": "fr"})
    assert page.status_code == 200
    assert 'id="count-approvals">1<' in page.text and 'id="count-replays">1<' in page.text
    home = page.text
    assert f"/console/approvals/{jti_of(proposal)}" in home and f"/console/replays/{paused}" in home
    assert "Lancer un rejeu" in home and "Mis en pause à la demande" in home and "USER_PAUSE" in home
    assert "RPA_MCP_CONFIRMATION_TTL" in home and re.search(r'<span class="expiry">\d+ min \d\d s</span>', home)
    assert "(valideur)" in home  # the role, translated
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00" data-local="1">', home)


@pytest.mark.anyio
async def test_the_approval_page_says_what_the_risk_means_and_when_it_expires(
    browser: Browser, services: Services
) -> None:
    name = promote(type("S", (), {"services": services})(), replay_workflow("Radiologie", IMAGERIE))
    proposal = await call(services, "propose_start_replay", {"competence": name, "machine_id": MACHINE})
    browser.sign_in("carol", "approver")
    page = browser.get(f"/console/approvals/{jti_of(proposal)}").text
    assert re.search(r'id="risk">acts on a workstation <small class="code">act</small>', page)
    expires = re.search(r'id="expires">(.*?)</td>', page, re.S)
    assert expires is not None and re.search(r'<span class="expiry">[45] min \d\d s</span>', expires[1]), expires
    assert "Workstation check" in page and "irreversible_steps" not in page
    assert "Start a replay" in page and "[" not in re.search(r'<table id="details".*?</table>', page, re.S)[0]


@pytest.mark.parametrize(("lang", "words"), [("en", "console address does not exist"), ("fr", "n&#39;existe pas")])
def test_an_unknown_console_address_is_a_styled_translated_404(browser: Browser, lang: str, words: str) -> None:
    browser.sign_in("victor", "viewer")
    page = browser.get("/console/nowhere/at/all", headers={"accept-language": lang})
    assert page.status_code == 404 and words in page.text and 'id="refusal"' in page.text
    assert "/console/static/console.css" in page.text
    assert browser.get("/console/nope", headers={"accept-language": lang}).headers["cache-control"] == "no-store"


def test_an_unknown_console_address_is_a_styled_404_even_signed_out(browser: Browser) -> None:
    page = browser.get("/console/nowhere", headers={"accept-language": "fr"})
    assert page.status_code == 404 and "Introuvable" in page.text


def test_the_audit_pages_by_fifty_and_leaves_page_views_out_unless_asked(browser: Browser, services: Services) -> None:
    for i in range(60):
        services.audit.record(actor="agent:claude", operation="list_machines", args={"i": i}, outcome="ok", via="mcp")
    browser.sign_in("carol", "approver")
    for _ in range(3):
        assert browser.get("/console/replays").status_code == 200  # page views: list_replays through the console
    first = browser.get("/console/audit").text
    assert first.count("<tr><td>") == 50 and "list_replays" not in first
    older = re.search(r'id="older" ?|href="(/console/audit\?[^"]*before=\d+[^"]*)" id="older"', first)
    assert older is not None and older[1]
    rest = browser.get(older[1].replace("&amp;", "&")).text
    assert 0 < rest.count("<tr><td>") <= 50 and 'id="newer"' in rest and 'id="older"' not in rest
    with_views = browser.get("/console/audit?views=1&what=list_replays").text
    assert with_views.count('<small class="code">list_replays</small>') == 1  # counted per person, page, hour
    assert re.search(r'<small class="views">3 views from \S+ to \S+ \(UTC\)</small>', with_views)


@pytest.mark.anyio
async def test_a_saved_session_links_to_the_competence_it_became(browser: Browser, services: Services) -> None:
    import anyio.to_thread

    from tests.shadow.test_ops import AGENT, stream_demo

    sid = await anyio.to_thread.run_sync(stream_demo, services, "type_observation_save")
    await call(services, "shadow_stop", {"session_id": sid}, AGENT)
    browser.sign_in("victor", "viewer")
    assert 'id="became"' not in browser.get(f"/console/sessions/{sid}").text
    built = services.shadow.build(sid, "Compte-rendu")["workflow_ir"]
    services.competences.save("Compte-rendu", built, machine_id=MACHINE)
    page = browser.get(f"/console/sessions/{sid}", headers={"accept-language": "fr"}).text
    link = re.search(
        r'id="became">Enregistrée comme compétence: <a href="(/console/competences/candidate/[^"]+)"', page
    )
    assert link is not None and browser.get(link[1].replace("&amp;", "&")).status_code == 200


@pytest.mark.anyio
async def test_a_replay_started_from_a_competence_page_waits_for_another_persons_approval(
    browser: Browser, other_browser: Browser, services: Services
) -> None:
    name = promote(type("S", (), {"services": services})(), replay_workflow("Radiologie", IMAGERIE))
    slug = services.competences.get(name).slug
    browser.sign_in("olivia", "operator")
    page_url = f"/console/competences/validated/{slug}"
    proposed = browser.submit(page_url, f"{page_url}/replay", {"machine_id": MACHINE, "version": "1"})
    assert proposed.status_code == 303 and proposed.headers["location"].startswith("/console/approvals/")
    approval = proposed.headers["location"]
    assert 'id="own-request"' in browser.get(approval).text  # she cannot approve her own proposal
    assert not services.replay.store.list_replays()
    other_browser.sign_in("carol", "approver")
    assert other_browser.submit(approval, f"{approval}/approve").status_code == 303
    applied = browser.submit(approval, f"{approval}/apply")
    assert applied.status_code == 303 and applied.headers["location"].startswith("/console/replays/rp_")
    (replay,) = services.replay.store.list_replays()
    assert replay.machine_id == MACHINE and replay.competence == name
