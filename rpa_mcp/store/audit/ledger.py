"""The replay engine's run ledger, written as rows of the audit chain."""

from __future__ import annotations

from rpa_mcp.store.audit.log import AuditLog


class AuditRunLedger:
    """The replay engine's `RunLedger`: the end of a run is a row of the audit chain (operation
    `replay_ended`, with its outcome and the SHA-256 of its evidence bundle), so the bundle cannot
    be changed afterwards without the change showing against the chain."""

    def __init__(self, audit: AuditLog) -> None:
        self.audit = audit

    def replay_ended(
        self, replay_id: str, *, outcome: str, evidence_sha256: str, competence: str, machine_id: str | None
    ) -> None:
        self._record("replay_ended", replay_id, competence, machine_id, outcome, evidence_sha256=evidence_sha256)

    def replay_read_back(
        self,
        replay_id: str,
        *,
        outcome: str,
        readback: str,
        evidence_sha256: str,
        competence: str,
        machine_id: str | None,
    ) -> None:
        """A completed run's read-back: `verified` or still `completed`, with the bundle's new digest."""
        self._record(
            "replay_read_back",
            replay_id,
            competence,
            machine_id,
            outcome,
            readback=readback,
            evidence_sha256=evidence_sha256,
        )

    def _record(
        self, operation: str, replay_id: str, competence: str, machine_id: str | None, outcome: str, **more: str
    ) -> None:
        args = {"replay_id": replay_id, "competence": competence, "machine_id": machine_id, "outcome": outcome}
        self.audit.record(
            actor="replay-engine", operation=operation, args=args | more, outcome=outcome, via="replay", wait=False
        )
