"""What holds on every console page: a strict CSP, no inline script or style, French for every text,
refusals as 4xx; and the views that have no browser test of their own (audit, dialogs, competences)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rpa_mcp.bootstrap import Services
from rpa_mcp.console.compare import compare_steps, counts
from rpa_mcp.console.i18n import FR
from tests.console.conftest import Browser
from tests.console.helpers import ADMISSION, MACHINE, call, workflow

TEMPLATES = Path(__file__).resolve().parents[2] / "rpa_mcp" / "console" / "templates"
PAGES = ["/console/machines", "/console/competences", "/console/replays", "/console/approvals",
         "/console/audit", "/console/dialogs", "/console/login"]  # fmt: skip


def test_every_page_has_a_strict_csp_and_no_inline_script_or_style(browser: Browser) -> None:
    browser.sign_in("olivia", "operator", "approver")
    for url in PAGES:
        page = browser.get(url)
        assert page.status_code == 200, url
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "style-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert page.headers["x-frame-options"] == "DENY" and page.headers["cache-control"] == "no-store"
        assert not re.search(r"<script(?![^>]*\bsrc=)", page.text), url  # scripts only from /console/static
        assert "<style" not in page.text and " style=" not in page.text and " on" + "click=" not in page.text


def test_no_template_carries_inline_script_style_or_handlers() -> None:
    for template in TEMPLATES.glob("*.html"):
        text = template.read_text(encoding="utf-8")
        assert "<style" not in text and "style=" not in text, template.name
        assert not re.search(r"\son[a-z]+=", text), template.name
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template.name
        assert "| safe" not in text and "|safe" not in text, template.name  # nothing bypasses autoescaping


def test_every_text_of_the_templates_has_its_french_translation() -> None:
    missing = set()
    for template in TEMPLATES.glob("*.html"):
        for text in re.findall(r"""_\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""", template.read_text("utf-8")):
            key = (
                (text[0] or text[1]).encode().decode("unicode_escape")
                if "\\u" in (text[0] or text[1])
                else (text[0] or text[1])
            )
            if key not in FR:
                missing.add(key)
    labels = ["Machines", "Competences", "Replays", "Approvals", "Audit", "Dialog catalog", "Retry", "Skip", "Abort"]
    missing |= {label for label in labels if label not in FR}
    assert not missing, sorted(missing)


def test_static_files_are_served_and_unknown_ones_are_not(browser: Browser) -> None:
    assert browser.get("/console/static/console.js").headers["content-type"].startswith("text/javascript")
    assert browser.get("/console/static/../__init__.py").status_code == 404
    assert browser.get("/console/static/nope.js").status_code == 404


def test_a_step_difference_names_added_removed_and_changed_steps() -> None:
    old = [
        {"intent": "Open search", "action_type": "click_anchor", "target": {"label": "Rechercher"}},
        {"intent": "Type name", "action_type": "type_text", "target": {"label": "Nom"}, "params": {"text": "a"}},
        {"intent": "Print", "action_type": "click_anchor", "target": {"label": "Imprimer"}},
    ]
    new = [
        {"intent": "Open the search", "action_type": "click_anchor", "target": {"label": "Rechercher"}},
        {"intent": "Type name", "action_type": "type_text", "target": {"label": "Nom"}, "params": {"text": "a"}},
        {"intent": "Save", "action_type": "click_anchor", "target": {"label": "Enregistrer"}},
        {"intent": "Close", "action_type": "click_anchor", "target": {"label": "Fermer"}},
    ]
    changes = compare_steps(old, new)
    assert [(c.kind, c.fields) for c in changes[:2]] == [("changed", ("intent",)), ("unchanged", ())]
    assert counts(changes) == {"added": 1, "removed": 0, "changed": 2, "unchanged": 1}  # Imprimer -> Enregistrer
    assert counts(compare_steps(old, old[:1])) == {"added": 0, "removed": 2, "changed": 0, "unchanged": 1}


@pytest.mark.anyio
async def test_a_competence_shows_its_versions_and_the_difference_between_two(
    browser: Browser, services: Services
) -> None:
    services.competences.save("Admission", workflow(services, "Admission", ADMISSION), machine_id=MACHINE)
    changed = workflow(services, "Admission", [*ADMISSION[:2], ("Open the record now", "Ouvrir", {})])
    services.competences.save("Admission", changed, machine_id=MACHINE)
    browser.sign_in("victor", "viewer")
    page = browser.get("/console/competences/candidate/admission?version=2&compare=1").text
    assert "Difference between version 1 and version 2" in page and "1 changed" in page
    assert "<del>Open the record</del><br><ins>Open the record now</ins>" in page
    assert 'id="promote"' not in page  # a viewer cannot propose


@pytest.mark.anyio
async def test_promotion_applies_at_once_in_token_mode_and_deletion_waits_for_another_person(
    browser: Browser, other_browser: Browser, services: Services
) -> None:
    services.competences.save("Admission", workflow(services, "Admission", ADMISSION), machine_id=MACHINE)
    browser.sign_in("olivia", "operator")
    promoted = browser.submit(
        "/console/competences/candidate/admission", "/console/competences/candidate/admission/promote"
    )
    assert promoted.status_code == 303 and "/console/competences/validated/admission" in promoted.headers["location"]
    assert [c.status for c in services.competences.list()] == ["validated"]
    deleted = browser.submit(
        "/console/competences/validated/admission", "/console/competences/validated/admission/delete"
    )
    assert deleted.status_code == 303 and deleted.headers["location"].startswith("/console/approvals/")
    jti = deleted.headers["location"].rsplit("/", 1)[1]
    assert 'id="own-request"' in browser.get(f"/console/approvals/{jti}").text
    assert len(services.competences.list()) == 1  # nothing deleted yet
    other_browser.sign_in("carol", "approver")
    other_browser.submit(f"/console/approvals/{jti}", f"/console/approvals/{jti}/approve")
    steps_page = other_browser.get(f"/console/approvals/{jti}").text
    assert "Steps that will be removed" in steps_page
    applied = browser.submit(f"/console/approvals/{jti}", f"/console/approvals/{jti}/apply")
    assert applied.status_code == 303
    assert len(services.competences.list()) == 0
    assert 'id="apply"' not in browser.get(f"/console/approvals/{jti}").text  # once


@pytest.mark.anyio
async def test_the_audit_filters_by_who_what_and_when_and_verifies_the_chain(
    browser: Browser, services: Services
) -> None:
    await call(services, "list_machines", {})
    browser.sign_in("carol", "approver")
    page = browser.get("/console/audit?who=claude&what=list_machines").text
    assert page.count('<small class="code">list_machines</small>') == 1 and "agent:claude" in page
    assert "No audit row matches." in browser.get("/console/audit?who=claude&from=2999-01-01").text
    assert "No audit row matches." in browser.get("/console/audit?who=nobody").text
    verified = browser.submit("/console/audit", "/console/audit/verify")
    assert verified.status_code == 200 and 'class="note ok" id="chain"' in verified.text
    assert browser.post("/console/audit/verify", {"csrf": "bad"}).status_code == 403


def test_viewers_do_not_read_the_audit(browser: Browser) -> None:
    browser.sign_in("victor", "viewer")
    assert browser.get("/console/audit").status_code == 403


def test_the_dialog_catalog_shows_policies_and_which_a_workflow_may_override(browser: Browser) -> None:
    browser.sign_in("victor", "viewer")
    page = browser.get("/console/dialogs").text
    uac = re.search(r'<tr class="dialog policy-pause"><td><code>windows-uac</code>.*?</tr>', page, re.S)
    assert uac is not None and "<td>no</td>" in uac[0]
    assert re.search(r'<tr class="dialog policy-auto">.*?<td>yes</td>', page, re.S)
