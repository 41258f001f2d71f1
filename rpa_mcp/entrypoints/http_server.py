"""The HTTP server: uvicorn's h11 protocol behind a connection guard of ours.

uvicorn alone keeps a connection that sends nothing open forever (its keep-alive timer starts
only after a first response) and has no deadline for a request's head or body, so slow or idle
clients can hold every file descriptor of the process. The guard adds, per connection:

- an idle deadline: nothing received this long after the connection opened or after the last
  response -> closed silently (`RPA_HTTP_IDLE_TIMEOUT_S`);
- a head deadline: the request line and headers complete within `RPA_HTTP_HEADER_TIMEOUT_S`
  of the connection being ready for them -> else 408 and closed;
- a body deadline: the whole body within `RPA_HTTP_BODY_TIMEOUT_S` of its head -> else 408
  (when the application has not answered yet) and closed;

and, per process, caps on open connections in total and per client address: one over a cap is
answered 503 with `Retry-After` at once and closed (after reading what the client still sends,
briefly, so that it sees the answer instead of a reset). At start, `ensure_open_files` makes the
process's open-file limit fit the caps (docs/decisions/http-server.md has the measurements).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import resource
import socket
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from rpa_mcp.errors import StartupRefused
from rpa_mcp.settings import Settings

logger = logging.getLogger(__name__)
RETRY_AFTER_S = 1
MAX_LINGERING = 256  # refused connections kept open briefly to read what their client still sends
LINGER_S = 1.0
RESERVED_FILES = 256  # the database, logs, models, worker threads' files, the listening sockets
MAX_HEADER_BYTES = 16 * 1024


@dataclass(frozen=True)
class HttpLimits:
    """The per-connection deadlines and per-process connection caps (settings `RPA_HTTP_*`)."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    idle_timeout_s: float = 5.0
    max_connections: int = 1000
    max_connections_per_address: int = 100

    @classmethod
    def from_settings(cls, settings: Settings) -> HttpLimits:
        return cls(
            header_timeout_s=settings.http_header_timeout_s,
            body_timeout_s=settings.http_body_timeout_s,
            idle_timeout_s=settings.http_idle_timeout_s,
            max_connections=settings.http_max_connections,
            max_connections_per_address=settings.http_max_connections_per_address,
        )

    @property
    def open_files_needed(self) -> int:
        return self.max_connections + MAX_LINGERING + RESERVED_FILES


class ConnectionGate:
    """Open connections in total and per client address; admits a new one or says which cap it is over."""

    def __init__(self, limits: HttpLimits) -> None:
        self.limits = limits
        self.total = 0
        self.by_address: Counter[str] = Counter()
        self.lingering = 0
        self.refused = 0
        self._last_report = 0.0

    def admit(self, address: str) -> str | None:
        """None when admitted (counted until `release`), else why not, in a sentence for the client."""
        if self.by_address[address] >= self.limits.max_connections_per_address:
            reason = f"too many open connections from this address (limit {self.limits.max_connections_per_address})"
        elif self.total >= self.limits.max_connections:
            reason = f"too many open connections to this server (limit {self.limits.max_connections})"
        else:
            self.total += 1
            self.by_address[address] += 1
            return None
        self.refused += 1
        now = time.monotonic()
        if now - self._last_report >= 10.0:  # one line per 10 s, not one per refused connection
            self._last_report = now
            logger.warning(
                "refusing connections over the caps (%d so far); latest: %s from %s", self.refused, reason, address
            )
        return reason

    def release(self, address: str) -> None:
        self.total -= 1
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]


def _answer(status: int, reason: bytes, code: str, detail: str, extra: bytes = b"") -> bytes:
    body = json.dumps(
        {
            "type": f"urn:rpa-mcp:error:{code}",
            "title": code,
            "status": status,
            "detail": detail,
            "code": code,
            "message": detail,
            "retryable": True,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status} ".encode() + reason + b"\r\ncontent-type: application/problem+json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n" + extra + b"\r\n"
    )
    return head + body


