"""Steps on a drop-down and a check box come out of the shadow operations with their post-conditions."""

from __future__ import annotations

from rpa_mcp.bootstrap import Services
from rpa_mcp.ops import shadow as ops
from tests.shadow.conftest import ev
from tests.shadow.test_ops import AGENT, call, services  # noqa: F401  # the fixture

AT = {"window_title": "Admission — Bureau des entrées", "app": "python3", "locale": "fr-FR"}
COMBO = {"name": "Service", "role": "ComboBox"}
OPTION = {"name": "Cardiologie", "role": "MenuItem"}
BOX = {"name": "Isolement requis", "role": "CheckBox", "states": []}


def test_a_set_checked_and_a_select_option_step_pass_through_shadow_stop_and_the_understanding(
    services: Services,  # noqa: F811  # the fixture
) -> None:
    events = [
        ev("focus", 0.5, **AT),
        ev("click", 1.0, x=1700, y=210, element=COMBO, **AT),
        ev("click", 2.0, x=1700, y=260, element=OPTION, **AT),
        ev("click", 3.0, x=1620, y=337, element=BOX, **AT),
    ]
    call(services, ops.ingest_events, ops.IngestInput.model_validate({"events": events[:1]}), AGENT)
    call(services, ops.shadow_start, ops.StartInput())
    call(services, ops.ingest_events, ops.IngestInput.model_validate({"events": events[1:]}), AGENT)
    stopped = call(services, ops.shadow_stop, ops.SessionOptInput())
    kinds = [(s.action_type, [p.kind for p in s.post_conditions]) for s in stopped.understanding]
    assert kinds == [("select_option", ["option_shown"]), ("set_checked", ["checked"])]
    shown = call(services, ops.get_understanding, ops.UnderstandingInput(session_id="s1"))
    assert [p.text for s in shown.steps for p in s.post_conditions] == ["Cardiologie", "checked"]
