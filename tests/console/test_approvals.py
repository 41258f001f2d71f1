"""Approvals in the console: what a replay will do (steps, recorded crops, parameters), differences,
the decision, and every refusal (CSRF, origin, self-approval, roles, expiry)."""

from __future__ import annotations

import re

import anyio.to_thread
import pytest

from rpa_mcp.bootstrap import Services
from tests.console.conftest import BASE, Browser
from tests.console.helpers import ADMISSION, MACHINE, call, jti_of, workflow

pytestmark = pytest.mark.anyio


async def propose_replay(services: Services) -> str:
    services.competences.save("Admission", workflow(services, "Admission", ADMISSION), machine_id=MACHINE)
    proposal = await call(
        services, "propose_start_replay", {"competence": "Admission", "params": {"patient": "DURAND <b>Jeanne</b>"}}
    )
    assert proposal["approval_mode"] == "human"
    assert proposal["approval_url"].endswith(f"/console/approvals/{jti_of(proposal)}")
    return jti_of(proposal)


async def test_a_replay_approval_shows_each_step_with_its_recorded_crop_and_parameters(
    browser: Browser, services: Services
) -> None:
    jti = await propose_replay(services)
    browser.sign_in("carol", "approver")
    page = browser.get(f"/console/approvals/{jti}")
    assert page.status_code == 200
    rows = re.findall(r'<tr class="step">(.*?)</tr>', page.text, re.S)
    assert len(rows) == 3 and "Type the patient&#39;s name" in rows[1] and "{{patient}}" in rows[1]
    crops = re.findall(r'<img class="crop" loading="lazy" src="(/console/screenshots/shot_[0-9a-f]+)"', page.text)
    assert len(crops) == 3
    image = browser.get(crops[0])
    assert image.status_code == 200 and image.headers["content-type"] == "image/png" and image.content[:4] == b"\x89PNG"
    assert "DURAND &lt;b&gt;Jeanne&lt;/b&gt;" in page.text and "<b>Jeanne</b>" not in page.text  # escaped
    assert 'id="approve"' in page.text


async def test_the_list_shows_pending_requests_escaped_and_marks_the_persons_own(
    browser: Browser, services: Services
) -> None:
    jti = await propose_replay(services)
    browser.sign_in("agent:claude", "operator")
    page = browser.get("/console/approvals")
    assert f'href="/console/approvals/{jti}"' in page.text and "(you)" in page.text
    assert 'data-live="/console/live/approvals"' in page.text


async def test_an_approver_approves_and_the_service_records_and_audits_it(browser: Browser, services: Services) -> None:
    jti = await propose_replay(services)
    browser.sign_in("carol", "approver")
    response = browser.submit(f"/console/approvals/{jti}", f"/console/approvals/{jti}/approve")
    assert response.status_code == 303 and response.headers["location"] == f"/console/approvals/{jti}"
    view = services.confirmations.get_approval(jti)
    assert (view.status, view.approver) == ("approved", "carol@rpa-mcp")  # subject@issuer
    assert ("carol@rpa-mcp", "approve:start_replay") in [(r["actor"], r["operation"]) for r in services.audit.rows()]
    assert 'id="decision"' in browser.get(f"/console/approvals/{jti}").text


async def test_a_rejection_is_recorded(browser: Browser, services: Services) -> None:
    jti = await propose_replay(services)
    browser.sign_in("carol", "approver")
    browser.submit(f"/console/approvals/{jti}", f"/console/approvals/{jti}/reject")
    assert services.confirmations.get_approval(jti).status == "rejected"


@pytest.mark.parametrize("csrf", [None, "", "0" * 64])
async def test_a_decision_without_its_csrf_token_is_refused(
    browser: Browser, services: Services, csrf: str | None
) -> None:
    jti = await propose_replay(services)
    browser.sign_in("carol", "approver")
    data = {"csrf": csrf} if csrf is not None else {}
    assert browser.post(f"/console/approvals/{jti}/approve", data).status_code == 403
    assert services.confirmations.get_approval(jti).status == "pending"


