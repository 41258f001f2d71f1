"""A record is chosen by who it is: every row of its window that could be it is read, and when more than one
reads it (homonyms, the run's values shared by two rows) none is clicked — a person chooses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rpa_mcp.replay import identity
from rpa_mcp.replay.memory import MemoryHit
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from tests.replay.test_first_look import SCREEN, H, ScreenOcr, W

# a record chosen by the run's surname alone (its first name was never made a parameter)
RECORD = {
    "label": "GAUTHIER",
    "identity": "GAUTHIER",
    "identity_values": ["GAUTHIER"],
    "rel_x": 1000 / W,
    "rel_y": 600 / H,
    "resolve_order": ["memory", "ocr"],
}


class RememberedSpot:
    """A memory that trusts the spot where a row was clicked in earlier runs."""

    def __init__(self, x: int, y: int) -> None:
        self.hit = MemoryHit(x, y, 5, 0, 1.0, "sig", "label:gauthier")

    def lookup(self, *_: Any) -> MemoryHit:
        return self.hit

    def last_success(self, *_: Any) -> MemoryHit:
        return self.hit


def resolver(ocr: ScreenOcr, memory: Any = None) -> TargetResolver:
    thresholds = load_thresholds(shipped_dir("catalog") / "thresholds.yaml")
    return TargetResolver(ocr=ocr, memory=memory, thresholds=thresholds, vlm=NoVlmLocator())


@pytest.fixture(autouse=True)
def rows_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def row_text(ocr: ScreenOcr, image: np.ndarray, x: int, y: int, *, height: int = 0) -> str:
        return next((t for t, (_, ly, _, lh), _ in ocr.lines if ly <= y <= ly + lh), "")

    monkeypatch.setattr(identity, "row_text", row_text)


def test_two_rows_that_read_the_record_are_never_clicked_a_person_chooses() -> None:
    ocr = ScreenOcr(
        [("GAUTHIER Édith 900334", (930, 590, 200, 20), 0.97), ("GAUTHIER Rémi 900351", (930, 620, 200, 20), 0.97)]
    )
    res = resolver(ocr).resolve(SCREEN, RECORD)
    assert not res.resolved and res.method == "identity_ambiguous", res
    assert res.reason is not None and res.reason.startswith(identity.AMBIGUOUS)
    assert "2 rows" in res.reason and "600" in res.reason and "630" in res.reason


def test_homonyms_named_in_full_are_ambiguous_too() -> None:
    rows = [
        ("FAURE Céline 12/03/1950", (930, 590, 220, 20), 0.97),
        ("FAURE Céline 04/10/1987", (930, 880, 220, 20), 0.97),
    ]
    spec = RECORD | {"label": "Céline", "identity": "FAURE Céline", "identity_values": ["FAURE", "Céline"]}
    res = resolver(ScreenOcr(rows)).resolve(SCREEN, spec)
    assert not res.resolved and res.method == "identity_ambiguous"


def test_the_rows_of_other_records_leave_the_one_that_reads_it_chosen() -> None:
    rows = [("GAUTHIER Édith 900334", (930, 590, 200, 20), 0.97), ("GARNIER Rémi 900351", (930, 620, 200, 20), 0.97)]
    res = resolver(ScreenOcr(rows)).resolve(SCREEN, RECORD)
    assert res.resolved and res.y == 600


FULL = RECORD | {"label": "Édith", "identity": "GAUTHIER Édith", "identity_values": ["GAUTHIER", "Édith"]}


def test_a_homonym_read_one_letter_off_is_a_rival_still() -> None:
    # the second GAUTHIER Édith's row misread ("GAUTHlER Edlth"): it reads neither the label nor the record
    rows = [
        ("GAUTHIER Édith 04/02/1944", (930, 590, 260, 20), 0.97),
        ("GAUTHlER Edlth 11/09/1981", (930, 620, 260, 20), 0.81),
    ]
    res = resolver(ScreenOcr(rows)).resolve(SCREEN, FULL)
    assert not res.resolved and res.method == "identity_ambiguous", res
    assert res.reason is not None and "630" in res.reason


def test_another_first_name_of_the_same_family_is_no_rival() -> None:
    rows = [("GAUTHIER Édith 900334", (930, 590, 200, 20), 0.97), ("GAUTHIER Edmond 900351", (930, 620, 200, 20), 0.97)]
    res = resolver(ScreenOcr(rows)).resolve(SCREEN, FULL)
    assert res.resolved and res.y == 600


def test_short_names_must_read_exactly_to_be_rivals() -> None:
    # one letter makes another short name: LUC Léa and LUC Lia are two patients, not one misread
    rows = [("LUC Léa 900334", (930, 590, 140, 20), 0.97), ("LUC Lia 900351", (930, 620, 140, 20), 0.97)]
    spec = RECORD | {"label": "Léa", "identity": "LUC Léa", "identity_values": ["LUC", "Léa"]}
    res = resolver(ScreenOcr(rows)).resolve(SCREEN, spec)
    assert res.resolved and res.y == 600


def test_the_search_field_nearly_reading_the_record_is_no_rival() -> None:
    rows = [("GAUTHIER Édith 900334", (930, 590, 200, 20), 0.97), ("Nom du patient GAUTHlER", (930, 300, 260, 20), 0.9)]
    spec = RECORD | {"typed_fields": ["Nom du patient"]}
    res = resolver(ScreenOcr(rows)).resolve(SCREEN, spec | {"window_now": [0, 0, W, H]})
    assert res.resolved and res.y == 600


def test_the_label_twice_on_one_row_is_one_record() -> None:
    rows = [("GAUTHIER Édith", (930, 590, 150, 20), 0.97), ("née GAUTHIER", (1200, 592, 120, 20), 0.97)]
    res = resolver(ScreenOcr(rows)).resolve(SCREEN, RECORD)
    assert res.resolved and res.y is not None and abs(res.y - 600) <= 2


def test_a_remembered_spot_never_chooses_a_record() -> None:
    # earlier runs clicked Édith's row here and the memory trusts it; this run's surname is on two rows
    ocr = ScreenOcr(
        [("GAUTHIER Édith 900334", (930, 590, 200, 20), 0.97), ("GAUTHIER Rémi 900351", (930, 620, 200, 20), 0.97)]
    )
    res = resolver(ocr, RememberedSpot(1030, 600)).resolve(SCREEN, RECORD)
    assert not res.resolved and res.method == "identity_ambiguous" and not res.from_memory


def test_every_row_of_the_window_is_read_not_only_those_near_the_recorded_point() -> None:
    # the other GAUTHIER far below the point where the demonstrated row was: the wide region would miss it
    ocr = ScreenOcr(
        [("GAUTHIER Édith 900334", (930, 590, 200, 20), 0.97), ("GAUTHIER Rémi 900351", (930, 1000, 200, 20), 0.97)]
    )
    res = resolver(ocr).resolve(SCREEN, RECORD | {"window_now": [0, 0, W, H]})
    assert not res.resolved and res.method == "identity_ambiguous"
    assert ocr.shapes == [(H, W)]


def test_the_pause_says_the_record_was_ambiguous_and_never_clicked() -> None:
    from rpa_mcp.replay.service.supervision import never_clicked

    said = never_clicked(f"target_not_resolved: identity_ambiguous: {identity.AMBIGUOUS}: 2 rows read the record")
    assert said == {
        "failure_category": "IDENTITY_AMBIGUOUS",
        "executed": False,
        "why": "more than one row reads the record",
    }
