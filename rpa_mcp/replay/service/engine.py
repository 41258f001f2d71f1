"""`ReplayService`: the replay engine assembled from its parts (one module per concept)."""

from __future__ import annotations

from rpa_mcp.replay.service.acks import Acks
from rpa_mcp.replay.service.dispatch import Dispatch
from rpa_mcp.replay.service.pauses import Pauses
from rpa_mcp.replay.service.planning import Planning
from rpa_mcp.replay.service.preflight import Preflight
from rpa_mcp.replay.service.reports import Reports
from rpa_mcp.replay.service.server_actions import ServerActions
from rpa_mcp.replay.service.status import Status
from rpa_mcp.replay.service.watchdog import Watchdog


class ReplayService(Planning, Preflight, Dispatch, Acks, Reports, Pauses, ServerActions, Watchdog, Status):
    """Queue + state machine per replay, exactly-once transport, supervision (see the package docstring)."""