async def test_the_csrf_token_of_another_request_or_person_does_not_work(
    browser: Browser, other_browser: Browser, services: Services
) -> None:
    first, second = await propose_replay(services), await propose_replay(services)
    browser.sign_in("carol", "approver")
    other_browser.sign_in("dave", "approver")
    token = re.search(
        r'name="csrf" value="([0-9a-f]{64})"', browser.get(f"/console/approvals/{first}").text.split("/approve")[1]
    )
    assert token is not None
    assert browser.post(f"/console/approvals/{second}/approve", {"csrf": token[1]}).status_code == 403
    assert other_browser.post(f"/console/approvals/{first}/approve", {"csrf": token[1]}).status_code == 403
    assert services.confirmations.get_approval(first).status == "pending"


async def test_a_decision_posted_from_another_origin_is_refused(browser: Browser, services: Services) -> None:
    jti = await propose_replay(services)
    browser.sign_in("carol", "approver")
    page = browser.get(f"/console/approvals/{jti}").text
    token = re.search(rf'/console/approvals/{jti}/approve"[^>]*><input type="hidden" name="csrf" value="(\w+)"', page)
    assert token is not None
    assert (
        browser.post(f"/console/approvals/{jti}/approve", {"csrf": token[1]}, origin="https://evil.example").status_code
        == 403
    )
    assert browser.post(f"/console/approvals/{jti}/approve", {"csrf": token[1]}, origin=None).status_code == 403
    assert services.confirmations.get_approval(jti).status == "pending"


async def test_the_proposer_can_read_but_never_approve_its_own_request(browser: Browser, services: Services) -> None:
    jti = await propose_replay(services)
    browser.sign_in("agent:claude", "operator", "approver")
    page = browser.get(f"/console/approvals/{jti}")
    assert 'id="own-request"' in page.text and 'id="approve"' not in page.text
    token = browser.client.cookies  # the person forges the form with a valid token for this purpose
    from rpa_mcp.console.base import ConsoleBase

    session = browser.services.db.query("SELECT * FROM web_sessions")[0]
    forged = ConsoleBase.csrf(
        type("S", (), {"csrf_secret": bytes.fromhex(session["csrf_secret"])})(),
        f"decide:{jti}",  # type: ignore[arg-type]
    )
    assert token is not None
    response = browser.post(f"/console/approvals/{jti}/approve", {"csrf": forged})
    assert response.status_code == 403 and "cannot approve or reject it yourself" in response.text
    assert services.confirmations.get_approval(jti).status == "pending"


async def test_a_viewer_cannot_see_or_decide_approvals(browser: Browser, services: Services) -> None:
    jti = await propose_replay(services)
    browser.sign_in("victor", "viewer")
    assert browser.get("/console/approvals").status_code == 403
    assert browser.get(f"/console/approvals/{jti}").status_code == 403
    assert browser.post(f"/console/approvals/{jti}/approve", {"csrf": "x"}).status_code == 403


async def test_an_unknown_or_malformed_request_is_not_found(browser: Browser) -> None:
    browser.sign_in("carol", "approver")
    assert browser.get("/console/approvals/nope").status_code == 404
    assert browser.get("/console/approvals/..%2f..").status_code == 404


async def test_an_expired_request_offers_no_decision(browser: Browser, services: Services) -> None:
    jti = await propose_replay(services)
    services.clock.advance(services.settings.mcp_confirmation_ttl + 10)  # type: ignore[attr-defined]
    browser.sign_in("carol", "approver")
    page = browser.get(f"/console/approvals/{jti}")
    assert "expired" in page.text and 'id="approve"' not in page.text


async def test_the_old_approval_urls_open_the_console(browser: Browser) -> None:
    for old, new in (("/approvals", "/console/approvals"), ("/approvals/abc", "/console/approvals/abc"),
                     ("/approvals/login", "/console/login")):  # fmt: skip
        response = browser.get(old, follow_redirects=False)
        assert response.status_code == 308 and response.headers["location"] == new


