"""The reference agent reads a record's line before it clicks it, and never clicks a record by position.

A result list on the virtual desktop (each row a hotspot whose whole line is its text); every click
that reaches the desktop is counted in its input log.
"""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.agent_sim import VirtualDesktop
from rpa_mcp.agent_sim.fixtures import ImageResolver
from rpa_mcp.agent_sim.spec import DesktopSpec

from .fake_server import Harness

pytestmark = pytest.mark.anyio

ROWS = {"MOREL": "MOREL Jean 12/03/1950 48213", "FAURE": "FAURE Celine 02/11/1962 77120", "BLANC": " "}
ROW_Y = (300, 350, 400)


def result_list(*names: str) -> VirtualDesktop:
    spec = DesktopSpec.model_validate(
        {
            "name": "results",
            "start": "results",
            "screens": [
                {"id": "results", "image": "dossier.png", "window_title": "Recherche - DPI", "process": "dpi"},
                *[
                    {
                        "id": f"record-{n}",
                        "image": "imagerie.png",
                        "window_title": f"Dossier {n} - DPI",
                        "process": "dpi",
                    }
                    for n in ROWS
                ],
            ],
            "hotspots": [
                {
                    "screen": "results",
                    "bbox": [100, y - 15, 800, 30],
                    "label": name,
                    "text": ROWS[name],
                    "on_click": {"goto": f"record-{name}"},
                }
                for name, y in zip(names, ROW_Y, strict=False)
            ],
        }
    )
    return VirtualDesktop(spec, ImageResolver.default())


def morel(**wire: Any) -> dict[str, Any]:
    """The demonstration chose the first row; the planning filled {{patient}} with MOREL."""
    spec = {"label": "MOREL", "rel_x": 500 / 1919, "rel_y": ROW_Y[0] / 1079}
    spec |= {"identity": "MOREL Jean 12/03/1950", "identity_values": ["MOREL"]}
    return {"label": "MOREL", "rel_x": spec["rel_x"], "rel_y": spec["rel_y"], "spec": spec, **wire}


@pytest.fixture
def desktop() -> VirtualDesktop:
    return result_list("FAURE", "MOREL")  # reordered: the intended patient is now second


async def test_a_reordered_list_selects_the_intended_record(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=morel())
    await harness.agent().poll_once()
    assert harness.server.results[action_id]["success"] is True
    assert [e.label for e in harness.desktop.agent_inputs()] == ["MOREL"]
    assert harness.desktop.screen.id == "record-MOREL"


async def test_a_position_that_shows_another_patient_is_never_clicked(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=morel(x=500, y=ROW_Y[0]))  # resolved onto FAURE's row
    await harness.agent().poll_once()
    result = harness.server.results[action_id]
    assert (result["executed"], result["success"], result["error_retryable"]) == (False, False, False)
    assert "IDENTITY_MISMATCH" in result["error"] and "FAURE" in result["error"]
    assert harness.desktop.agent_inputs() == []


async def test_the_intended_patient_absent_pauses_before_any_click(harness: Harness) -> None:
    harness.desktop = result_list("FAURE")  # another patient where MOREL was recorded
    action_id = harness.server.enqueue(target=morel())
    await harness.agent().poll_once()
    result = harness.server.results[action_id]
    assert (result["executed"], result["success"]) == (False, False)
    assert harness.desktop.agent_inputs() == [] and harness.desktop.screen.id == "results"


async def test_an_unreadable_row_is_never_taken_for_the_intended_record(harness: Harness) -> None:
    harness.desktop = result_list("BLANC", "FAURE")
    action_id = harness.server.enqueue(target=morel(x=500, y=ROW_Y[0]))
    await harness.agent().poll_once()
    assert "IDENTITY_MISMATCH" in harness.server.results[action_id]["error"]
    assert harness.desktop.agent_inputs() == []


async def test_a_window_whose_title_names_this_runs_patient_is_the_one_to_bring_back(harness: Harness) -> None:
    harness.desktop = result_list("MOREL")
    harness.desktop.click(500, ROW_Y[0], source="human")  # the record of this run's patient is open
    ok = harness.server.enqueue("focus_window", target={"window_title": "Dossier MOREL {{*}} - DPI"})
    other = harness.server.enqueue("focus_window", target={"window_title": "Dossier FAURE {{*}} - DPI"})
    agent = harness.agent()
    await agent.poll_once()
    await agent.poll_once()
    assert harness.server.results[ok]["success"] is True
    assert harness.server.results[ok]["executed"] is True  # carried out: not re-dispatched until a pause
    assert "WINDOW_NOT_FOUND" in harness.server.results[other]["error"]
