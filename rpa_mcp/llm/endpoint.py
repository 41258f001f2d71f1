"""One OpenAI-compatible chat endpoint, asked for JSON answers."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx2

from rpa_mcp.errors import Unavailable

logger = logging.getLogger(__name__)
MAX_ANSWER_CHARS = 20_000


class ChatEndpoint:
    """`POST <url>/chat/completions` with a model name and an optional bearer key.

    Every failure is an `Unavailable` whose message says what happened in plain words (the
    replay shows it to the person who decides); the key never appears in it nor in the log.
    """

    def __init__(
        self,
        url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout_s: float = 30.0,
        client: httpx2.Client | None = None,
    ) -> None:
        base = url.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = model
        self._key = api_key
        self._client = client or httpx2.Client(timeout=timeout_s)

    def ask_json(self, messages: list[dict[str, Any]], *, what: str) -> Any:
        """The model's answer parsed as JSON (the first {...} or [...] of its text)."""
        body = {"model": self.model, "temperature": 0, "messages": messages}
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        try:
            response = self._client.post(self.url, json=body, headers=headers)
        except httpx2.HTTPError as exc:
            raise Unavailable(f"{what}: the model at {self.url} did not answer ({type(exc).__name__})") from exc
        if response.status_code >= 400:
            raise Unavailable(f"{what}: the model at {self.url} answered HTTP {response.status_code}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise Unavailable(f"{what}: the model at {self.url} sent no chat completion") from exc
        if not isinstance(content, str):
            raise Unavailable(f"{what}: the model's answer is not text")
        return parse_json_answer(content[:MAX_ANSWER_CHARS], what=what)


def parse_json_answer(text: str, *, what: str) -> Any:
    """The JSON value in a model's text answer (models wrap it in prose or code fences)."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise Unavailable(f"{what}: the model's answer holds no JSON ({text[:80]!r})")
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    try:
        return json.loads(text[start : end + 1])
    except ValueError as exc:
        raise Unavailable(f"{what}: the model's answer is not valid JSON ({text[:80]!r})") from exc
