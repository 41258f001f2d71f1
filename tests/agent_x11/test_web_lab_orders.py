"""Learning and replay on a single-page web application with custom-drawn controls nobody tuned the platform to.

The laboratory order desk in Chromium: its exam drop-down and fasting check box are divs with no
role. A scripted clerk (real XTEST input, a typo fixed with Backspace, a hesitation, an Alt+Tab
detour, a stray click) orders an exam while `rpa-agent record` streams; the steps are built,
parameterized and promoted through the server's tools, then replayed once for another patient with
other values in a smaller window, nobody answering. Whatever the run reaches, it never does
anything wrong: never another patient, never an order twice, never a refused save; when it
completes, the application's log shows the search, the patient and the right order exactly once.
"""

from __future__ import annotations

import os

import pytest

from rpa_mcp.bench import app_specs, apps
from rpa_mcp.desktop_rig.lab_orders import missing, start_lab
from rpa_mcp.desktop_rig.rig import Rig
from tests.agent_x11.conftest import require_desktop

pytestmark = pytest.mark.desktop


def require_reminder_window() -> None:
    absent = missing()
    if not absent:
        return
    reason = f"the clerk's reminder window needs Debian packages {', '.join(absent)}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must provide them")
    pytest.skip(reason)


def test_an_order_learned_on_a_web_application_with_drawn_controls_is_never_wrong_for_another_patient(tmp_path):
    require_desktop()
    require_reminder_window()
    with Rig(tmp_path, log_to_console=False) as rig:
        app = start_lab(rig.desk, tmp_path / "lab.jsonl")
        tools = rig.tools()
        rig.start_agent(poll_wait_s=5.0)
        learning = apps.learn(rig, tools, app, app_specs.WEB)
        [run] = apps.replays(rig, tools, app, 1, learning.declared, spec=app_specs.WEB)

    query, _row, ipp, *_values = run.variant
    opened = [e.detail["patient"] for e in run.effects if e.kind == "open"]
    saves = [e.detail for e in run.effects if e.kind == "save"]
    assert set(opened) <= {ipp}, run.effects  # never another patient
    assert len(opened) <= 1 and len(saves) <= 1, run.effects  # never an effect twice
    assert [e for e in run.effects if e.kind == "error"] == [], run.effects  # never a refused save
    assert run.verdict != "wrong", run.detail
    if run.verdict == "paused":  # a pause is never wrong: nothing was ordered
        assert saves == [], run.effects
        return
    assert [(e.kind, e.detail.get("q") or e.detail.get("patient")) for e in run.effects] == [
        ("search", query),
        ("open", ipp),
        ("save", ipp),
    ]
    assert saves == [app_specs.WEB.wanted(run.variant)]
