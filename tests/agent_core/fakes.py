"""In-memory fakes for the agent core: a desktop behind the port and a replay server behind `Http`."""

from __future__ import annotations

import json
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from rpa_agent.core.agent import Agent
from rpa_agent.core.http import Http, Response
from rpa_agent.core.journal import Journal
from rpa_agent.port import Box, Button, Element, Frame, InputListener, SystemDialog, Window

SIZE = (64, 48)


def png_of(frame: Frame) -> bytes:
    """A real PNG of a BGRA frame (standard library: the agent's screenshots must be PNG or JPEG)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    stride = frame.width * 4
    rows = b"".join(b"\0" + frame.pixels[y * stride : (y + 1) * stride] for y in range(frame.height))
    header = struct.pack(">IIBBBBB", frame.width, frame.height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class FakeScreen:
    """The screen shows a number: each input the desktop receives draws the next one."""

    def __init__(self) -> None:
        self.shown = 0

    def size(self) -> tuple[int, int]:
        return SIZE

    def grab(self) -> Frame:
        return Frame(SIZE[0], SIZE[1], bytes([self.shown % 256]) * (SIZE[0] * SIZE[1] * 4))

    def png(self, frame: Frame) -> bytes:
        return png_of(frame)

    def changed(self, before: Frame, after: Frame, region: Box | None = None) -> float:
        return 0.0 if before == after else 1.0


class FakeInput:
    def __init__(self, screen: FakeScreen) -> None:
        self.screen = screen
        self.sent: list[tuple[Any, ...]] = []

    def _did(self, *what: Any) -> None:
        self.sent.append(what)
        self.screen.shown += 1

    def move(self, x: int, y: int) -> None:
        self._did("move", x, y)

    def click(self, x: int, y: int, *, button: Button = "left", count: int = 1) -> None:
        self._did("click", x, y, button, count)

    def scroll(self, x: int, y: int, *, direction: Literal["up", "down"] = "down", amount: int = 3) -> None:
        self._did("scroll", x, y, direction, amount)

    def combo(self, keys: str) -> None:
        self._did("combo", keys)

    def type_text(self, text: str) -> None:
        self._did("type", text)


class Clock:
    """A fake clock: `sleep` moves it on at once (the agent's clock and sleep, injected)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class FakeWindows:
    def __init__(self) -> None:
        self.open = [Window(1, "Dossier patient", 10, "chromium"), Window(2, "Imagerie", 11, "chromium")]
        self.front = 1
        self.prompt: SystemDialog | None = None

    def foreground(self) -> Window | None:
        return next((w for w in self.open if w.handle == self.front), None)

    def windows(self) -> list[Window]:
        return list(self.open)

    def activate(self, handle: int) -> bool:
        self.front = handle
        return True

    def element_at(self, x: int, y: int) -> Element | None:
        return None

    def focused_element(self) -> Element | None:
        return None

    def system_dialog(self) -> SystemDialog | None:
        return self.prompt


class FakeWatch:
    def __init__(self) -> None:
        self.foreign_count = 0
        self.listeners: list[InputListener] = []

    def expect(self, kinds: list[str]) -> None:
        pass

    def add_listener(self, listener: InputListener) -> None:
        self.listeners.append(listener)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class FakeDesktop:
    name = "fake"

    def __init__(self) -> None:
        self.screen = FakeScreen()
        self.input = FakeInput(self.screen)
        self.windows = FakeWindows()
        self.watch = FakeWatch()

    def close(self) -> None:
        pass


Handler = Callable[[str, str, Any], tuple[int, Any]]


class FakeHttp(Http):
    """`Http` answered in memory by `handler(method, path, body) -> (status, json body)`."""

    def __init__(self, handler: Handler) -> None:
        super().__init__("http://server.test")
        self.handler = handler

    def get(self, path: str, *, params: dict[str, Any] | None = None, timeout: float | None = None) -> Response:
        return self._answer("GET", path, params)

    def post(self, path: str, body: Any, *, timeout: float | None = None) -> Response:
        return self._answer("POST", path, json.loads(json.dumps(body)))

    def _answer(self, method: str, path: str, body: Any) -> Response:
        status, data = self.handler(method, path, body)
        return Response(status, b"" if data is None else json.dumps(data).encode())


@dataclass
class FakeServer:
    """The replay endpoints: actions handed out in order, every message the agent sent kept."""

    protocol: int = 2
    queue: list[dict[str, Any]] = field(default_factory=list)
    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    resolve: dict[str, Any] = field(default_factory=lambda: {"resolved": False, "method": "not_found"})
    replay_state: str = "running"
    proceed: bool = True
    knows_windows: bool = True  # False: a server of the previous release, whose resolve_target has no `windows`
    on_message: Callable[[str], None] = lambda kind: None  # told of each message (receipt, start, ...) as it comes

    def action(self, action_id: str = "a1", attempt_id: str = "t1", **fields: Any) -> dict[str, Any]:
        now = time.time()
        action = {
            "replay_id": "r1",
            "action_id": action_id,
            "attempt_id": attempt_id,
            "not_after": now + 60,
            "server_now": now,
            "action_type": "click",
            "target": {"x": 10, "y": 20},
            "protocol_version": self.protocol,
            "step_index": 1,
            "steps_total": 1,
        } | fields
        self.queue.append(action)
        return action

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.sent]

    def __call__(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if method == "GET":
            return (200, self.queue.pop(0)) if self.queue else (204, None)
        kind = path.rsplit("/", 1)[-1]
        self.sent.append((kind, body))
        self.on_message(kind)
        if kind == "resolve_target":
            if "windows" in body and not self.knows_windows:  # as the server's validation names an unknown field
                problem = {"field": "windows", "problem": "Extra inputs are not permitted"}
                return 422, {"code": "invalid-input", "details": {"field": "windows", "errors": [problem]}}
            return 200, self.resolve
        if kind in ("receipt", "start", "heartbeat") and self.protocol < 2:
            return 404, {"title": "Not Found"}
        if kind == "result":
            self.results.append(body)
            return 200, {"status": "accepted", "replay_state": self.replay_state}
        return 200, {"status": "accepted", "proceed": self.proceed, "replay_state": self.replay_state}


def make_agent(server: FakeServer, desktop: FakeDesktop, journal: Journal, lines: list[str] | None = None) -> Agent:
    return Agent(
        desktop=desktop,
        http=FakeHttp(server),
        machine_id="PC-1",
        journal=journal,
        say=(lines if lines is not None else []).append,
        poll_wait_s=0.0,
        settle_ms=0,
        sleep=lambda _s: None,
    )


def handle_next(agent: Agent) -> None:
    """One poll; the action it brought, handled."""
    action = agent.poll(wait=0.0)
    if action is not None:
        agent.handle(action)
