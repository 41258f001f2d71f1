"""DNS-rebinding protection on every route: 421 for a Host, 403 for an Origin this server is not.

A loopback name (`127.0.0.1`, `localhost`, `[::1]`) is accepted only with the port this server
answers on: another local port is another origin (a page served by some other program on
`http://127.0.0.1:3000` must not drive this server), and a Host without a port means the
scheme's default port. Any other name only as configured: the public URL (RPA_PUBLIC_URL) and
RPA_ALLOWED_HOSTS / RPA_ALLOWED_ORIGINS, compared exactly (an entry ending in `:*` accepts any
port of that name, when an operator writes it so).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from rpa_mcp.entrypoints.http_security import problem, send_json

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def split_authority(authority: str, scheme: str) -> tuple[str, int | None]:
    """`[::1]:8765` -> (`[::1]`, 8765); no port -> the scheme's default; a malformed port -> None."""
    value = authority.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value.partition("]")
        name += bracket
        if not rest:
            return name, DEFAULT_PORTS.get(scheme)
        port = rest[1:] if rest.startswith(":") else ""
    elif value.count(":") == 1:
        name, _, port = value.partition(":")
    elif ":" in value:  # an IPv6 address must be bracketed in a Host
        return value, None
    else:
        return value, DEFAULT_PORTS.get(scheme)
    return name, int(port) if port.isdigit() and len(port) <= 5 else None


def matches(value: str, patterns: Iterable[str]) -> bool:
    value = value.strip().lower()
    for pattern in patterns:
        pattern = pattern.strip().lower().rstrip("/")
        if pattern == value:
            return True
        if pattern.endswith(":*") and value.rsplit(":", 1)[0] == pattern[:-2] and ":" in value.removeprefix("["):
            return True
    return False


class HostOriginGuard:
    """The verdicts are remembered per (value, port) (at most `MEMORY` of each, the oldest forgotten
    first): clients send the same few Host and Origin values with every request."""

    MEMORY = 256

    def __init__(self, app: ASGIApp, *, hosts: list[str], origins: list[str], default_port: int) -> None:
        self.app, self.hosts, self.origins, self.default_port = app, hosts, origins, default_port
        self._hosts_seen: dict[tuple[str, str, int], bool] = {}
        self._origins_seen: dict[tuple[str, int], bool] = {}

    def _host_verdict(self, host: str, scheme: str, port: int) -> bool:
        key = (host, scheme, port)
        verdict = self._hosts_seen.get(key)
        if verdict is None:
            verdict = self.host_ok(host, scheme, port)
            _remember(self._hosts_seen, key, verdict, self.MEMORY)
        return verdict

    def _origin_verdict(self, origin: str, port: int) -> bool:
        key = (origin, port)
        verdict = self._origins_seen.get(key)
        if verdict is None:
            verdict = self.origin_ok(origin, port)
            _remember(self._origins_seen, key, verdict, self.MEMORY)
        return verdict

    def _port(self, scope: Scope) -> int:
        server = scope.get("server")
        port = server[1] if server and len(server) > 1 else None
        return int(port) if isinstance(port, int) and port > 0 else self.default_port

    def host_ok(self, host: str, scheme: str, port: int) -> bool:
        if matches(host, self.hosts):
            return True
        name, host_port = split_authority(host, scheme)
        return name in LOOPBACK_NAMES and host_port == port

    def origin_ok(self, origin: str, port: int) -> bool:
        if matches(origin, self.origins):
            return True
        parts = urlsplit(origin.strip())
        if parts.scheme not in DEFAULT_PORTS or parts.path not in ("", "/"):
            return False
        name, origin_port = split_authority(parts.netloc, parts.scheme)
        return name in LOOPBACK_NAMES and origin_port == port

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            port, scheme = self._port(scope), scope.get("scheme", "http")
            host = headers.get(b"host", b"").decode("latin-1")
            if not self._host_verdict(host, scheme, port):
                detail = (
                    f"Host {host[:100]!r} is not this server: set RPA_PUBLIC_URL to the URL clients use, "
                    "or add the name to RPA_ALLOWED_HOSTS (comma-separated)"
                )
                return await send_json(send, 421, problem(421, "misdirected-request", detail))
            origin = headers.get(b"origin")
            if origin is not None and not self._origin_verdict(origin.decode("latin-1"), port):
                detail = (
                    f"Origin {origin.decode('latin-1')[:100]!r} is not allowed: set RPA_PUBLIC_URL to the URL "
                    "browsers use, or add the origin to RPA_ALLOWED_ORIGINS (comma-separated)"
                )
                return await send_json(send, 403, problem(403, "forbidden-origin", detail))
        await self.app(scope, receive, send)


def _remember(seen: dict[Any, bool], key: Any, verdict: bool, limit: int) -> None:
    seen[key] = verdict
    if len(seen) > limit:
        del seen[next(iter(seen))]  # dicts keep insertion order: the oldest goes
