"""A small JSON-over-HTTP client on the standard library (`urllib`): no native wheel to load.

`Http.get` / `Http.post` answer a `Response` for every HTTP status (4xx and 5xx included) and
raise `Unreachable` only when no answer came (refused connection, timeout, reset).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any


class Unreachable(OSError):
    """No HTTP answer: the server is down, unreachable or too slow."""


@dataclass(frozen=True)
class Response:
    status_code: int
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        """The body as JSON; ValueError when it is not."""
        return json.loads(self.body)


class Http:
    def __init__(self, base_url: str, *, headers: dict[str, str] | None = None, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.refused_fields: set[str] = set()  # optional request fields this server refused by name (older)

    def get(self, path: str, *, params: dict[str, Any] | None = None, timeout: float | None = None) -> Response:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        return self._send(urllib.request.Request(f"{self.base_url}{path}{query}", method="GET"), timeout)

    def post(self, path: str, body: Any, *, timeout: float | None = None) -> Response:
        data = json.dumps(body, separators=(",", ":")).encode("utf-8")
        request = urllib.request.Request(f"{self.base_url}{path}", data=data, method="POST")
        request.add_header("Content-Type", "application/json")
        return self._send(request, timeout)

    def close(self) -> None:
        """Nothing held between requests (one connection per request)."""

    def _send(self, request: urllib.request.Request, timeout: float | None) -> Response:
        for name, value in self.headers.items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as answer:
                return Response(int(answer.status), answer.read())
        except urllib.error.HTTPError as exc:
            with exc:
                return Response(int(exc.code), exc.read())
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise Unreachable(f"{request.full_url.split('?')[0]}: {reason}") from None
