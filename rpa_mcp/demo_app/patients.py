"""Fictitious patients (names made up by combining common French first and last names)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

_LAST = (
    "DURAND", "MARTIN", "BERNARD", "PETIT", "ROBERT", "RICHARD", "MOREAU", "SIMON", "LAURENT", "LEFEBVRE",
    "MICHEL", "GARCIA", "DAVID", "BERTRAND", "ROUX", "VINCENT", "FOURNIER", "MOREL", "GIRARD", "ANDRE",
)  # fmt: skip
_FIRST = ("Alice", "Hugo", "Léa", "Jules", "Chloé", "Louis", "Emma", "Gabriel")


@dataclass(frozen=True)
class Patient:
    id: str
    last: str
    first: str
    birth: str
    ipp: str

    @property
    def name(self) -> str:
        return f"{self.last} {self.first}"


def _make() -> tuple[Patient, ...]:
    out = []
    for i in range(60):
        last, first = _LAST[i % len(_LAST)], _FIRST[(i * 3 + i // len(_LAST)) % len(_FIRST)]
        day, month, year = 1 + (i * 7) % 28, 1 + (i * 5) % 12, 1932 + (i * 11) % 70
        out.append(Patient(f"p{i + 1:03d}", last, first, f"{day:02d}/{month:02d}/{year}", f"IPP{700100 + i * 37}"))
    return tuple(out)


PATIENTS: tuple[Patient, ...] = _make()
_BY_ID = {p.id: p for p in PATIENTS}


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold().strip()


def patient_by_id(patient_id: str) -> Patient | None:
    return _BY_ID.get(patient_id)


def search_patients(query: str, limit: int = 8) -> list[Patient]:
    """Patients whose name contains every word of the query (accents and case ignored)."""
    words = fold(query).split()
    if not words:
        return []
    return [p for p in PATIENTS if all(w in fold(p.name + " " + p.ipp) for w in words)][:limit]
