"""Proposals, single-use tokens and human approvals.

The token proves the request was not altered or replayed; the approval record proves a
person (not the LLM client's identity) agreed, when the risk level asks for it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from rpa_mcp.clock import Clock
from rpa_mcp.confirmation.digest import digest
from rpa_mcp.confirmation.ports import AuditPort, ProposalRecord, ProposalRepository, TokenCodec
from rpa_mcp.errors import (
    ApprovalPending,
    ApprovalRejected,
    ArgumentsChanged,
    ConfirmationError,
    Conflict,
    Forbidden,
    NotFound,
    TokenAlreadyUsed,
    TokenExpired,
    TokenOtherCaller,
    TokenOtherOperation,
)

APPROVER_ROLES = frozenset({"approver", "operator"})
APPROVALS_URI = "rpa://approvals"  # what changes when a request starts or stops waiting for a person
# Operations a person may propose and approve in one gesture from the console: answering a paused
# replay on its own timeline (retry, skip, click a dialog's button, abort, resume). The person's
# answer is the approval; every other proposal needs someone other than its proposer.
IN_PERSON_OPERATIONS = frozenset({"answer_pause", "resume_replay"})


class Actor(Protocol):
    subject: str
    roles: frozenset[str]


@dataclass(frozen=True)
class Proposal:
    jti: str
    token: str
    expires_at: float
    approval_mode: str
    approval_status: str
    approval_url: str | None


@dataclass(frozen=True)
class ApprovalView:
    jti: str
    operation: str
    risk: str
    proposer: str
    summary: str
    details: dict[str, Any]
    diff: str | None
    status: str
    approver: str | None
    created_at: float
    expires_at: float
    consumed: bool

    @classmethod
    def of(cls, r: ProposalRecord) -> ApprovalView:
        return cls(
            r.jti,
            r.operation,
            r.risk,
            r.subject,
            r.summary,
            r.details,
            r.diff,
            r.approval_status,
            r.approver,
            r.created_at,
            r.expires_at,
            r.consumed_at is not None,
        )


class ConfirmationService:
    def __init__(
        self,
        *,
        repo: ProposalRepository,
        codec: TokenCodec,
        clock: Clock,
        ttl_s: int,
        approval_modes: dict[str, str],
        approval_base_url: str,
        audit: AuditPort,
        changed: Callable[[str], None] = lambda uri: None,
    ) -> None:
        self.repo, self.codec, self.clock, self.ttl_s = repo, codec, clock, ttl_s
        self._swept_until = 0.0  # expired proposals before this were scrubbed (scrub_expired)
        self.approval_modes, self.approval_base_url, self.audit = approval_modes, approval_base_url.rstrip("/"), audit
        self.changed = changed  # told APPROVALS_URI when the list of requests waiting for a person changes

    # --- propose ------------------------------------------------------------------
    def propose(
        self,
        *,
        operation: str,
        risk: str,
        proposer: str,
        args: dict[str, Any],
        summary: str,
        details: dict[str, Any],
        diff: str | None,
        binding: dict[str, Any],
    ) -> Proposal:
        now = self.clock.now()
        jti = secrets.token_urlsafe(18)
        mode = self.approval_modes.get(risk, "human")
        record = ProposalRecord(
            jti=jti,
            operation=operation,
            risk=risk,
            subject=proposer,
            args=args,
            args_digest=digest(args),
            binding_digest=digest(binding),
            summary=summary,
            details=details,
            diff=diff,
            approval_mode=mode,
            approval_status="pending" if mode == "human" else "not_required",
            approver=None,
            decided_at=None,
            created_at=now,
            expires_at=now + self.ttl_s,
            consumed_at=None,
        )
        self.repo.insert(record)
        token = self.codec.encode(
            {
                "sub": proposer,
                "iat": int(now),
                "nbf": int(now),
                "exp": int(record.expires_at),
                "jti": jti,
                "op": operation,
                "args_sha256": record.args_digest,
            }
        )
        self.audit.record(actor=proposer, operation=f"propose:{operation}", args={"jti": jti}, outcome="proposed")
        url = f"{self.approval_base_url}/console/approvals/{jti}" if mode == "human" else None
        if mode == "human":
            self.changed(APPROVALS_URI)
        return Proposal(jti, token, record.expires_at, mode, record.approval_status, url)

    # --- apply --------------------------------------------------------------------
    def check(self, token: str, *, operation: str, caller: str) -> ProposalRecord:
        """Everything apply verifies before consuming; returns the stored proposal."""
        claims = self.codec.decode(token)
        if claims.get("sub") != caller:
            raise TokenOtherCaller("this token was issued to another caller; propose again yourself")
        if claims.get("op") != operation:
            raise TokenOtherOperation(
                f"this token confirms {claims.get('op')!r}, not {operation!r}", token_operation=claims.get("op")
            )
        record = self.repo.get(str(claims.get("jti")))
        if record is None:
            raise ConfirmationError("no proposal is stored for this token; propose again")
        if record.operation != operation or record.subject != caller:
            raise ConfirmationError("the stored proposal does not match this token")
        if record.args_digest != claims.get("args_sha256"):
            raise ArgumentsChanged("the arguments differ from the ones proposed; propose again")
        # (a used, expired or rejected proposal's secret values are scrubbed: say why it is over first)
        if record.consumed_at is not None:
            raise TokenAlreadyUsed("this token was already used; each confirmation works once")
        if record.expires_at < self.clock.now() - 5:
            raise TokenExpired("the confirmation expired; propose again")
        if record.approval_status == "pending":
            raise ApprovalPending(
                "waiting for a person to approve this request at the approval page; ask them, then apply again",
                approval_url=f"{self.approval_base_url}/console/approvals/{record.jti}",
            )
        if record.approval_status == "rejected":
            raise ApprovalRejected(f"a person rejected this request ({record.approver}); nothing was done")
        if digest(record.args) != record.args_digest:
            raise ArgumentsChanged("the arguments differ from the ones proposed; propose again")
        return record

    def check_binding(self, record: ProposalRecord, binding: dict[str, Any]) -> None:
        if digest(binding) != record.binding_digest:
            raise ArgumentsChanged(
                "what this proposal was bound to has changed since (e.g. a new competence version); propose again"
            )

    def consume(self, record: ProposalRecord, *, caller: str) -> None:
        if not self.repo.consume(record.jti, at=self.clock.now()):
            raise TokenAlreadyUsed("this token was already used; each confirmation works once")
        self.audit.record(
            actor=caller, operation=f"apply:{record.operation}", args={"jti": record.jti}, outcome="consumed"
        )
        if record.approval_mode == "human":
            self.changed(APPROVALS_URI)

    def scrub_expired(self) -> int:
        """Scrub the secret values of the proposals that expired unused since the last sweep (after the
        grace apply gives); how many were scrubbed. The first sweep of a process looks at every one."""
        before = self.clock.now() - 5
        scrubbed = self.repo.scrub_expired(after=self._swept_until, before=before)
        self._swept_until = before
        return scrubbed

    # --- human approval -------------------------------------------------------------
    def list_pending(self) -> list[ApprovalView]:
        return [ApprovalView.of(r) for r in self.repo.pending(now=self.clock.now())]

    def get_approval(self, jti: str) -> ApprovalView:
        record = self.repo.get(jti)
        if record is None:
            raise NotFound(f"no proposal {jti!r}", jti=jti)
        return ApprovalView.of(record)

    def approve_in_person(self, jti: str, person: Actor) -> ApprovalView:
        """A person answering a paused replay from the console: their own proposal, approved by that answer.

        Only for IN_PERSON_OPERATIONS, only by the proposer (a signed-in person with the approver or
        operator role), only while pending. Audited as an approval like any other.
        """
        record = self.repo.get(jti)
        if record is None:
            raise NotFound(f"no proposal {jti!r}", jti=jti)
        if record.operation not in IN_PERSON_OPERATIONS:
            raise Forbidden(f"{record.operation} needs the approval of another person")
        if record.subject != person.subject or not (person.roles & APPROVER_ROLES):
            raise Forbidden("only the person who answered, with the approver or operator role, approves in person")
        if record.approval_mode != "human":
            return ApprovalView.of(record)
        if record.expires_at < self.clock.now():
            raise TokenExpired("this proposal expired; it must be proposed again")
        if not self.repo.decide(jti, status="approved", approver=person.subject, at=self.clock.now()):
            raise Conflict(f"this proposal was already {self.get_approval(jti).status}")
        self.audit.record(
            actor=person.subject,
            operation=f"approve:{record.operation}",
            args={"jti": jti, "proposer": record.subject, "in_person": True},
            outcome="approved",
        )
        self.changed(APPROVALS_URI)
        return self.get_approval(jti)

    def decide(self, jti: str, approver: Actor, approve: bool) -> ApprovalView:
        record = self.repo.get(jti)
        if record is None:
            raise NotFound(f"no proposal {jti!r}", jti=jti)
        if not (approver.roles & APPROVER_ROLES):
            raise Forbidden("approving needs the approver or operator role")
        if approver.subject == record.subject:
            raise Forbidden("the identity that proposed a request cannot approve it; ask another person")
        if record.approval_mode != "human":
            raise Conflict("this proposal does not need a person's approval")
        if record.expires_at < self.clock.now():
            raise TokenExpired("this proposal expired; it must be proposed again")
        status = "approved" if approve else "rejected"
        if not self.repo.decide(jti, status=status, approver=approver.subject, at=self.clock.now()):
            raise Conflict(f"this proposal was already {self.get_approval(jti).status}")
        self.audit.record(
            actor=approver.subject,
            operation=f"{'approve' if approve else 'reject'}:{record.operation}",
            args={"jti": jti, "proposer": record.subject},
            outcome=status,
        )
        self.changed(APPROVALS_URI)
        return self.get_approval(jti)
