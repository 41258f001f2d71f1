"""Learning and replay on a native GTK3 application nobody tuned the platform to (the admission desk).

A scripted clerk (real XTEST input, a typo fixed with Backspace, a hesitation, a stray click) admits
a patient while `rpa-agent record` streams; the steps are built, parameterized and promoted through
the server's tools, then replayed for another patient with other values in a smaller window, nobody
answering; the application's own log shows each effect exactly once with the right record.
"""

from __future__ import annotations

import os

import pytest

from rpa_mcp.bench import app_specs, apps
from rpa_mcp.desktop_rig.admission import gtk_missing, start_admission
from rpa_mcp.desktop_rig.rig import Rig
from tests.agent_x11.conftest import require_desktop

pytestmark = pytest.mark.desktop


def require_gtk() -> None:
    missing = gtk_missing()
    if not missing:
        return
    reason = f"the GTK application needs Debian packages {', '.join(missing)}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must provide them")
    pytest.skip(reason)


def test_an_admission_learned_on_a_native_gtk_application_is_saved_once_for_another_patient(tmp_path):
    require_desktop()
    require_gtk()
    with Rig(tmp_path, log_to_console=False) as rig:
        app = start_admission(rig.desk, tmp_path / "admission.jsonl")
        tools = rig.tools()
        rig.start_agent(poll_wait_s=5.0)
        learning = apps.learn(rig, tools, app)
        assert learning.found == learning.expected, (learning.misses, learning.steps)
        assert learning.exact == learning.valued, learning.misses
        assert learning.after_removals is not None and learning.after_removals[:2] == (8, 8)  # the stray click
        assert learning.declared == set(app_specs.PARAMETERS.values()), learning.parameterized
        [run] = apps.replays(rig, tools, app, 1, learning.declared)

    query, _row, ipp, reason, service, date = run.variant
    assert run.verdict == "complete", run.detail  # nobody answered: no pause, nothing wrong
    assert [(e.kind, e.detail.get("q") or e.detail.get("patient")) for e in run.effects] == [
        ("search", query),
        ("open", ipp),
        ("save", ipp),
    ]
    saved = run.effects[-1].detail
    assert saved == {
        "patient": ipp,
        "motif": reason,
        "service": service,
        "date": date,
        "chambre": "",
        "isolement": True,
    }
