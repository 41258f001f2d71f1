"""The sweep that scrubs the secret values of proposals that expired unused (started by the app lifespan).

A proposal keeps its arguments so that `apply` runs exactly what was shown; once it can no
longer be applied (used, rejected or expired) its secret values have no use. Use and
rejection scrub them at once; expiry is a moment nothing happens at, so this sweep comes
by every SWEEP_INTERVAL_S.
"""

from __future__ import annotations

import logging

import anyio
import anyio.to_thread

from rpa_mcp.confirmation.service import ConfirmationService

logger = logging.getLogger(__name__)
SWEEP_INTERVAL_S = 60.0


async def run_scrub_sweep(
    service: ConfirmationService, stop: anyio.Event, *, interval_s: float = SWEEP_INTERVAL_S
) -> None:
    """Scrub expired proposals now, then every `interval_s` until `stop` is set."""
    while not stop.is_set():
        try:
            scrubbed = await anyio.to_thread.run_sync(service.scrub_expired)
            if scrubbed:
                logger.info("scrubbed the secret values of %d expired proposal(s)", scrubbed)
        except Exception:  # a database hiccup: the next sweep looks at the same window again
            logger.exception("the sweep of expired proposals failed")
        with anyio.move_on_after(interval_s):
            await stop.wait()
