"""The dialog operations through the real dispatcher (auth scope, input parsing, output validation)."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import anyio
import cv2
import pytest

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.errors import RpaError
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.testing import ScriptedOcr

from .helpers import synthetic_dialog

AGENT = Caller("agent:DESKTOP-01", frozenset({"agent"}), via="rest", auth="api-token")


@pytest.fixture
def services(settings, clock) -> Services:
    return build_services(settings, clock=clock, ocr=ScriptedOcr(["Yes", "No", "User Account Control"]))


def call(services: Services, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    registry = build_registry(("dialogs",))
    return anyio.run(lambda: dispatch(registry, services, name, arguments, AGENT, surface="rest"))


def png_b64(image) -> str:
    ok, buf = cv2.imencode(".png", image)
    assert ok
    return base64.b64encode(buf.tobytes()).decode()


def bomb_png(width: int = 100_000, height: int = 100_000) -> str:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk).decode()


def test_resolve_dialog_pauses_on_a_uac_prompt_and_returns_a_crop(services):
    image, _ = synthetic_dialog(2)
    out = call(services, "resolve_dialog", {"image": {"png_base64": png_b64(image)}})
    assert out["decision"] == "pause" and out["dialog_id"] == "windows-uac" and out["category"] == "A"
    assert out["crop"]["mime_type"] == "image/png" and out["click_at"] is None


def test_classify_dialog_from_a_title_alone(services):
    out = call(services, "classify_dialog", {"window_title": "Bloc-notes", "process": "notepad.exe"})
    assert (out["dialog_id"], out["policy"], out["bbox"]) == ("notepad-save-changes", "pause", None)


def test_classify_dialog_returns_the_box_and_buttons(services):
    image, _buttons = synthetic_dialog(2)
    out = call(services, "classify_dialog", {"image": {"png_base64": png_b64(image)}})
    assert out["dialog_id"] == "windows-uac" and out["found"]
    assert [b["label"] for b in out["buttons"]] == ["Yes", "No"]
    assert len(out["bbox"]) == 4


def test_resolve_dialog_is_also_served_on_the_agent_path():
    op = build_registry(("dialogs",)).get("resolve_dialog")
    assert [(h.method, h.path) for h in op.http] == [("POST", "/api/v1/dialog/resolve")]
    assert op.risk == "read"


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("classify_dialog", {}, "invalid-input"),
        (
            "resolve_dialog",
            {"image": {"png_base64": base64.b64encode(b"not an image at all").decode()}},
            "image-rejected",
        ),
        ("resolve_dialog", {"image": {"png_base64": "%%%not-base64%%%"}}, "image-rejected"),
        ("resolve_dialog", {"image": {"png_base64": ""}}, "image-rejected"),
        ("resolve_dialog", {"image": {"png_base64": bomb_png()}}, "image-rejected"),
        (
            "resolve_dialog",
            {
                "image": {"png_base64": "iVBORw0KGgo="},
                "declared_modals": [{"dialog_id": "windows-uac", "policy": "auto", "button": "accept"}],
            },
            "invalid-input",
        ),
        (
            "resolve_dialog",
            {
                "image": {"png_base64": "iVBORw0KGgo="},
                "declared_modals": [{"dialog_id": "easily-clinical-warning", "policy": "skip"}],
            },
            "invalid-input",
        ),
    ],
)
def test_bad_input_is_refused_with_a_stable_code_and_nothing_is_read(services, name, arguments, code):
    with pytest.raises(RpaError) as err:
        call(services, name, arguments)
    assert err.value.code == code
    assert services.ocr.calls == 0


def test_a_declaration_overriding_uac_names_the_field(services):
    with pytest.raises(RpaError) as err:
        call(
            services,
            "resolve_dialog",
            {
                "image": {"png_base64": "iVBORw0KGgo="},
                "declared_modals": [{"dialog_id": "windows-uac", "policy": "auto"}],
            },
        )
    assert err.value.code == "invalid-input" and "policy" in str(err.value.details.get("field"))


# --- the evidence a client can give and is told about ---------------------------------------------------
SAVE_CONFIRM = ["Annuler", "Confirmer", "Confirmer l'enregistrement", "Confirmez-vous l'enregistrement ?"]
EASILY_WINDOW = {"title": "Easily — Dossier patient - Microsoft Edge", "process": "msedge.exe"}


def test_resolve_dialog_answers_an_applications_dialog_only_with_that_applications_window(settings, clock):
    image, _ = synthetic_dialog(2)
    args = {"image": {"png_base64": png_b64(image)}}
    alone = call(build_services(settings, clock=clock, ocr=ScriptedOcr(SAVE_CONFIRM)), "resolve_dialog", args)
    assert alone["decision"] == "pause" and alone["dialog_id"] == "app-save-changes"
    assert alone["app"] == "easily" and alone["app_confirmed_by"] == "none"
    services = build_services(settings, clock=clock, ocr=ScriptedOcr(SAVE_CONFIRM))
    inside = call(services, "resolve_dialog", {**args, "windows": [EASILY_WINDOW]})
    assert inside["decision"] == "auto" and inside["dialog_id"] == "easily-save-confirm"
    assert inside["app_confirmed_by"] == "window" and inside["region_found_by"] and inside["path"] == "fast"


def test_classify_dialog_takes_the_frame_before_and_says_how_the_dialog_was_found(settings, clock):
    image, _ = synthetic_dialog(2)
    before = image.copy()
    before[200:430, 280:720] = (245, 245, 245)  # the window behind, without the dialog
    services = build_services(settings, clock=clock, ocr=ScriptedOcr(SAVE_CONFIRM))
    out = call(
        services,
        "classify_dialog",
        {
            "image": {"png_base64": png_b64(image)},
            "previous": {"png_base64": png_b64(before)},
            "windows": [EASILY_WINDOW],
        },
    )
    assert out["dialog_id"] == "easily-save-confirm" and out["path"] == "fast"
    assert "buttons" in out["region_found_by"]


def test_a_frame_before_of_another_size_is_refused_naming_the_field(services):
    image, _ = synthetic_dialog(2)
    with pytest.raises(RpaError) as err:
        call(
            services,
            "classify_dialog",
            {"image": {"png_base64": png_b64(image)}, "previous": {"png_base64": png_b64(image[:100, :100])}},
        )
    assert err.value.code == "invalid-input" and err.value.details.get("field") == "previous"
    assert services.ocr.calls == 0


def test_a_single_frame_without_an_outlined_dialog_takes_the_thorough_path(settings, clock):
    blank = synthetic_dialog(0)[0]
    blank[:] = 250
    services = build_services(settings, clock=clock, ocr=ScriptedOcr())
    out = call(services, "classify_dialog", {"image": {"png_base64": png_b64(blank)}})
    assert not out["found"] and out["path"] == "thorough"
    with_before = call(
        services,
        "classify_dialog",
        {"image": {"png_base64": png_b64(blank)}, "previous": {"png_base64": png_b64(blank)}},
    )
    assert with_before["path"] == "fast"
