"""The competence store as the rest of the product sees it: YAML files (one process) or the
database (replicas sharing PostgreSQL) behind the same methods."""

from __future__ import annotations

from typing import Any, Protocol

from rpa_mcp.competences.records import (
    CompetenceListing,
    DeletedCompetence,
    DeletePreview,
    LoadedCompetence,
    PromotePreview,
    SavedCompetence,
    SavePreview,
    Status,
)


class Competences(Protocol):
    def list(self, status: Status | None = None) -> CompetenceListing: ...
    def get(self, name: str, version: int | None = None, status: Status | None = None) -> LoadedCompetence: ...
    def preview_save(self, name: str, ir: dict[str, Any], status: Status = "candidate") -> SavePreview: ...
    def save(
        self, name: str, ir: dict[str, Any], status: Status = "candidate", machine_id: str | None = None
    ) -> SavedCompetence: ...
    def preview_promote(self, name: str) -> PromotePreview: ...
    def promote(self, name: str) -> SavedCompetence: ...
    def preview_delete(self, name: str, version: int | None = None, status: Status | None = None) -> DeletePreview: ...
    def delete(self, name: str, version: int | None = None, status: Status | None = None) -> DeletedCompetence: ...
