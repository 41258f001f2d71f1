"""Dialogs: catalog model, classifier, policy and resolver (domain: no I/O besides the catalog file)."""

from rpa_mcp.dialogs.catalog import DialogCatalog, DialogEntry, check_catalog, load_dialog_catalog
from rpa_mcp.dialogs.classification import Classification, ReadButton
from rpa_mcp.dialogs.classifier import DialogClassifier
from rpa_mcp.dialogs.policy import DeclaredModal, check_declarations, effective_policy, is_locked
from rpa_mcp.dialogs.resolver import Decision, DialogResolver
from rpa_mcp.dialogs.service import DialogService

__all__ = [
    "Classification",
    "Decision",
    "DeclaredModal",
    "DialogCatalog",
    "DialogClassifier",
    "DialogEntry",
    "DialogResolver",
    "DialogService",
    "ReadButton",
    "check_catalog",
    "check_declarations",
    "effective_policy",
    "is_locked",
    "load_dialog_catalog",
]
