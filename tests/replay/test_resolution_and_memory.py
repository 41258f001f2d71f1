"""Target resolution with its quality guard, and the target memory."""

from __future__ import annotations

import base64

import cv2
import numpy as np
import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.thresholds import Thresholds, load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine

SCREEN = np.full((1080, 1920, 3), 240, np.uint8)
PC = "pc-1"  # the workstation whose memory the tests read and teach


class RegionOcr(FakeOcr):
    """Records the size of every region it is asked to read."""

    def __init__(self, lines):
        super().__init__(lines=lines)
        self.shapes = []

    def read(self, image):
        self.shapes.append(image.shape[:2])
        return super().read(image)


def resolver(service, ocr) -> TargetResolver:
    """The engine's resolver (same memory and thresholds) reading the screen with `ocr`."""
    return TargetResolver(ocr=ocr, memory=service.memory, thresholds=service.resolver.thresholds, vlm=NoVlmLocator())


def test_the_shipped_thresholds_catalog_loads_and_holds_the_spec_minimums():
    t = load_thresholds(shipped_dir("catalog") / "thresholds.yaml")
    assert isinstance(t, Thresholds)
    assert t.min_score("hybrid_text_direct") == (True, 0.80)
    assert t.min_score("som_text_match") == (True, 0.75)
    assert t.min_score("template_matching") == (True, 0.85)
    assert t.min_score("vlm_grounding") == (True, 0.60)
    assert t.min_score("uia") == (True, 0.90)
    assert t.min_score("memory") == (True, None)
    assert t.drift.max_fraction == 0.20


def test_ocr_reads_a_window_around_the_recorded_position_never_the_full_frame(service, services):
    ocr = RegionOcr([OcrLine("Imagerie", (10, 10, 80, 20), 0.95)])
    res = resolver(service, ocr).resolve(SCREEN, {"label": "imagerie", "rel_x": 0.3, "rel_y": 0.2}, machine_id=PC)
    assert res.resolved and res.method == "hybrid_text_direct"
    assert all(h < 1080 and w < 1920 for h, w in ocr.shapes)


def test_a_low_ocr_score_is_rejected_with_a_reason(service, services):
    res = resolver(service, RegionOcr([OcrLine("Imagerie", (10, 10, 80, 20), 0.55)])).resolve(
        SCREEN, {"label": "Imagerie", "rel_x": 0.3, "rel_y": 0.2, "resolve_order": ["ocr"]}
    )
    assert not res.resolved and res.method == "rejected_low_score_hybrid_text_direct"
    assert "0.55" in res.reason


def test_a_hit_far_from_the_recorded_position_is_rejected_as_drift(service, services):
    # a false positive seen in production: found at (0.505, 0.770), recorded at (0.093, 0.356)
    spec = {"label": "Enregistrer", "rel_x": 0.093, "rel_y": 0.356, "uia": {"x": 970, "y": 832, "score": 0.99}}
    res = resolver(service, RegionOcr([])).resolve(SCREEN, spec, machine_id=PC)
    assert not res.resolved and res.method == "rejected_drift_uia"


def test_in_a_resized_window_a_hit_near_the_point_kept_from_its_top_left_corner_passes_the_drift_guard(
    service, services
):
    # the recorded point carried to the nearest (bottom) edge of a shorter window, and kept from its top left
    spec = {"label": "Enregistrer", "rel_x": 0.076, "rel_y": 0.232, "top_left_rel": [0.076, 0.529]}
    near_top_left = resolver(service, RegionOcr([])).resolve(
        SCREEN, spec | {"uia": {"x": 146, "y": 571, "score": 0.99}}, machine_id=PC
    )
    assert near_top_left.resolved and near_top_left.method == "uia"
    far_from_both = resolver(service, RegionOcr([])).resolve(
        SCREEN, spec | {"uia": {"x": 970, "y": 832, "score": 0.99}}, machine_id=PC
    )
    assert not far_from_both.resolved and far_from_both.method == "rejected_drift_uia"
    without = resolver(service, RegionOcr([])).resolve(
        SCREEN, {k: v for k, v in spec.items() if k != "top_left_rel"} | {"uia": {"x": 146, "y": 571, "score": 0.99}}
    )
    assert not without.resolved and without.method == "rejected_drift_uia"  # as before, with no such point


@pytest.mark.parametrize("placeholder", [(0.5, 0.5), (0.0, 0.0)])
def test_placeholder_positions_skip_the_drift_guard(service, services, placeholder):
    spec = {
        "label": "OK",
        "rel_x": placeholder[0],
        "rel_y": placeholder[1],
        "uia": {"x": 1800, "y": 1000, "score": 0.95},
    }
    assert resolver(service, RegionOcr([])).resolve(SCREEN, spec, machine_id=PC).resolved


