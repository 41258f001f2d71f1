"""Ports of the confirmation domain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from rpa_mcp.identity import Identity


class TokenCodec(Protocol):
    def encode(self, claims: dict[str, Any]) -> str:
        """Sign claims (the codec adds iss, aud, typ)."""
        ...

    def decode(self, token: str) -> dict[str, Any]:
        """Verify signature, pinned algorithm, typ, iss, aud, exp/nbf; raise ConfirmationError subclasses."""
        ...


@dataclass
class ProposalRecord:
    jti: str
    operation: str
    risk: str
    subject: str
    args: dict[str, Any]
    args_digest: str
    binding_digest: str
    summary: str
    details: dict[str, Any]
    diff: str | None
    approval_mode: str  # token | human
    approval_status: str  # not_required | pending | approved | rejected
    approver: str | None  # the approver's identity, written subject@issuer
    decided_at: float | None
    created_at: float
    expires_at: float
    consumed_at: float | None
    issuer: str = ""  # who vouches for the proposer's subject: (issuer, subject) is the proposer
    via: str = ""  # the surface it was proposed on: mcp | rest | functions | web (the console, by a person)

    @property
    def proposer(self) -> Identity:
        return Identity(self.issuer, self.subject)


class ProposalRepository(Protocol):
    def insert(self, record: ProposalRecord) -> None: ...

    def get(self, jti: str) -> ProposalRecord | None: ...

    def decide(self, jti: str, *, status: str, approver: str, at: float) -> bool:
        """Pending -> approved/rejected; False when it was not pending (conditional write). A rejected
        proposal's secret values are scrubbed with the decision."""
        ...

    def consume(self, jti: str, *, at: float) -> bool:
        """Mark used and scrub secret values; True for exactly one caller (atomic)."""
        ...

    def scrub_expired(self, *, after: float, before: float) -> int:
        """Scrub secret values of the proposals that expired unused in [after, before); how many changed."""
        ...

    def pending(self, *, now: float) -> list[ProposalRecord]: ...


class AuditPort(Protocol):
    def record(
        self,
        *,
        actor: str,
        operation: str,
        args: Any,
        outcome: str,
        code: str | None = None,
        duration_ms: float = 0.0,
        via: str = "",
        wait: bool = True,
    ) -> None: ...
