"""Workflows (IR) on the demo application, written as the observer would build them."""

from __future__ import annotations

from typing import Any

CHROMIUM = " – Chromium"  # Chromium appends its name to the page title


def step(
    index: int, intent: str, action: str, label: str | None, rel: tuple[float, float] | None, **extra: Any
) -> dict:
    target: dict[str, Any] = {}
    if label:
        target |= {"label": label, "by_text": label}
    if rel:
        target |= {"x_pct": rel[0], "y_pct": rel[1]}
    if "bbox" in extra:  # the field's own box (AT-SPI), where its typed text shows
        target |= {"bbox": extra.pop("bbox"), "frame_size": [1920, 1080]}
    return {
        "index": index,
        "intent": intent,
        "action_type": action,
        "target": target,
        "params": extra.pop("params", {}),
        "expected_window_before": extra.pop("before", None),
        "expected_window_after": extra.pop("after", None),
        "success_strict": extra.pop("strict", False),
        "wait_after_ms": 300,
        "expected_modals": extra.pop("modals", []),
        **extra,
    }


def ir(name: str, steps: list[dict]) -> dict:
    return {
        "name": name,
        "domain": "soins",
        "version": 1,
        "source": {"session_id": "hand-written", "machine_id": "poste-x11-01"},
        "created_at": "2026-03-12T08:00:00Z",
        "steps": steps,
    }


def open_record_and_write(patient: str = "DURAND Alice", note: str = "Patient calme, douleur 2/10.") -> dict:
    search = "Easily — Recherche patient" + CHROMIUM
    record = f"Easily — {patient} — Synthèse" + CHROMIUM
    observations = f"Easily — {patient} — Observations" + CHROMIUM
    return ir(
        "Observation infirmière",
        [
            step(1, "Saisir 'Rechercher un patient'", "type_text", "Rechercher un patient", (0.086, 0.171),
                 params={"text": patient, "submit_key": "enter"}, before=search, after=search, bbox=[40, 205, 443, 42]),
            step(2, "Cliquer sur 'Ouvrir le dossier'", "click_anchor", "Ouvrir le dossier", (0.398, 0.378),
                 before=search, after=record),
            step(3, "Aller sur l'onglet 'Observations'", "switch_tab", "Observations", (0.154, 0.229),
                 before=record, after=observations, strict=True),
            step(4, "Saisir l'observation", "type_text", "Texte de l'observation", (0.1, 0.357),
                 params={"text": note}, before=observations, after=observations, bbox=[68, 407, 922, 137]),
            step(5, "Cliquer sur 'Enregistrer'", "click_anchor", "Enregistrer", (0.073, 0.529),
                 before=observations, after=observations),
        ],
    )  # fmt: skip


def seen_step(
    person: Any, index: int, intent: str, action: str, name: str, role: str | None = None, **extra: Any
) -> dict:
    """A step on an element as it is on the screen now (its accessibility box), as a recorder saw it."""
    x, y, w, h = person.find(name, role).bbox
    centre = ((x + w / 2) / 1920, (y + h / 2) / 1080)
    return step(index, intent, action, name, centre, bbox=[x, y, w, h], **extra)
