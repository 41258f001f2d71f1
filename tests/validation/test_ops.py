"""validate_action through the real dispatcher: images in, verdict + evidence + crops out."""

from __future__ import annotations

import base64
from typing import Any

import anyio
import pytest

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.errors import RpaError
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from tests.validation.helpers import load_pair

AGENT = Caller("agent:DESKTOP-01", frozenset({"agent"}), via="rest", auth="api-token")


@pytest.fixture
def services(settings, clock, ocr_engine) -> Services:
    return build_services(settings, clock=clock, ocr=ocr_engine)


def call(services: Services, arguments: dict[str, Any]) -> dict[str, Any]:
    registry = build_registry(("validation",))
    return anyio.run(lambda: dispatch(registry, services, "validate_action", arguments, AGENT, surface="rest"))


def b64(data: bytes) -> dict[str, str]:
    return {"png_base64": base64.b64encode(data).decode()}


def test_validate_action_is_a_read_operation_on_the_rest_path() -> None:
    op = build_registry(("validation",)).get("validate_action")
    assert op is not None and op.risk == "read"
    assert [(h.method, h.path) for h in op.http] == [("POST", "/api/v1/validate")]


def test_the_step_10_regression_through_the_operation(services: Services) -> None:
    p = load_pair("p-wrong-application")
    out = call(
        services,
        {
            "action_type": "switch_tab",
            "before": b64(p.png_before),
            "after": b64(p.png_after),
            "target": {"label": "Imagerie", "bbox": list(p.target.bbox)},
            "observed": {"window_title_after": "Visionneuse PACS — DURAND^ALICE — RX Thorax"},
            "expected": {"window_title": "Microsoft Edge"},
        },
    )
    assert (out["verdict"], out["failure_category"]) == ("FAILURE", "WRONG_APPLICATION")
    assert {"checker", "score", "passed", "detail", "duration_ms"} <= set(out["evidence"][0])
    assert all(c["mime_type"] == "image/png" for c in out["crops"])


def test_an_unexpected_dialog_is_handed_to_the_dialog_resolver(services: Services) -> None:
    p = load_pair("p-save-session-expired")
    out = call(services, {"action_type": "save", "before": b64(p.png_before), "after": b64(p.png_after)})
    assert out["failure_category"] == "UNEXPECTED_DIALOG"
    assert out["dialog"]["classification"]["dialog_id"] == "easily-session-expired"
    assert out["dialog"]["decision"]["decision"] == "pause"


def test_frames_of_different_sizes_are_refused_by_the_operation(services: Services) -> None:
    wide, small = load_pair("p-tab-switch-ok"), load_pair("p-no-change-1366")
    with pytest.raises(RpaError) as exc:
        call(services, {"action_type": "scroll", "before": b64(wide.png_before), "after": b64(small.png_after)})
    assert exc.value.code == "invalid-input" and exc.value.details["field"] == "after"


def test_a_corrupt_image_is_rejected_naming_the_field(services: Services) -> None:
    corrupt = b64(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    with pytest.raises(RpaError) as exc:
        call(services, {"action_type": "scroll", "before": corrupt, "after": corrupt})
    assert exc.value.code == "image-rejected"
    assert str(exc.value.details["field"]).startswith("before")


def test_an_unknown_action_type_is_invalid_input(services: Services) -> None:
    with pytest.raises(RpaError) as exc:
        call(
            services,
            {
                "action_type": "teleport",
                "before": {"ref": "rpa://screenshots/x"},
                "after": {"ref": "rpa://screenshots/y"},
            },
        )
    assert exc.value.code == "invalid-input"
