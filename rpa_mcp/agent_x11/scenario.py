"""The nurse's demonstration on the demo application, played by a scripted person.

A `Person` (XTEST input from outside the agent, elements found by their accessibility names)
searches a patient, opens the record, goes to the Observations tab, types an observation and
saves it, waiting after each gesture for the application's own effect, the way a person looks
at the screen before going on. The desktop tests, `rpa-mcp bench desktop` and
`rpa-mcp demo --desktop` teach the platform with it.

    person = Person(desk, pace=recorder_pace(recorder))
    demonstrate(person, effects, Observation("DURAND Alice", "Patient calme."))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rpa_mcp.agent_x11.harness import AgentProcess, Person
from rpa_mcp.demo_app import EffectsLog

SEARCH_TITLE = "Recherche patient"
EFFECT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Observation:
    """What the nurse writes, for whom."""

    patient: str = "DURAND Alice"
    note: str = "Patient calme, douleur 2/10."


def demonstrate(person: Person, effects: EffectsLog, observation: Observation) -> None:
    """Search the patient, open the record, Observations tab, type the note, save; each effect awaited."""
    mark = effects.mark

    def seen(kind: str) -> None:
        effects.wait_for(lambda es: any(e.kind == kind for e in es), since=mark, timeout=EFFECT_TIMEOUT_S)

    person.click_field("Rechercher un patient", "entry")
    person.type(observation.patient)
    person.press("enter")
    seen("search")
    person.click("Ouvrir le dossier")
    seen("open_record")
    person.click("Observations", "page tab")
    seen("tab")
    person.click_field("Texte de l'observation")
    person.type(observation.note)
    person.click("Enregistrer", "push button")
    seen("save")


def recorder_pace(recorder: AgentProcess) -> Callable[[str], None]:
    """A person's pace while `agent-x11 record` streams: after each gesture, until the recorder said it saw it."""
    seen = {"click": 0, "key": 0}

    def pace(gesture: str) -> None:
        seen[gesture] += 1
        recorder.wait_count("click at" if gesture == "click" else "key ", seen[gesture])

    return pace


def effects_of_observation(effects: list[Any]) -> dict[str, list[Any]]:
    """The application-side effects of one observation, by kind (what "each effect once" counts)."""
    kinds = ("search", "open_record", "tab", "save", "delete", "dialog", "camera", "leave")
    return {kind: [e for e in effects if e.kind == kind] for kind in kinds}
