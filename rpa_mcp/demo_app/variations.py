"""What a test changes in the demo application between a demonstration and its replay.

A test sets them with `POST /control` (JSON, every field optional) and reads them with `GET /control`;
`POST /control` with `{}` puts the application back as a new day shows it:

- ``save``: how "Enregistrer" is answered: ``saved`` (a toast, the note kept: the default), ``error``
  (the application refuses it with its own banner naming required fields; nothing is kept) or
  ``confirm`` (the application asks in its own box first; the note is kept only once "Confirmer" is
  clicked);
- ``renamed``: new words for the application's labels by their key (``{"save": "Sauvegarder"}``);
- ``results``: the order of the search results, ``name`` (the default) or ``reversed``;
- ``unreadable``: patient ids whose row in the search results shows its name, birth date and
  identifier too small and too faint to be read (its "Ouvrir le dossier" stays as it is);
- ``slow``: seconds (0 to ``MAX_SLOW_S``) the server takes to answer a record page and a save (a hospital
  server under load): the page stays as it was meanwhile.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from rpa_mcp.demo_app.patients import patient_by_id

SAVE_ANSWERS = ("saved", "error", "confirm")
RESULT_ORDERS = ("name", "reversed")
MAX_RENAMED = 20
MAX_UNREADABLE = 20
MAX_SLOW_S = 10.0
FIELDS = ("save", "renamed", "results", "unreadable", "slow")


class BadVariation(ValueError):
    """A control request the application does not know (its message names the field)."""


@dataclass(frozen=True)
class Variation:
    save: str = "saved"
    renamed: dict[str, str] = field(default_factory=dict)
    results: str = "name"
    unreadable: list[str] = field(default_factory=list)
    slow: float = 0.0

    @classmethod
    def parse(cls, body: dict[str, Any], known_labels: frozenset[str]) -> Variation:
        unknown = sorted(set(body) - set(FIELDS))
        if unknown:
            raise BadVariation(f"unknown fields {unknown}: control takes {', '.join(FIELDS)}")
        save = body.get("save", "saved")
        if save not in SAVE_ANSWERS:
            raise BadVariation(f"save must be one of {list(SAVE_ANSWERS)}")
        results = body.get("results", "name")
        if results not in RESULT_ORDERS:
            raise BadVariation(f"results must be one of {list(RESULT_ORDERS)}")
        renamed = body.get("renamed") or {}
        if not isinstance(renamed, dict) or len(renamed) > MAX_RENAMED:
            raise BadVariation(f"renamed must map at most {MAX_RENAMED} label keys to their new words")
        for key, words in renamed.items():
            if key not in known_labels or not isinstance(words, str) or not 0 < len(words) <= 80:
                raise BadVariation(f"renamed.{key}: a known label key and 1 to 80 characters")
        unreadable = body.get("unreadable") or []
        if (
            not isinstance(unreadable, list)
            or len(unreadable) > MAX_UNREADABLE
            or not all(isinstance(p, str) and patient_by_id(p) is not None for p in unreadable)
        ):
            raise BadVariation(f"unreadable must list at most {MAX_UNREADABLE} known patient ids (p001)")
        slow = body.get("slow", 0.0)
        if isinstance(slow, bool) or not isinstance(slow, int | float) or not 0 <= slow <= MAX_SLOW_S:
            raise BadVariation(f"slow must be a number of seconds from 0 to {MAX_SLOW_S:g}")
        return cls(
            save=str(save), renamed=dict(renamed), results=str(results), unreadable=list(unreadable), slow=float(slow)
        )


class Variations:
    """The application's current variation (thread-safe; one per application)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._now = Variation()

    @property
    def now(self) -> Variation:
        with self._lock:
            return self._now

    def set(self, variation: Variation) -> None:
        with self._lock:
            self._now = variation

    def as_dict(self) -> dict[str, Any]:
        return asdict(self.now)
