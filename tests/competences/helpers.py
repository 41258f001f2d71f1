"""Workflow IRs for competence tests."""

from __future__ import annotations

from typing import Any


def ir(name: str = "Admission patient", steps: int = 2, intent: str = "Ouvrir le dossier") -> dict[str, Any]:
    return {
        "name": name,
        "domain": "admissions",
        "version": 1,
        "source": {"session_id": "s-1", "machine_id": None},
        "created_at": "2026-01-05T08:00:00+00:00",
        "steps": [
            {
                "index": i,
                "intent": f"{intent} {i}",
                "action_type": "click",
                "target": {"label": f"Bouton {i}", "bbox": [10 * i, 20, 80, 24]},
                "params": {},
                "expected_window_before": "DxCare - Accueil",
                "expected_window_after": "DxCare - Dossier",
                "success_strict": True,
                "wait_after_ms": 200,
                "expected_modals": ["confirm-save"],
            }
            for i in range(steps)
        ],
    }
