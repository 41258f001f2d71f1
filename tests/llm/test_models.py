"""t2a_decision and target location on an OpenAI-compatible endpoint (a local fake), and without one."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from rpa_mcp.auth.keys import ConfigurationError
from rpa_mcp.errors import InvalidInput, RpaError, Unavailable
from rpa_mcp.llm import ChatEndpoint, ModelActionRunner, ModelTargetLocator, build_action_runner, build_target_locator
from rpa_mcp.settings import Settings
from rpa_mcp.testing import loopback_socket
from tests.llm.fake_model import fake_model

KEY = "sk-test-0123456789abcdef"


def runner_on(url: str) -> ModelActionRunner:
    return ModelActionRunner(ChatEndpoint(url, "coder-1", KEY, timeout_s=5))


def test_a_decision_asks_the_filled_question_with_the_key_and_returns_the_answer(caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with fake_model() as model:
        model.answer('Here you are: {"decision": "GHM 05M09", "reason": "heart failure"}')
        decision = runner_on(model.url).run(
            "t2a_decision",
            {"prompt": "GHM for a stay of {patient} with {diagnosis}?", "choices": ["GHM 05M09", "GHM 05M08"]},
            {"patient": "DURAND Alice", "diagnosis": {"code": "I50.0"}},
        )
    assert decision == "GHM 05M09"
    request = model.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["body"]["model"] == "coder-1"
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    question = request["body"]["messages"][1]["content"]
    assert "DURAND Alice" in question and '{"code": "I50.0"}' in question and '"NA"' in question
    assert KEY not in caplog.text


def test_not_applicable_is_an_answer() -> None:
    with fake_model() as model:
        model.answer({"decision": "NA", "reason": "no diagnosis given"})
        assert runner_on(model.url).run("t2a_decision", {"prompt": "GHM?", "choices": ["A"]}, {}) == "NA"


def test_a_decision_outside_the_choices_is_refused_naming_it() -> None:
    with fake_model() as model:
        model.answer({"decision": "GHM 99Z99"})
        with pytest.raises(InvalidInput) as exc:
            runner_on(model.url).run("t2a_decision", {"prompt": "GHM?", "choices": ["GHM 05M09"]}, {})
    assert "GHM 99Z99" in exc.value.message


def test_a_decision_that_breaks_the_step_schema_is_refused() -> None:
    schema = {"type": "object", "required": ["ghm", "severity"], "properties": {"severity": {"type": "integer"}}}
    with fake_model() as model:
        model.answer({"decision": {"ghm": "05M09", "severity": "high"}})
        with pytest.raises(InvalidInput) as exc:
            runner_on(model.url).run("t2a_decision", {"prompt": "GHM?", "json_schema": schema}, {})
    assert "JSON Schema at severity" in exc.value.message


@pytest.mark.parametrize(
    ("status", "content", "words"),
    [(503, "busy", "answered HTTP 503"), (200, "I think it is 05M09.", "holds no JSON"), (200, "{oops", "not valid")],
)
def test_a_model_that_does_not_answer_usably_is_unavailable_in_plain_words(status, content, words) -> None:
    with fake_model() as model:
        model.answer(content, status)
        with pytest.raises(Unavailable) as exc:
            runner_on(model.url).run("t2a_decision", {"prompt": "GHM?"}, {})
    assert words in exc.value.message and KEY not in exc.value.message


def test_an_endpoint_nobody_listens_on_is_unavailable() -> None:
    sock = loopback_socket()  # bound, never listening: the connection is refused
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    try:
        with pytest.raises(Unavailable) as exc:
            runner_on(url).run("t2a_decision", {"prompt": "GHM?"}, {})
    finally:
        sock.close()
    assert "did not answer" in exc.value.message


def test_a_step_without_a_question_is_refused_before_any_call() -> None:
    with fake_model() as model, pytest.raises(InvalidInput) as exc:
        runner_on(model.url).run("t2a_decision", {}, {})
    assert exc.value.details["field"] == "params.prompt" and model.requests == []


def test_the_locator_sends_a_scaled_screenshot_and_maps_the_point_back() -> None:
    image = np.full((1440, 2560, 3), 240, np.uint8)
    with fake_model() as model:
        model.answer({"found": True, "x": 300, "y": 40, "confidence": 0.8})
        found = ModelTargetLocator(ChatEndpoint(model.url, "grounder", None)).locate(
            image, {"label": "Imagerie", "window_title": "Easily"}
        )
    assert found == (600, 80, 0.8, "vlm_model")  # 1280 px wide image: half the screen
    content = model.requests[0]["body"]["messages"][1]["content"]
    assert "Imagerie" in content[0]["text"] and "1280x720" in content[0]["text"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "Authorization" not in model.requests[0]["headers"]


@pytest.mark.parametrize("answer", [{"found": False}, {"found": True, "x": 5000, "y": 10}])
def test_a_target_the_model_does_not_see_is_not_located(answer) -> None:
    with fake_model() as model:
        model.answer(answer)
        found = ModelTargetLocator(ChatEndpoint(model.url, "grounder", None)).locate(
            np.zeros((100, 200, 3), np.uint8), {"label": "OK"}
        )
    assert found is None


def test_settings_build_the_models_and_a_url_without_a_model_is_a_start_up_error(tmp_path) -> None:
    none = Settings(data_dir=tmp_path)
    assert build_action_runner(none) is None and build_target_locator(none) is None
    configured = Settings(
        data_dir=tmp_path, llm_url="http://127.0.0.1:9/v1", llm_model="m", vlm_url="http://x", vlm_model="v"
    )
    assert isinstance(build_action_runner(configured), ModelActionRunner)
    assert isinstance(build_target_locator(configured), ModelTargetLocator)
    with pytest.raises(ConfigurationError, match="RPA_LLM_MODEL"):
        build_action_runner(Settings(data_dir=tmp_path, llm_url="http://127.0.0.1:9/v1"))
    assert issubclass(ConfigurationError, RpaError)


def test_the_server_wires_the_configured_models_into_the_replay(tmp_path) -> None:
    from rpa_mcp.bootstrap import build_services
    from rpa_mcp.replay.unconfigured import NoServerActionRunner, NoVlmLocator
    from rpa_mcp.testing import FakeOcr

    bare = build_services(Settings(data_dir=tmp_path / "a", jwt_secret="s" * 40), ocr=FakeOcr())
    assert isinstance(bare.server_actions, NoServerActionRunner) and isinstance(bare.vlm, NoVlmLocator)
    models = Settings(
        data_dir=tmp_path / "b", jwt_secret="s" * 40, llm_url="http://127.0.0.1:9/v1", llm_model="coder",
        vlm_url="http://127.0.0.1:9/v1", vlm_model="grounder", llm_api_key=KEY,
    )  # fmt: skip
    services = build_services(models, ocr=FakeOcr())
    assert isinstance(services.server_actions, ModelActionRunner) and isinstance(services.vlm, ModelTargetLocator)
    assert KEY not in repr(models)
