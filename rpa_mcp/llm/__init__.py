"""Language and vision models behind an OpenAI-compatible endpoint, as the replay engine's ports.

- `ChatEndpoint`: one `/chat/completions` endpoint (URL, model, key), JSON answers only;
- `ModelActionRunner`: the `ServerActionRunner` that runs `t2a_decision` steps on RPA_LLM_URL;
- `ModelTargetLocator`: the `VlmLocator` that asks RPA_VLM_URL where a target is on a screenshot;
- `build_action_runner` / `build_target_locator`: from settings (None when nothing is configured:
  the engine then pauses such a step with what to set).

Screen text and model answers are data: a model's answer is parsed as JSON and checked, never
executed, and never trusted to unlock anything (dialogs and confirmations do not use it).
"""

from rpa_mcp.llm.actions import ModelActionRunner, build_action_runner
from rpa_mcp.llm.endpoint import ChatEndpoint
from rpa_mcp.llm.grounding import ModelTargetLocator, build_target_locator

__all__ = ["ChatEndpoint", "ModelActionRunner", "ModelTargetLocator", "build_action_runner", "build_target_locator"]
