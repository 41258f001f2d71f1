"""DialogService: the catalog, the classifier and the resolver, built once per process."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rpa_mcp.dialogs.apps import ReportedWindow
from rpa_mcp.dialogs.catalog import DialogCatalog, load_dialog_catalog
from rpa_mcp.dialogs.classifier import Classification, DialogClassifier
from rpa_mcp.dialogs.policy import DeclaredModal
from rpa_mcp.dialogs.resolver import Decision, DialogResolver
from rpa_mcp.vision.ocr import OcrEngine


class DialogService:
    def __init__(self, catalog: DialogCatalog, ocr: OcrEngine, *, resolver_enabled: bool = True) -> None:
        self.catalog = catalog
        self.classifier = DialogClassifier(catalog, ocr)
        self.resolver = DialogResolver(catalog, self.classifier, enabled=resolver_enabled)

    @classmethod
    def from_catalog_dir(cls, catalog_dir: Path, ocr: OcrEngine, *, resolver_enabled: bool = True) -> DialogService:
        return cls(load_dialog_catalog(catalog_dir / "dialogs.yaml"), ocr, resolver_enabled=resolver_enabled)

    def classify(
        self,
        image: np.ndarray | None = None,
        *,
        window_title: str | None = None,
        process: str | None = None,
        previous: np.ndarray | None = None,
        windows: Sequence[ReportedWindow] = (),
        thorough: bool = False,
    ) -> Classification:
        return self.classifier.classify(
            image, window_title=window_title, process=process, previous=previous, windows=windows, thorough=thorough
        )

    def resolve(
        self,
        image: np.ndarray | None,
        *,
        window_title: str | None = None,
        process: str | None = None,
        declared_modals: Sequence[DeclaredModal] = (),
        previous: np.ndarray | None = None,
        windows: Sequence[ReportedWindow] = (),
        thorough: bool = False,
    ) -> Decision:
        return self.resolver.resolve(
            image,
            window_title=window_title,
            process=process,
            declared_modals=declared_modals,
            previous=previous,
            windows=windows,
            thorough=thorough,
        )
