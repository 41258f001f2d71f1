"""Learning and replay on a Tk application nobody tuned the platform to (the pharmacy dispensing desk).

Tk exposes no accessibility tree: everything the platform learns and finds, it finds on the
screen. A scripted clerk (real XTEST input, a typo fixed with Backspace, a hesitation, a stray
click) dispenses a drug while `rpa-agent record` streams; the steps are built, parameterized and
promoted through the server's tools, then replayed once for another patient with other values in
a smaller window, nobody answering: it completes with each effect exactly once and the right record,
or pauses with nothing wrong done (a step typed beside its field used to go on to the search).
"""

from __future__ import annotations

import os

import pytest

from rpa_mcp.bench import app_specs, apps
from rpa_mcp.desktop_rig.dispensation import missing, start_dispensation
from rpa_mcp.desktop_rig.rig import Rig
from tests.agent_x11.conftest import require_desktop

pytestmark = pytest.mark.desktop


def require_tk() -> None:
    absent = missing()
    if not absent:
        return
    reason = f"the Tk application needs Debian packages {', '.join(absent)}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must provide them")
    pytest.skip(reason)


def test_a_dispensing_learned_on_a_tk_application_is_saved_once_for_another_patient(tmp_path):
    require_desktop()
    require_tk()
    with Rig(tmp_path, log_to_console=False) as rig:
        app = start_dispensation(rig.desk, tmp_path / "dispensation.jsonl")
        tools = rig.tools()
        rig.start_agent(poll_wait_s=5.0)
        learning = apps.learn(rig, tools, app, app_specs.TK)
        # every typed value, the row and the drop-down's option, all learned from the screen alone
        assert set(app_specs.TK.parameters.values()) <= learning.declared, (learning.parameterized, learning.steps)
        kinds = [step["action_type"] for step in learning.steps]
        assert "select_option" in kinds and "set_checked" in kinds, learning.steps
        [run] = apps.replays(rig, tools, app, 1, learning.declared, spec=app_specs.TK)

    query, _row, ipp, *_values = run.variant
    assert run.verdict != "wrong", run.detail  # a pause is never wrong; an effect nobody asked for is
    if run.verdict == "paused":  # not reached yet on this application (docs/benchmarks.md): nothing saved
        assert [e.kind for e in run.effects if e.kind in ("save", "error")] == [], run.effects
        return
    assert [(e.kind, e.detail.get("q") or e.detail.get("patient")) for e in run.effects] == [
        ("search", query),
        ("open", ipp),
        ("save", ipp),
    ]
    assert run.effects[-1].detail == app_specs.TK.wanted(run.variant)
