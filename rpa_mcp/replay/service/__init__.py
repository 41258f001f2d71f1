"""The replay engine: queue + state machine per replay, exactly-once transport, supervision.

Semantics (docs/replay-wire-contract.md): at-least-once delivery and reporting, at-most-once execution of
non-idempotent GUI actions, and a person for every unknown outcome. Every transition is one
compare-and-set on (state, attempt_id) inside `store.atomic()`; `attempt_id` is a fencing
token; one action is in flight per replay (and per machine); deadlines are persisted as
epoch seconds of the server's `ServerTime`.

Modules, one concept each:

    core            shared state, wake-ups of the long poll, fencing, the pause write
    planning        workflow steps -> action rows; start
    preflight       refuse before the first input: workstation connected, first step's screen shown
    dispatch        the long poll and the claim of an action (one in flight per machine)
    acks            receipt / start acks and heartbeats
    reports         an agent's result -> one conditional write
    supervision     what a result means: transport outcome, validator verdict, dialog policy
    later_look      one more look at a field whose typed text was still being drawn, before judging it
    evidence        crops and checker texts for people and models
    pauses          pause, cancel, resume, answer a pause
    server_actions  extract_text / t2a_decision at the head of the queue, completion
    watchdog        expired leases -> resend, OUTCOME_UNKNOWN or ABANDONED; the scan loop
    status          get_replay_status's story (its outcome word: replay.outcomes)
"""

from rpa_mcp.replay.service.engine import ReplayService
from rpa_mcp.replay.service.watchdog import run_watchdog

__all__ = ["ReplayService", "run_watchdog"]
