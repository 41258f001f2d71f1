"""Shadow learning: events in, steps with intents out, corrections, workflow IR (docs/concepts/shadow.md)."""

from rpa_mcp.shadow.events import TraceEvent, UiElement, parse_events
from rpa_mcp.shadow.feedback import FeedbackRejected, apply_feedback
from rpa_mcp.shadow.ir import build_ir
from rpa_mcp.shadow.service import ShadowService

__all__ = ["FeedbackRejected", "ShadowService", "TraceEvent", "UiElement", "apply_feedback", "build_ir", "parse_events"]
