"""`rpa-mcp agent-check`: drive any desktop agent through the replay wire contract, clause by clause.

The check serves the agent REST wire (docs/replay-wire-contract.md) itself, on a scripted replay of
harmless `wait` actions, and judges what the agent sends: `Conformance` is the scripted server (an
ASGI app), `judge()` turns its exchanges into PASSED/FAILED clauses with their evidence.
"""

from rpa_mcp.agent_check.clauses import CLAUSES, Clause, judge
from rpa_mcp.agent_check.script import Delivery, conformance_script
from rpa_mcp.agent_check.server import Conformance, Exchange

__all__ = ["CLAUSES", "Clause", "Conformance", "Delivery", "Exchange", "conformance_script", "judge"]