class _Refusal(asyncio.Protocol):
    """A connection over a cap: 503 + Retry-After at once, then what the client still sends is read and dropped."""

    def __init__(self, transport: asyncio.Transport, gate: ConnectionGate, reason: str) -> None:
        self.transport, self.gate = transport, gate
        transport.write(
            _answer(
                503,
                b"Service Unavailable",
                "unavailable",
                reason + "; retry later",
                f"retry-after: {RETRY_AFTER_S}\r\n".encode(),
            )
        )
        if gate.lingering >= MAX_LINGERING or not transport.can_write_eof():
            self._timer: asyncio.TimerHandle | None = None
            transport.close()
            return
        gate.lingering += 1
        transport.write_eof()  # the answer is complete; the client's request, if any, is read and dropped
        self._timer = asyncio.get_running_loop().call_later(LINGER_S, transport.close)

    def data_received(self, data: bytes) -> None:
        pass

    def eof_received(self) -> bool:
        self.transport.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self.gate.lingering -= 1


def _peer(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"


def guarded_h11(gate: ConnectionGate) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the gate's caps and the limits' idle, head and body deadlines."""
    limits = gate.limits

    class GuardedH11Protocol(H11Protocol):
        _address: str | None = None
        _deadline: asyncio.TimerHandle | None = None
        _phase: str = ""
        _ready_at: float = 0.0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn's
            address = _peer(transport)
            refused = gate.admit(address)
            if refused is not None:
                refusal = _Refusal(transport, gate, refused)
                transport.set_protocol(refusal)
                return
            self._address = address
            super().connection_made(transport)
            self._ready()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._address is None:
                return
            self._arm("", 0.0)
            gate.release(self._address)
            self._address = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._ready()

        def _ready(self) -> None:
            """Ready for a request: idle until its first byte, and its head due by `header_timeout_s`."""
            self._ready_at = self.loop.time()
            self._phase = ""
            self._watch()

        def _watch(self) -> None:
            if self._address is None or self.transport.is_closing():
                return
            state = self.conn.their_state
            if state is h11.IDLE and self.conn.our_state is h11.IDLE:
                if not self.conn.trailing_data[0]:
                    if self._phase != "idle":
                        self._arm("idle", self.loop.time() + limits.idle_timeout_s)
                elif self._phase != "head":
                    self._arm("head", self._ready_at + limits.header_timeout_s)
            elif state is h11.SEND_BODY:
                if self._phase != "body":
                    self._arm("body", self.loop.time() + limits.body_timeout_s)
            else:
                self._arm("", 0.0)

        def _arm(self, phase: str, when: float) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._phase = phase
            if phase:
                self._deadline = self.loop.call_at(when, self._expired)

        def _expired(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self._phase == "head":
                self.transport.write(_timeout("the request's headers", limits.header_timeout_s))
            elif self._phase == "body" and self.cycle is not None and not self.cycle.response_started:
                self.cycle.disconnected = True  # the application's receive() now says the client is gone
                self.cycle.message_event.set()
                self.transport.write(_timeout("the request's body", limits.body_timeout_s))
            self.transport.close()

    return GuardedH11Protocol


def _timeout(what: str, seconds: float) -> bytes:
    return _answer(408, b"Request Timeout", "request-timeout", f"{what} did not arrive within {seconds:g} s")


def ensure_open_files(limits: HttpLimits) -> int:
    """Raise the soft open-file limit to what the caps need, or refuse to start, naming the numbers.

    Returns the soft limit in force afterwards.
    """
    need = limits.open_files_needed
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return soft
    if hard != resource.RLIM_INFINITY and hard < need:
        raise StartupRefused(
            f"the server needs {need} open files (RPA_HTTP_MAX_CONNECTIONS={limits.max_connections} + "
            f"{MAX_LINGERING + RESERVED_FILES} for refusals, the database and logs); the limit is {soft} "
            f"(hard {hard}): raise it (ulimit -n, systemd LimitNOFILE=) or lower RPA_HTTP_MAX_CONNECTIONS",
            open_files_needed=need,
            soft_limit=soft,
            hard_limit=hard,
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    logger.info("open-file limit raised from %d to %d for %d connections", soft, need, limits.max_connections)
    return need


def server_config(app: Any, limits: HttpLimits, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration with the guarded protocol (its keep-alive timer is only a backstop of ours)."""
    return uvicorn.Config(
        app,
        http=guarded_h11(ConnectionGate(limits)),
        timeout_keep_alive=math.ceil(limits.idle_timeout_s) + 1,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        ws="none",  # no WebSocket route; an upgrade would leave the guard's count
        log_level="warning",
        **options,
    )


def serve(app: Any, sock: socket.socket, settings: Settings) -> None:
    """Serve `app` on the listening `sock` with the limits of `settings` (the open-file limit is checked first)."""
    limits = HttpLimits.from_settings(settings)
    ensure_open_files(limits)
    uvicorn.Server(server_config(app, limits)).run(sockets=[sock])
