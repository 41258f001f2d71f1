"""Proposals, single-use tokens and human approvals.

The token proves the request was not altered or replayed; the approval record proves a
person (not the LLM client's identity) agreed, when the risk level asks for it.

A person approves in the console only (`via == "web"`: a console session, opened with OIDC or
a console credential, never with an access token). Identities compare as (issuer, subject), and
identities tied together by `IdentityLinks` are one person: the person who proposed a request
cannot approve it under another of their identities.
"""

from __future__ import annotations

import logging
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
from rpa_mcp.identity import Identity, IdentityLinks

logger = logging.getLogger(__name__)
APPROVER_ROLES = frozenset({"approver", "operator"})
APPROVALS_URI = "rpa://approvals"  # what changes when a request starts or stops waiting for a person
CONSOLE = "web"  # the surface of a person signed in to the console
# Operations a person may propose and approve in one gesture from the console: answering a paused
# replay on its own timeline (retry, skip, click a dialog's button, abort, resume). The person's
# answer is the approval, for a proposal they made in the console a moment before; a proposal made
# over an API (by the LLM client, whoever holds its token) needs the approval of another person.
IN_PERSON_OPERATIONS = frozenset({"answer_pause", "resume_replay"})


class ApprovalAlerts(Protocol):
    """Told when a request starts waiting for a person's approval (approval_alerts.py: webhook, e-mail)."""

    def new_approval(self, view: ApprovalView, url: str) -> None: ...


class Actor(Protocol):
    @property
    def subject(self) -> str: ...
    @property
    def roles(self) -> frozenset[str]: ...
    @property
    def via(self) -> str: ...
    @property
    def identity(self) -> Identity: ...


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
    proposer: Identity
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
            r.proposer,
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
        links: IdentityLinks | None = None,
        alerts: ApprovalAlerts | None = None,
    ) -> None:
        self.repo, self.codec, self.clock, self.ttl_s = repo, codec, clock, ttl_s
        self._swept_until = 0.0  # expired proposals before this were scrubbed (scrub_expired)
        self.links = links if links is not None else IdentityLinks()  # RPA_IDENTITY_LINKS: identities of one person
        self.approval_modes, self.approval_base_url, self.audit = approval_modes, approval_base_url.rstrip("/"), audit
        self.changed = changed  # told APPROVALS_URI when the list of requests waiting for a person changes
        self.alerts = alerts  # told of each request that starts waiting for another person (webhook, e-mail)

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
        issuer: str = "",
        via: str = "",
    ) -> Proposal:
        """A proposal by `proposer` (a subject of `issuer`), made on surface `via`."""
        now = self.clock.now()
        jti = secrets.token_hex(18)  # hex: never shaped like a secret the output's redaction hides ("sk-…")
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
            issuer=issuer,
            via=via,
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
            self._alert(record, url)
        return Proposal(jti, token, record.expires_at, mode, record.approval_status, url)

    def _alert(self, record: ProposalRecord, url: str | None) -> None:
        """Tell the approvers' channels, unless the person answers in person (their answer approves)."""
        if self.alerts is None or url is None:
            return
        if record.operation in IN_PERSON_OPERATIONS and record.via == CONSOLE:
            return
        try:
            self.alerts.new_approval(ApprovalView.of(record), url)
        except Exception:  # an alert never costs the proposal
            logger.exception("could not hand over the alert of request %s", record.jti)

    # --- apply --------------------------------------------------------------------
    def check(self, token: str, *, operation: str, caller: str, issuer: str = "") -> ProposalRecord:
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
        if record.issuer != issuer:
            raise TokenOtherCaller("this token was issued to the same name from another issuer; propose again yourself")
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

        Only for IN_PERSON_OPERATIONS, only for a proposal made in the console, only by the identity
        that proposed it (a signed-in person with the approver or operator role), only while pending.
        Audited as an approval like any other.
        """
        record = self._record(jti)
        if record.operation not in IN_PERSON_OPERATIONS:
            raise Forbidden(f"{record.operation} needs the approval of another person")
        if person.via != CONSOLE:
            raise Forbidden("an answer is given in person in the console, signed in as a person")
        if record.via != CONSOLE:
            raise Forbidden(
                f"this request was proposed over {record.via or 'an API'}: another person approves it at its "
                "approval page; to answer yourself, use the buttons of the replay's page"
            )
        if record.proposer != person.identity or not (person.roles & APPROVER_ROLES):
            raise Forbidden("only the person who answered, with the approver or operator role, approves in person")
        if record.approval_mode != "human":
            return ApprovalView.of(record)
        return self._settle(record, person, approve=True, in_person=True)

    def decide(self, jti: str, approver: Actor, approve: bool) -> ApprovalView:
        record = self._record(jti)
        if approver.via != CONSOLE:
            raise Forbidden("a request is approved in the console, by a person signed in there")
        if not (approver.roles & APPROVER_ROLES):
            raise Forbidden("approving needs the approver or operator role")
        if self.links.same_person(record.proposer, approver.identity):
            raise Forbidden(
                "the person who proposed a request cannot approve it, under any of their identities; ask another person"
            )
        if record.approval_mode != "human":
            raise Conflict("this proposal does not need a person's approval")
        return self._settle(record, approver, approve=approve, in_person=False)

    def proposed_by(self, view: ApprovalView, person: Actor) -> bool:
        """Whether `person` is the one who proposed (under this identity or one linked to it)."""
        return self.links.same_person(view.proposer, person.identity)

    def _record(self, jti: str) -> ProposalRecord:
        record = self.repo.get(jti)
        if record is None:
            raise NotFound(f"no proposal {jti!r}", jti=jti)
        return record

    def _settle(self, record: ProposalRecord, person: Actor, *, approve: bool, in_person: bool) -> ApprovalView:
        """Pending -> approved/rejected by `person`, recorded as subject@issuer, audited."""
        if record.expires_at < self.clock.now():
            raise TokenExpired("this proposal expired; it must be proposed again")
        status = "approved" if approve else "rejected"
        who = str(person.identity)
        if not self.repo.decide(record.jti, status=status, approver=who, at=self.clock.now()):
            raise Conflict(f"this proposal was already {self.get_approval(record.jti).status}")
        args: dict[str, Any] = {"jti": record.jti, "proposer": str(record.proposer)}
        if in_person:
            args["in_person"] = True
        self.audit.record(
            actor=who,
            operation=f"{'approve' if approve else 'reject'}:{record.operation}",
            args=args,
            outcome=status,
            via=CONSOLE,
        )
        self.changed(APPROVALS_URI)
        return self.get_approval(record.jti)
