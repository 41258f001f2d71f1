"""A run's value typed into a search field shows there too: that field is never the record.

Seen on a native application: the patient's name typed in "Nom du patient" was resolved to that field
("read 'Nomdu patient: MOREL', match 0.95") instead of the result row. Drawn here, read with the real OCR.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.service.planning import _mark_typed_fields, record_identity

W, H = 1280, 720
FIELD_Y, ROW_Y = 120, 260  # baselines: the search field, the first result row
FONT = cv2.FONT_HERSHEY_SIMPLEX


def search_screen() -> np.ndarray:
    img = np.full((H, W, 3), 250, np.uint8)
    cv2.putText(img, "Nom du patient:", (100, FIELD_Y), FONT, 0.8, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.rectangle(img, (330, FIELD_Y - 34), (700, FIELD_Y + 12), (255, 255, 255), -1)
    cv2.rectangle(img, (330, FIELD_Y - 34), (700, FIELD_Y + 12), (120, 120, 120), 1)
    # what was typed, larger and darker than the grid: read with a higher score than the row's name
    cv2.putText(img, "MOREL", (340, FIELD_Y), FONT, 1.0, (0, 0, 0), 2, cv2.LINE_AA)
    for x, cell in zip((330, 560, 760), ("MOREL", "Jean", "12/03/1950"), strict=True):
        cv2.putText(img, cell, (x, ROW_Y), FONT, 0.6, (90, 90, 90), 1, cv2.LINE_AA)
    return img


def planned(patient: str) -> dict[str, object]:
    """The search typed into 'Nom du patient', then the row chosen by who it is, as the planning hands them over."""
    actions: list[dict[str, object]] = [
        {"action_type": "type_text", "target": {"label": "Nom du patient"}, "params": {"text": patient}},
        {
            "action_type": "click_anchor",
            "params": {},
            "target": {
                "label": patient,
                "rel_x": 380 / W,
                "rel_y": (ROW_Y - 10) / H,
                "resolve_order": ["ocr"],
                **record_identity("{{patient}} Jean 12/03/1950", {"patient": patient}),
            },
        },
    ]
    _mark_typed_fields(actions)  # type: ignore[arg-type]  # the planning's own rows
    target = actions[1]["target"]
    assert isinstance(target, dict)
    return target


def test_the_record_target_knows_the_field_its_value_was_typed_into() -> None:
    assert planned("MOREL")["typed_fields"] == ["Nom du patient"]


def test_the_value_in_its_search_field_is_passed_over_for_the_result_row(resolver: TargetResolver) -> None:
    unaware = {k: v for k, v in planned("MOREL").items() if k != "typed_fields"}
    # not knowing the field, the field and the row both read the record: neither is clicked
    blind = resolver.resolve(search_screen(), unaware)
    assert not blind.resolved and blind.method == "identity_ambiguous", blind
    res = resolver.resolve(search_screen(), planned("MOREL"))
    assert res.resolved and abs((res.y or 0) - (ROW_Y - 10)) <= 14, res.tried
    assert "Nom" not in res.tried[-1]["identity_read"]


def test_a_hit_on_the_search_field_from_another_method_is_never_the_record(resolver: TargetResolver) -> None:
    spec = planned("MOREL") | {"uia": {"x": 380, "y": FIELD_Y - 10, "score": 0.99}, "resolve_order": ["uia"]}
    res = resolver.resolve(search_screen(), spec)
    assert res.tried[0] == {"method": "uia", "found": False}  # a position never chooses a record
    assert res.resolved and abs((res.y or 0) - (ROW_Y - 10)) <= 14
