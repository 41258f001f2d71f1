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

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rpa_mcp.demo_app import EffectsLog
from rpa_mcp.desktop_rig.harness import AgentProcess
from rpa_mcp.desktop_rig.person import Person

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
    """A person's pace while `rpa-agent record` streams: after each gesture, until the recorder said it saw it."""
    seen = {"click": 0, "key": 0}

    def pace(gesture: str) -> None:
        seen[gesture] += 1
        recorder.wait_count("click at" if gesture == "click" else "key ", seen[gesture])

    return pace


def effects_of_observation(effects: list[Any]) -> dict[str, list[Any]]:
    """The application-side effects of one observation, by kind (what "each effect once" counts)."""
    kinds = ("search", "open_record", "tab", "save", "delete", "dialog", "camera", "leave")
    return {kind: [e for e in effects if e.kind == kind] for kind in kinds}


def with_parameters(ir: dict[str, Any], observation: Observation) -> dict[str, Any]:
    """The learned workflow with the patient and the note as `{{patient}}` and `{{note}}` parameters.

    What the person says when teaching ("the patient and the note change each time"): the values
    typed become placeholders, and so does the patient's name in the window titles and post-conditions the
    steps expect, and in the window each step acts in.
    """
    out: dict[str, Any] = json.loads(json.dumps(ir))
    values = {"patient": observation.patient, "note": observation.note}
    for step in out["steps"]:
        params = step.get("params") or {}
        for name, value in values.items():
            if params.get("text") == value:
                params["text"] = "{{" + name + "}}"
        for key in ("expected_window_before", "expected_window_after"):
            if isinstance(step.get(key), str):
                step[key] = step[key].replace(observation.patient, "{{patient}}")
        target = step.get("target") or {}
        if isinstance(target.get("window_title"), str):  # the window its keys go to names the patient too
            target["window_title"] = target["window_title"].replace(observation.patient, "{{patient}}")
        outcome = step.get("expected_outcome")
        if outcome:  # the post-condition names the patient too (the record's title)
            outcome["text"] = outcome["text"].replace(observation.patient, "{{patient}}")
    return out


def note_round(person: Person, record_title: str, steps: int) -> list[dict[str, Any]]:
    """`steps` steps on a record's Observations tab: a note typed, saved, the next one typed, saved, ...
    each on its element's box as the screen shows it (a long workflow of real input for the benchmark)."""
    field = person.find("Texte de l'observation").bbox
    button = person.find("Enregistrer", "push button").bbox
    front = person.desk.windows().foreground()
    window = front.title if front else record_title  # as a recorder sees it (the browser adds its name)
    out: list[dict[str, Any]] = []
    for index in range(1, steps + 1):
        typing = index % 2 == 1
        x, y, w, h = field if typing else button
        out.append(
            {
                "index": index,
                "intent": "Saisir l'observation" if typing else "Cliquer sur 'Enregistrer'",
                "action_type": "type_text" if typing else "click_anchor",
                "target": {
                    "label": "Texte de l'observation" if typing else "Enregistrer",
                    "bbox": [x, y, w, h],
                    "frame_size": [1920, 1080],
                    "x_pct": round((x + w / 2) / 1920, 4),
                    "y_pct": round((y + h / 2) / 1080, 4),
                    "window_title": window,
                },
                "params": {"text": f"Note {index // 2 + 1} : constantes stables."} if typing else {},
                "expected_window_before": record_title,
                "expected_window_after": record_title,
                "success_strict": False,
                "wait_after_ms": 300,
                "expected_modals": [],
            }
        )
    return out


def workflow(name: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": name,
        "domain": "soins",
        "version": 1,
        "source": {"session_id": "benchmark", "machine_id": "poste-x11-01"},
        "created_at": "2026-03-12T08:00:00Z",
        "steps": steps,
    }