def test_template_matching_finds_the_anchor_near_its_recorded_position(service, services):
    screen = SCREEN.copy()
    cv2.rectangle(screen, (600, 300), (700, 340), (30, 60, 200), -1)
    cv2.putText(screen, "Valider", (610, 330), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    anchor = screen[295:345, 595:705]
    _ok, buf = cv2.imencode(".png", anchor)
    spec = {
        "anchor_png_base64": base64.b64encode(bytes(buf)).decode(),
        "rel_x": 650 / 1920,
        "rel_y": 320 / 1080,
        "resolve_order": ["template"],
    }
    res = resolver(service, RegionOcr([])).resolve(screen, spec, machine_id=PC)
    assert res.resolved and res.method == "template_matching" and abs(res.x - 650) <= 2 and abs(res.y - 320) <= 2


def test_nothing_found_is_resolved_false_not_found(service, services):
    res = resolver(service, RegionOcr([])).resolve(
        SCREEN, {"label": "Absent", "rel_x": 0.2, "rel_y": 0.2}, machine_id=PC
    )
    assert not res.resolved and res.method == "not_found"


def test_screen_signature_is_16_hex_of_the_normalized_title():
    assert m.screen_signature("MédiDossier  - Patient") == m.screen_signature("medidossier - patient")
    assert len(m.screen_signature("x")) == 16


def test_memory_is_trusted_after_two_successes_and_failures_lower_it(service, services):
    spec = {"label": "Imagerie", "window_title": "MédiDossier", "resolve_order": ["memory"]}
    mem = service.memory
    mem.record_success(PC, "MédiDossier", spec, [400, 120])
    assert mem.lookup(PC, "MédiDossier", spec) is None
    mem.record_success(PC, "MédiDossier", spec, [402, 121])
    hit = mem.lookup(PC, "Medidossier", spec)
    assert hit is not None and (hit.x, hit.y) == (402, 121)
    at_the_spot = RegionOcr([OcrLine("Imagerie", (10, 8, 90, 20), 0.98)])
    res = resolver(service, at_the_spot).resolve(SCREEN, spec, machine_id=PC)
    assert res.resolved and res.from_memory and res.method == "memory"
    assert max(h * w for h, w in at_the_spot.shapes) < 100 * 400  # one target-sized box read, not a region
    mem.record_failure(PC, "MédiDossier", spec)
    assert mem.lookup(PC, "MédiDossier", spec) is None  # 2 / (2 + 2) = 0.5 < 0.6


def test_a_remembered_spot_that_no_longer_shows_the_label_is_not_clicked(service):
    # The same window title, another layout (the window moved): the remembered spot shows something else.
    spec = {"label": "Imagerie", "window_title": "MédiDossier", "resolve_order": ["memory"]}
    for _ in range(2):
        service.memory.record_success(PC, "MédiDossier", spec, [400, 120])
    res = resolver(service, RegionOcr([OcrLine("Séries", (10, 8, 60, 20), 0.98)])).resolve(SCREEN, spec, machine_id=PC)
    assert not res.from_memory and not res.resolved


def test_a_success_elsewhere_restarts_the_count(service):
    spec = {"label": "OK"}
    for _ in range(2):
        service.memory.record_success(PC, "App", spec, [10, 10])
    service.memory.record_success(PC, "App", spec, [900, 500])
    assert service.memory.lookup(PC, "App", spec) is None


@pytest.mark.anyio
async def test_a_validated_click_is_remembered_with_the_agents_actual_position(service, agent, clock):
    from tests.replay.kit import drain, steps

    for _ in range(2):
        await service.start(steps=steps(1), competence="c", version=1, machine_id="pc-1")
        await drain(service, [agent], clock)
    hit = service.memory.lookup(PC, "MédiDossier", {"label": "Button 0"})
    assert hit is not None and (hit.x, hit.y) == (100, 100)


@pytest.mark.anyio
async def test_a_replay_reads_and_teaches_the_memory_of_its_own_workstation_only(service, services, agent, clock):
    from tests.replay.kit import FakeAgent, drain, steps

    for _ in range(2):  # two validated clicks on pc-1
        await service.start(steps=steps(1), competence="c", version=1, machine_id=PC)
        await drain(service, [agent], clock)
    target = {"label": "Button 0"}
    assert service.memory.lookup(PC, "MédiDossier", target) is not None
    assert service.memory.lookup("pc-2", "MédiDossier", target) is None  # learned on pc-1 only
    services.ocr.lines = [OcrLine("Button 0", (0, 0, 80, 20), 0.99)]  # the label reads wherever it is looked for

    async def first_action_of_a_replay_on(machine_id: str):
        rid = await service.start(steps=steps(1), competence="c", version=1, machine_id=machine_id)
        return service.store.get_replay(rid), service.store.first_open_action(rid)

    replay, action = await first_action_of_a_replay_on("pc-2")
    elsewhere = service.check_screen_for(replay, action, SCREEN, "MédiDossier")
    assert elsewhere.resolved and not elsewhere.from_memory  # pc-2 finds it by reading, not by pc-1's spot
    await drain(service, [FakeAgent(service, "pc-2", clock=clock)], clock)
    replay, action = await first_action_of_a_replay_on(PC)
    own = service.check_screen_for(replay, action, SCREEN, "MédiDossier")
    assert own.from_memory and (own.x, own.y) == (100, 100)


def test_without_a_grounding_model_the_vlm_method_says_what_to_configure(service):
    res = resolver(service, RegionOcr([])).resolve(SCREEN, {"label": "Absent", "resolve_order": ["vlm"]}, machine_id=PC)
    assert not res.resolved and res.method == "not_found"
    assert {"method": "vlm", "error": "no vision model is configured: set RPA_VLM_URL"} in res.tried


def test_a_grounding_model_given_to_the_engine_is_asked_for_the_vlm_method(tmp_path):
    from tests.replay.kit import make_service, make_services

    class Grounding:
        def locate(self, image, target):
            return (640, 360, 0.9, "grounding_test")

    service = make_service(make_services(tmp_path, vlm=Grounding()))
    res = service.resolver.resolve(SCREEN, {"label": "Valider", "resolve_order": ["vlm"]}, machine_id=PC)
    assert res.resolved and (res.x, res.y, res.method) == (640, 360, "grounding_test")


class LineOcr(RegionOcr):
    """Also records the crops it recognises as one line, and reads `line` on them."""

    def __init__(self, lines, line):
        super().__init__(lines)
        self.line, self.line_shapes = line, []

    def read_line(self, image):
        self.line_shapes.append(image.shape[:2])
        height, width = image.shape[:2]
        return OcrLine(self.line, (0, 0, width, height), 0.97) if self.line else None


FIELD = {"label": "Texte de l'observation", "bbox": [600, 500, 660, 140], "window_title": "Easily"}


def _trusted(service, spec, spot):
    for _ in range(2):
        service.memory.record_success(PC, spec["window_title"], spec, list(spot))


def test_a_label_read_once_at_a_remembered_spot_is_checked_again_on_its_own_line(service):
    _trusted(service, FIELD, (930, 570))
    ocr = LineOcr([OcrLine("Texte de l'observation", (20, 10, 200, 22), 0.98)], "Texte de l'observation")
    engine = resolver(service, ocr)
    first = engine.resolve(SCREEN, FIELD, machine_id=PC)
    assert first.resolved and first.from_memory and len(ocr.shapes) == 1 and ocr.line_shapes == []
    second = engine.resolve(SCREEN, FIELD, machine_id=PC)
    assert second.resolved and second.from_memory and (second.x, second.y) == (930, 570)
    assert len(ocr.shapes) == 1  # no detection over the field's box the second time
    ((h, w),) = ocr.line_shapes
    assert (h, w) == (22 + 8, 200 + 16)  # the line read before, padded


def test_a_remembered_line_that_no_longer_shows_the_label_falls_back_to_the_whole_box(service):
    _trusted(service, FIELD, (930, 570))
    engine = resolver(service, LineOcr([OcrLine("Texte de l'observation", (20, 10, 200, 22), 0.98)], ""))
    assert engine.resolve(SCREEN, FIELD, machine_id=PC).from_memory
    # The field now shows typed text where its label was, and the whole box shows no label either.
    moved = LineOcr([OcrLine("Note 3 : constantes stables.", (20, 10, 260, 22), 0.98)], "Note 3 : constantes")
    engine.ocr = moved
    res = engine.resolve(SCREEN, {**FIELD, "resolve_order": ["memory"]}, machine_id=PC)
    assert not res.from_memory and len(moved.line_shapes) == 1 and moved.shapes  # quick read, then the whole box
    assert not (res.resolved and res.method == "memory")


def test_the_line_an_ocr_hit_was_read_on_is_what_the_memory_checks_next(service):
    spec = {"label": "Enregistrer", "rel_x": 0.5, "rel_y": 0.6, "bbox": [900, 620, 160, 44], "window_title": "Easily"}
    ocr = LineOcr([OcrLine("Enregistrer", (300, 150, 90, 20), 0.97)], "Enregistrer")
    engine = resolver(service, ocr)
    hit = engine.resolve(SCREEN, {**spec, "resolve_order": ["ocr"]}, machine_id=PC)
    assert hit.resolved and hit.method == "hybrid_text_direct"
    _trusted(service, spec, (hit.x, hit.y))
    reads = len(ocr.shapes)
    again = engine.resolve(SCREEN, spec, machine_id=PC)
    assert again.from_memory and len(ocr.shapes) == reads and ocr.line_shapes == [(28, 106)]


def test_a_remembered_line_is_read_only_inside_the_targets_box(service):
    # A line box remembered far off (another layout) is cut to the target-sized box around the spot.
    _trusted(service, FIELD, (930, 570))
    engine = resolver(service, LineOcr([], "Texte de l'observation"))
    engine.label_boxes.remember("Easily", FIELD, (930, 570), (1500, 900, 200, 22), machine_id=PC)
    res = engine.resolve(SCREEN, {**FIELD, "resolve_order": ["memory"]}, machine_id=PC)
    assert not res.from_memory and engine.ocr.line_shapes == []


BUTTON = {"label": "Enregistrer", "rel_x": 0.5, "rel_y": 0.6, "bbox": [900, 620, 160, 44], "window_title": "Easily"}


def _found_once(service, ocr):
    """A first use: the region search finds the label; the click there is validated once."""
    engine = resolver(service, ocr)
    first = engine.resolve(SCREEN, {**BUTTON, "resolve_order": ["ocr"]}, machine_id=PC)
    assert first.resolved and first.method == "hybrid_text_direct" and not first.from_memory
    service.memory.record_success(PC, "Easily", BUTTON, [first.x, first.y])
    return engine, first


def test_before_the_memory_trusts_a_spot_its_last_label_line_is_read_instead_of_a_region(service):
    ocr = LineOcr([OcrLine("Enregistrer", (300, 150, 90, 20), 0.97)], "Enregistrer")
    engine, first = _found_once(service, ocr)
    assert service.memory.lookup(PC, "Easily", BUTTON) is None  # one success: not trusted yet
    regions = len(ocr.shapes)
    second = engine.resolve(SCREEN, {**BUTTON, "resolve_order": ["ocr"]}, machine_id=PC)
    assert second.resolved and second.method == "hybrid_text_direct" and not second.from_memory
    assert (second.x, second.y) == (first.x, first.y)
    assert len(ocr.shapes) == regions and ocr.line_shapes == [(28, 106)]  # one line recognised, no region


def test_a_last_label_line_that_shows_something_else_leaves_the_region_search_to_decide(service):
    ocr = LineOcr([OcrLine("Enregistrer", (300, 150, 90, 20), 0.97)], "Supprimer")
    engine, _ = _found_once(service, ocr)
    regions = len(ocr.shapes)
    again = engine.resolve(SCREEN, {**BUTTON, "resolve_order": ["ocr"]}, machine_id=PC)
    assert again.resolved and len(ocr.line_shapes) == 1
    # the first look (its line cut), a small region around that line (this fake reads it cut there too), the region
    assert ocr.shapes[regions:] == [(120, 360), (120, 360), (320, 640)]


def test_a_last_label_line_read_with_a_low_score_leaves_the_region_search_to_decide(service):
    class Blurred(LineOcr):
        def read_line(self, image):
            read = super().read_line(image)
            return OcrLine(read.text, read.bbox, 0.5) if read else None

    ocr = Blurred([OcrLine("Enregistrer", (300, 150, 90, 20), 0.97)], "Enregistrer")
    engine, _ = _found_once(service, ocr)
    regions = len(ocr.shapes)
    again = engine.resolve(SCREEN, {**BUTTON, "resolve_order": ["ocr"]}, machine_id=PC)
    assert again.resolved and again.score == pytest.approx(0.97)
    # the first look (its line cut), a small region around that line (this fake reads it cut there too), the region
    assert ocr.shapes[regions:] == [(120, 360), (120, 360), (320, 640)]


def test_a_spot_whose_failures_lowered_its_reliability_is_not_read_first(service):
    ocr = LineOcr([OcrLine("Enregistrer", (300, 150, 90, 20), 0.97)], "Enregistrer")
    engine, _ = _found_once(service, ocr)
    service.memory.record_failure(PC, "Easily", BUTTON)  # 1 / (1 + 2) < 0.6
    assert service.memory.last_success(PC, "Easily", BUTTON) is None
    regions = len(ocr.shapes)
    engine.resolve(SCREEN, {**BUTTON, "resolve_order": ["ocr"]}, machine_id=PC)
    # the first look (its line cut), a small region around that line (this fake reads it cut there too), the region
    assert ocr.line_shapes == [] and ocr.shapes[regions:] == [(120, 360), (120, 360), (320, 640)]