async def test_approvals_are_in_french_too(browser: Browser, services: Services) -> None:
    jti = await propose_replay(services)
    browser.sign_in("carol", "approver")
    page = browser.get(f"/console/approvals/{jti}", headers={"accept-language": "fr"})
    assert "Ce que le rejeu va faire" in page.text and ">Valider</button>" in page.text
    assert BASE


async def test_a_new_version_from_an_observation_shows_its_steps_added_removed_and_changed(
    browser: Browser, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.shadow.test_ops import AGENT, stream_demo

    monkeypatch.setitem(services.confirmations.approval_modes, "write", "human")  # RPA_APPROVAL=write=human,...

    sid = await anyio.to_thread.run_sync(stream_demo, services, "type_observation_save")  # it runs its own loop
    await call(services, "shadow_stop", {"session_id": sid}, AGENT)
    args = {"session_id": sid, "name": "Compte-rendu"}
    first = await call(services, "propose_persist_competence", args)
    browser.sign_in("carol", "approver")
    page = browser.get(f"/console/approvals/{jti_of(first)}").text
    assert "Steps that will be saved" in page and len(re.findall(r'<tr class="step">', page)) == 2

    built = services.shadow.build(sid, "Compte-rendu")["workflow_ir"]
    older = {**built, "steps": [{**built["steps"][0], "intent": "Ouvrir l'éditeur"}]}  # one step, worded otherwise
    services.competences.save("Compte-rendu", older, machine_id=MACHINE)
    second = await call(services, "propose_persist_competence", args)
    page = browser.get(f"/console/approvals/{jti_of(second)}").text
    kinds = re.findall(r'<tr class="change (\w+)">', page)
    assert kinds == ["changed", "added"], kinds
    assert "<del>Ouvrir l&#39;éditeur</del>" in page  # the old intent, struck out beside the new one


async def test_a_replay_approval_lists_the_irreversible_and_uncheckable_steps_first(
    browser: Browser, services: Services
) -> None:
    steps = [*ADMISSION, ("Save the admission", "Enregistrer", {})]
    ir = workflow(services, "Admission", steps)
    ir["steps"][2]["uncheckable"] = True
    services.competences.save("Admission", ir, machine_id=MACHINE)
    proposal = await call(services, "propose_start_replay", {"competence": "Admission", "params": {"patient": "X"}})
    assert proposal["details"]["irreversible_steps"] == ["3. Save the admission"]
    assert "3. Save the admission" in proposal["summary"]
    browser.sign_in("carol", "approver")
    page = browser.get(f"/console/approvals/{jti_of(proposal)}").text
    irreversible = page.index('id="irreversible-steps"')
    assert irreversible < page.index('<tr class="step">')
    assert "Save the admission" in page[irreversible : page.index('id="uncheckable-steps"')]
    assert "Open the record" in page[page.index('id="uncheckable-steps"') : page.index('<tr class="step">')]


async def test_a_replay_approval_shows_each_steps_expected_outcome_and_identity(
    browser: Browser, services: Services
) -> None:
    ir = workflow(services, "Admission", ADMISSION)
    ir["steps"][2] |= {
        "expected_outcome": {"kind": "window_title", "text": "Admission — {{patient}} {{*}}"},
        "identity": "{{patient}} {{*}} 02/11/1962",
    }
    services.competences.save("Admission", ir, machine_id=MACHINE)
    proposal = await call(services, "propose_start_replay", {"competence": "Admission", "params": {"patient": "MOREL"}})
    browser.sign_in("carol", "approver")
    rows = re.findall(r'<tr class="step">(.*?)</tr>', browser.get(f"/console/approvals/{jti_of(proposal)}").text, re.S)
    assert "none: not checkable" in rows[0]
    assert "Admission — {{patient}} {{*}}" in rows[2] and "identity read before the click" in rows[2]
