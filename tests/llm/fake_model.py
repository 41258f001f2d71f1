"""A local OpenAI-compatible endpoint for the tests: scripted answers, every request recorded."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.testing import loopback_socket


@dataclass
class FakeModel:
    """Answers `POST /v1/chat/completions` with the next scripted reply (status, content)."""

    replies: list[tuple[int, str]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""

    def answer(self, content: Any, status: int = 200) -> None:
        self.replies.append((status, content if isinstance(content, str) else json.dumps(content)))


@contextmanager
def fake_model() -> Iterator[FakeModel]:
    model = FakeModel()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            model.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            status, content = model.replies.pop(0) if model.replies else (500, "no reply scripted")
            payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
    server.socket.close()
    server.socket = loopback_socket()
    server.server_address = server.socket.getsockname()
    server.server_activate()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
