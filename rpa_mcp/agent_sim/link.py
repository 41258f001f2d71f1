"""The reference agent's HTTP link to the server: the replay and trace paths, POSTs whose answer is
a `ReportAck` (None when there was no usable answer: the caller sends again later), and the
refusals of the agent's token turned into the product's errors."""

from __future__ import annotations

import logging
from typing import Any

import httpx2

from rpa_mcp.errors import Forbidden, Unauthenticated
from rpa_mcp.replay.wire import ReportAck

logger = logging.getLogger(__name__)

NEXT_PATH = "/api/v1/replay/next"
ACK_PATHS = {"receipt": "/api/v1/replay/receipt", "start": "/api/v1/replay/start"}
HEARTBEAT_PATH = "/api/v1/replay/heartbeat"
RESULT_PATH = "/api/v1/replay/result"
EVENT_PATH = "/api/v1/traces/stream/event"
_ACK_FIELDS = set(ReportAck.model_fields)


class ServerLink:
    def __init__(self, client: httpx2.AsyncClient, headers: dict[str, str]) -> None:
        self.client = client
        self.headers = headers

    async def post(self, path: str, body: dict[str, Any]) -> ReportAck | None:
        """POST; the server's ReportAck, or None when there was no usable answer (retry later)."""
        try:
            response = await self.client.post(path, json=body, headers=self.headers)
        except httpx2.TransportError as exc:
            logger.warning(
                "could not send %s (%s); it is sent again later", path, exc, extra={"event": "agent_post_failed"}
            )
            return None
        raise_for_auth(response)
        if response.status_code in (408, 429) or response.status_code >= 500:
            return None
        if response.status_code >= 400:  # our message is wrong: retrying cannot help
            logger.error(
                "the server refused %s (HTTP %d): %s",
                path,
                response.status_code,
                response.text[:200],
                extra={"event": "agent_post_rejected"},
            )
            return ReportAck(status="unknown", reason=f"HTTP {response.status_code}: {response.text[:200]}")
        try:
            data = response.json()
        except ValueError:
            data = {}
        if not isinstance(data, dict) or data.get("status") not in ("accepted", "late", "duplicate", "unknown"):
            return ReportAck(status="accepted")
        return ReportAck.model_validate({k: v for k, v in data.items() if k in _ACK_FIELDS})


def raise_for_auth(response: httpx2.Response) -> None:
    if response.status_code == 401:
        raise Unauthenticated("the server refused the agent's token (401)")
    if response.status_code == 403:
        raise Forbidden("the agent's token may not use the replay endpoints (403)")
