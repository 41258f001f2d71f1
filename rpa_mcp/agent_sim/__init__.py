"""The reference desktop agent over a virtual desktop (tests, the demo and benchmarks).

- `VirtualDesktop`: screens (fixture screenshots) with hotspots, text fields and dialogs;
- `ReferenceAgent`: long-polls the replay endpoints, journals every attempt durably, never
  executes an attempt twice, reports with screenshots, injects faults from a `FaultPlan`;
- `DemoRecorder`: a person's demonstration turned into shadow events.
"""

from rpa_agent.core.journal import DedupCache, Journal, JournalEntry

from rpa_mcp.agent_sim.agent import AgentCrashed, ReferenceAgent, SkewedClock
from rpa_mcp.agent_sim.desktop import InputEvent, VirtualDesktop
from rpa_mcp.agent_sim.faults import FAULT_KINDS, Fault, FaultPlan
from rpa_mcp.agent_sim.fixtures import ImageResolver
from rpa_mcp.agent_sim.shadow import DemoRecorder
from rpa_mcp.agent_sim.spec import DesktopSpec, parse_desktop

__all__ = [
    "FAULT_KINDS",
    "AgentCrashed",
    "DedupCache",
    "DemoRecorder",
    "DesktopSpec",
    "Fault",
    "FaultPlan",
    "ImageResolver",
    "InputEvent",
    "Journal",
    "JournalEntry",
    "ReferenceAgent",
    "SkewedClock",
    "VirtualDesktop",
    "parse_desktop",
]
