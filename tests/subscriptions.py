"""Reading an MCP client's resource subscription in tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio


async def updates_until(subscription: AsyncIterator[Any], uri: str, *, timeout_s: float) -> list[str]:
    """The URIs the subscription told, up to and including `uri`; fails after `timeout_s`.

    The list ends on `uri` when it was heard, not when the stream ran dry: assert on its last item."""
    heard: list[str] = []
    with anyio.fail_after(timeout_s):
        async for event in subscription:
            heard.append(str(getattr(event, "uri", "")))
            if heard[-1] == uri:
                break
    return heard
