"""What the competence stores answer: listings, loaded versions, previews and results of mutations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Status = Literal["candidate", "validated"]
STATUSES: tuple[Status, ...] = ("candidate", "validated")


@dataclass(frozen=True)
class Problem:
    path: Path
    status: str
    reason: str


@dataclass(frozen=True)
class CompetenceSummary:
    name: str
    slug: str
    status: Status
    version: int
    steps: int
    machine_id: str | None
    updated_at: str
    path: Path
    versions: tuple[int, ...]  # every version kept in this folder, current included
    parameters: tuple[dict[str, Any], ...] = ()  # what a replay of it takes ({name, type, example, ...})


@dataclass(frozen=True)
class CompetenceListing:
    competences: list[CompetenceSummary]
    problems: list[Problem]

    def __iter__(self) -> Iterator[CompetenceSummary]:
        """Iterating a listing walks the valid competences (problems stay available as `.problems`)."""
        return iter(self.competences)

    def __len__(self) -> int:
        return len(self.competences)


@dataclass(frozen=True)
class LoadedCompetence:
    workflow: dict[str, Any]  # the IR
    name: str
    slug: str
    status: Status
    version: int
    current: bool
    path: Path
    versions: tuple[int, ...]
    machine_id: str | None
    updated_at: str
    sha256: str

    @property
    def steps(self) -> int:
        return len(self.workflow["steps"])


@dataclass(frozen=True)
class SavedCompetence:
    path: Path
    name: str
    version: int
    slug: str
    status: Status
    replaced_version: int | None


@dataclass(frozen=True)
class SavePreview:
    name: str
    slug: str
    status: Status
    path: Path
    new_version: int
    replaces_version: int | None
    steps: int
    diff: str | None


@dataclass(frozen=True)
class DeletePreview:
    name: str
    slug: str
    status: Status
    versions: tuple[int, ...]  # versions moved to the trash
    files: tuple[Path, ...]
    steps: int  # of the version named, or of the current one
    restores_version: int | None  # when the current version goes, this archived one becomes current
    current_after: int | None  # current version of the folder once deleted
    binding: dict[str, Any]


@dataclass(frozen=True)
class DeletedCompetence:
    trash_path: Path
    files: tuple[Path, ...]
    versions: tuple[int, ...]


@dataclass(frozen=True)
class PromotePreview:
    name: str
    slug: str
    version: int  # candidate version promoted
    new_version: int  # its number once validated
    replaces_version: int | None  # validated version kept as an archive
    steps: int
    source: Path
    target: Path
    diff: str | None
    binding: dict[str, Any]
