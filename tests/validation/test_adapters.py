"""Adapters of the validator's ports: the judge over HTTP (mocked, no network), the dialogs locator."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import httpx2
import numpy as np
import pytest

from rpa_mcp.dialogs.apps import ReportedWindow
from rpa_mcp.dialogs.classification import ReadButton
from rpa_mcp.errors import Unavailable
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation_adapters import DialogServiceLocator, OpenAiJudge, build_validator


def judge_with(handler) -> OpenAiJudge:
    client = httpx2.Client(transport=httpx2.MockTransport(handler))
    return OpenAiJudge("http://judge.local/v1", "vision-model", "sk-test", client=client)


def test_the_judge_posts_both_images_and_parses_the_json_answer() -> None:
    seen: dict[str, object] = {}

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen["url"] = str(request.url)
        seen["auth"] = request.headers.get("authorization")
        seen["body"] = json.loads(request.content)
        content = 'Sure: {"success": true, "confidence": 0.8, "explanation": "tab active"}'
        return httpx2.Response(200, json={"choices": [{"message": {"content": content}}]})

    answer = judge_with(handler).judge(action_type="switch_tab", question="?", before_png=b"a", after_png=b"b")
    assert answer.success and answer.confidence == 0.8
    assert seen["url"] == "http://judge.local/v1/chat/completions" and seen["auth"] == "Bearer sk-test"
    images = [p for p in seen["body"]["messages"][1]["content"] if p["type"] == "image_url"]  # type: ignore[index]
    assert len(images) == 2


def test_a_judge_that_answers_badly_is_unavailable() -> None:
    bad = judge_with(lambda request: httpx2.Response(500, json={}))
    with pytest.raises(Unavailable):
        bad.judge(action_type="save", question="?", before_png=b"a", after_png=b"b")


@dataclass
class _Classification:
    found: bool
    bbox: tuple[int, int, int, int] | None
    dialog_id: str = "notepad-save-changes"
    category: str = "D"
    policy: str = "pause"
    title: str = "Notepad"
    confidence: float = 1.0
    buttons: tuple[ReadButton, ...] = ()


class _Dialogs:
    def __init__(self, answer: _Classification) -> None:
        self.answer = answer

    def classify(self, image=None, *, previous=None, windows=()):
        self.windows = list(windows)
        return self.answer


def test_the_dialog_locator_maps_a_classification_to_a_hit() -> None:
    image = np.zeros((10, 10, 3), np.uint8)
    hit = DialogServiceLocator(_Dialogs(_Classification(True, (1, 2, 3, 4)))).locate(image)
    assert hit is not None and hit.bbox == (1, 2, 3, 4) and hit.policy == "pause"
    assert DialogServiceLocator(_Dialogs(_Classification(False, None))).locate(image) is None


def test_the_dialog_locator_passes_on_the_buttons_read_with_their_boxes() -> None:
    read = (ReadButton("Overwrite", (40, 90, 80, 24)), ReadButton("Cancel", (140, 90, 70, 24)))
    found = _Classification(True, (10, 10, 300, 120), buttons=read)
    hit = DialogServiceLocator(_Dialogs(found)).locate(np.zeros((10, 10, 3), np.uint8))
    assert hit is not None and hit.buttons == (("Overwrite", (40, 90, 80, 24)), ("Cancel", (140, 90, 70, 24)))


def test_build_validator_wires_the_judge_only_when_configured(tmp_path: Path) -> None:
    plain = build_validator(Settings(data_dir=tmp_path), FakeOcr())
    assert plain.judge is None and plain.enabled
    judged = build_validator(
        Settings(
            data_dir=tmp_path, llm_judge_url="http://judge.local/v1", llm_judge_model="m", validator_v2_enabled=False
        ),
        FakeOcr(),
    )
    assert isinstance(judged.judge, OpenAiJudge) and not judged.enabled


def test_the_dialog_locator_hands_the_reported_windows_to_the_classifier() -> None:
    dialogs = _Dialogs(_Classification(True, (1, 2, 3, 4)))
    locator = DialogServiceLocator(dialogs)
    locator.locate(np.zeros((10, 10, 3), np.uint8), windows=[("Notes - Mousepad", "mousepad"), (None, None)])
    assert dialogs.windows == [ReportedWindow("Notes - Mousepad", "mousepad")]
