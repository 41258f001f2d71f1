"""Decide what to do with a dialog: auto (click one explicit button), pause (a person decides), skip.

Whatever the input, `auto` is never returned for a locked entry (system, deletion, identity,
clinical, unknown): `_guard` re-checks every decision before it leaves this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from rpa_mcp.dialogs.apps import AppConfirmer, ReportedWindow
from rpa_mcp.dialogs.catalog import DialogCatalog
from rpa_mcp.dialogs.classification import Classification, ReadButton
from rpa_mcp.dialogs.classifier import DialogClassifier
from rpa_mcp.dialogs.matching import find_button
from rpa_mcp.dialogs.policy import DeclaredModal, check_declarations, effective_policy, is_locked
from rpa_mcp.vision.images import BBox, crop, encode_png_base64

AUTO_MIN_CONFIDENCE = 0.85
CONFIRMING = ("window", "signature")  # what confirms the application an auto or skip answer belongs to
SKIP_MIN_CONFIDENCE = 0.6  # a skip leaves a modal on screen: the title and the screenshot must not disagree


@dataclass(frozen=True)
class Decision:
    decision: str  # auto | pause | skip
    classification: Classification
    reason: str
    button: ReadButton | None = None
    click_at: tuple[int, int] | None = None
    # the frame and the dialog's region in it (pause): encoded only when someone reads the crop
    crop_source: tuple[np.ndarray, BBox] | None = field(default=None, repr=False, compare=False)
    policy_source: str = "catalog"

    @property
    def dialog_id(self) -> str:
        return self.classification.dialog_id

    @cached_property
    def crop_png_base64(self) -> str | None:
        """The dialog as a PNG, for the person who decides (a whole 1080p frame costs tens of ms)."""
        if self.crop_source is None:
            return None
        image, region = self.crop_source
        return encode_png_base64(crop(image, region, margin=8))


class DialogResolver:
    def __init__(self, catalog: DialogCatalog, classifier: DialogClassifier, *, enabled: bool = True) -> None:
        self.catalog = catalog
        self.classifier = classifier
        self.enabled = enabled

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
        declared = check_declarations(self.catalog, declared_modals)  # raises before anything is decided
        found = self.classifier.classify(
            image, window_title=window_title, process=process, previous=previous, windows=windows, thorough=thorough
        )
        found = self._confirm_declared(found, declared, image, windows, window_title, process)
        decision = self._decide(found, declared)
        decision = _guard(decision)
        if decision.decision == "pause" and image is not None:
            region = found.bbox or (0, 0, image.shape[1], image.shape[0])
            decision = Decision(
                decision.decision,
                found,
                decision.reason,
                None,
                None,
                (image, region),
                decision.policy_source,
            )
        return decision

    def _confirm_declared(
        self,
        found: Classification,
        declared: dict[str, DeclaredModal],
        image: np.ndarray | None,
        windows: Sequence[ReportedWindow],
        window_title: str | None,
        process: str | None,
    ) -> Classification:
        """A workflow declared an answer for a pause entry of an application: look for that application
        in the frame too (the classifier only reported the windows' evidence for it)."""
        app = found.entry.app
        if app is None or found.app_confirmed_by in CONFIRMING or found.entry.id not in declared:
            return found
        if effective_policy(found.entry, declared).policy == "pause":
            return found
        reported = [ReportedWindow(window_title, process), *windows]
        check = AppConfirmer(self.catalog, self.classifier.ocr, image, reported).check(app)
        return replace(found, app=app, app_confirmed_by=check.by)

    def _decide(self, found: Classification, declared: dict[str, DeclaredModal]) -> Decision:
        entry = found.entry
        if not self.enabled:
            return Decision(
                "pause", found, "the dialog resolver is switched off (RPA_DIALOG_RESOLVER_ENABLED): a person decides"
            )
        if not found.found:
            return Decision("pause", found, "no dialog could be located on the screenshot: a person decides")
        if entry.id == self.catalog.unknown.id:
            return Decision(
                "pause", found, "unknown dialog (not in the catalog): a person decides", policy_source="locked"
            )
        policy = effective_policy(entry, declared)
        label = f"{entry.id} (category {entry.category})"
        if policy.policy != "pause" and entry.app is not None and found.app_confirmed_by not in CONFIRMING:
            return Decision(
                "pause",
                found,
                f"{label} belongs to {entry.app}, which neither the reported window nor the frame confirms: "
                "a person decides",
                policy_source=policy.source,
            )
        if policy.policy == "skip" and found.buttons:
            return Decision(
                "pause",
                found,
                f"{label}: buttons are showing ({', '.join(b.label for b in found.buttons)}); a dialog with buttons "
                "is never ignored",
                policy_source=policy.source,
            )
        if policy.policy == "skip" and found.confidence < SKIP_MIN_CONFIDENCE:
            return Decision(
                "pause",
                found,
                f"{label} recognised with confidence {found.confidence:.2f} < {SKIP_MIN_CONFIDENCE}: "
                "not sure enough to ignore it",
                policy_source=policy.source,
            )
        if policy.policy == "skip":
            return Decision(
                "skip", found, f"{label} is ignored by policy ({policy.source})", policy_source=policy.source
            )
        if policy.policy == "pause":
            why = "only a person may answer it" if policy.source == "locked" else f"policy pause ({policy.source})"
            return Decision("pause", found, f"{label}: {why}", policy_source=policy.source)
        # auto: every condition must hold, otherwise a person decides
        if found.confidence < AUTO_MIN_CONFIDENCE:
            return Decision(
                "pause",
                found,
                f"{label} recognised with confidence {found.confidence:.2f} < "
                f"{AUTO_MIN_CONFIDENCE}: not sure enough to click",
                policy_source=policy.source,
            )
        if found.bbox is None:
            return Decision(
                "pause",
                found,
                f"{label}: known from the title only; no screenshot to find the button",
                policy_source=policy.source,
            )
        if not found.buttons:
            return Decision(
                "pause",
                found,
                f"{label}: none of its buttons can be seen (the dialog runs off the screen or is covered)",
                policy_source=policy.source,
            )
        assert policy.button_key is not None
        index = find_button(entry, policy.button_key, [b.label for b in found.buttons])
        if index is None:
            spec = entry.button(policy.button_key)
            wanted = f"{spec.en}/{spec.fr}" if spec else policy.button_key
            return Decision(
                "pause",
                found,
                f"{label}: button {wanted} not found exactly once on the dialog",
                policy_source=policy.source,
            )
        button = found.buttons[index]
        x, y, w, h = button.bbox
        return Decision(
            "auto",
            found,
            f"{label}: click {button.label!r} ({policy.source} policy)",
            button,
            (x + w // 2, y + h // 2),
            policy_source=policy.source,
        )


def _guard(decision: Decision) -> Decision:
    """Last line of defence: a locked entry is never answered automatically."""
    entry = decision.classification.entry
    if decision.decision != "pause" and is_locked(entry):
        return Decision(
            "pause",
            decision.classification,
            f"{entry.id} (category {entry.category}): only a person may answer it",
            policy_source="locked",
        )
    return decision
