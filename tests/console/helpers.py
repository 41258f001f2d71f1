"""Data the console tests share: a recorded workflow with real anchor crops, proposals made over the registry."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from rpa_mcp.bootstrap import Services
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller

MACHINE = "pc-urgences-12"
LLM = Caller("agent:claude", frozenset({"operator"}), via="mcp", issuer="rpa-mcp")  # as its access token names it


def anchor(services: Services, label: str) -> str:
    """A recorded target crop (300x80 PNG) as the shadow observer stores it; returns its rpa:// reference."""
    image = np.full((80, 300, 3), 245, np.uint8)
    cv2.rectangle(image, (60, 22), (240, 58), (200, 120, 30), -1)
    cv2.putText(image, label[:14], (70, 48), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
    ok, png = cv2.imencode(".png", image)
    assert ok
    shot = services.traces.put_screenshot(
        png.tobytes(), session_id=None, kind="anchor", mime="image/png", width=300, height=80, now=services.clock.now()
    )
    return f"rpa://screenshots/{shot}"


def workflow(services: Services, name: str, steps: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    """(intent, label, params) triples -> a workflow IR whose click targets carry recorded crops."""
    return {
        "name": name,
        "domain": "hospital",
        "version": 1,
        "source": {"machine_id": MACHINE},
        "steps": [
            {
                "index": i,
                "intent": intent,
                "action_type": "type_text" if params else "click_anchor",
                "target": {"label": label, "bbox": [100 + 10 * i, 200, 120, 30], "anchor_ref": anchor(services, label)},
                "params": params,
            }
            for i, (intent, label, params) in enumerate(steps)
        ],
    }


ADMISSION = [
    ("Open the patient search", "Rechercher", {}),
    ("Type the patient's name", "Nom du patient", {"text": "{{patient}}"}),
    ("Open the record", "Ouvrir", {}),
]


async def call(services: Services, name: str, args: dict[str, Any], caller: Caller = LLM) -> dict[str, Any]:
    return await dispatch(build_registry(), services, name, args, caller, surface="mcp")


def jti_of(proposal: dict[str, Any]) -> str:
    return str(proposal["approval_url"]).rsplit("/", 1)[1]
