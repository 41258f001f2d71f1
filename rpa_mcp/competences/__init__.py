"""Competences: workflows persisted as versioned YAML files (candidate -> validated)."""

from rpa_mcp.competences.model import Competence, CompetenceSource, CompetenceStep
from rpa_mcp.competences.records import (
    CompetenceListing,
    CompetenceSummary,
    DeletedCompetence,
    DeletePreview,
    LoadedCompetence,
    Problem,
    PromotePreview,
    SavedCompetence,
    SavePreview,
)
from rpa_mcp.competences.slug import slugify
from rpa_mcp.competences.store import CompetenceStore

__all__ = [
    "Competence",
    "CompetenceListing",
    "CompetenceSource",
    "CompetenceStep",
    "CompetenceStore",
    "CompetenceSummary",
    "DeletePreview",
    "DeletedCompetence",
    "LoadedCompetence",
    "Problem",
    "PromotePreview",
    "SavePreview",
    "SavedCompetence",
    "slugify",
]
