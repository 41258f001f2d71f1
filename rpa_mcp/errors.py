"""One rooted error tree with stable codes.

Every error the product raises on purpose is an `RpaError`. Surfaces translate it in one
place each: MCP -> an `isError` result naming the code, REST -> problem+json with
`http_status`, function calling -> `{"error": {...}}`. `code` values are a contract (clients
and tests depend on them); `retryable` says whether the same request may succeed later.

    RpaError                          rpa-error                       500
    ├── InvalidInput                  invalid-input                   422
    │   ├── ReadbackNotAllowed        readback-not-allowed            422
    │   ├── MalformedJson             malformed-json                  400
    │   ├── PayloadTooLarge           payload-too-large               413
    │   └── ImageRejected             image-rejected                  422
    ├── NotFound                      not-found                       404
    ├── MethodNotAllowed              method-not-allowed              405
    ├── Conflict                      conflict                        409
    ├── PreconditionFailed            precondition-failed             409
    │   └── WorkstationNotReady       workstation-not-ready           409  retryable
    ├── Unauthenticated               unauthenticated                 401
    ├── Forbidden                     forbidden                       403
    ├── RateLimited                   rate-limited                    429  retryable
    │   └── ImageWorkBusy             image-work-busy                 429  retryable
    ├── ToolQuotaExceeded             tool-quota-exceeded             429
    ├── ConfirmationError             confirmation-invalid            403
    │   ├── TokenExpired              confirmation-expired            403
    │   ├── TokenAlreadyUsed          confirmation-already-used       409
    │   ├── TokenOtherCaller          confirmation-other-caller       403
    │   ├── TokenOtherOperation       confirmation-other-operation    403
    │   ├── ArgumentsChanged          confirmation-arguments-changed  409
    │   ├── ApprovalPending           approval-pending                409  retryable
    │   └── ApprovalRejected          approval-rejected               403
    ├── Unavailable                   unavailable                     503  retryable
    ├── ConfigurationError            configuration-invalid           500
    ├── StartupRefused                startup-refused                 500
    ├── SchemaOutdated                schema-outdated                 503
    └── InternalError                 internal-error                  500
"""

from __future__ import annotations

from typing import Any, ClassVar


class RpaError(Exception):
    """Root of every deliberate error. `details` is safe to show to a client."""

    code: ClassVar[str] = "rpa-error"
    http_status: ClassVar[int] = 500
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message, "retryable": self.retryable}
        if self.details:
            body["details"] = self.details
        return body


# --- the caller's input -------------------------------------------------------------
class InvalidInput(RpaError):
    """The request is malformed; `details['field']` names the field when known."""

    code = "invalid-input"
    http_status = 422


class ReadbackNotAllowed(InvalidInput):
    """A competence's read-back URL is not under a base allowed by RPA_READBACK_URLS."""

    code = "readback-not-allowed"


class MalformedJson(InvalidInput):
    """The body is not strict JSON: invalid UTF-8, NaN/Infinity, a huge integer, too deep, duplicate keys."""

    code = "malformed-json"
    http_status = 400


class PayloadTooLarge(InvalidInput):
    """The request body (or an image in it) is larger than the configured limit."""

    code = "payload-too-large"
    http_status = 413


class ImageRejected(InvalidInput):
    """Not a PNG/JPEG, corrupt, empty, or over the pixel limit (decompression bomb)."""

    code = "image-rejected"


class NotFound(RpaError):
    """No such thing (operation, session, competence, replay, resource...); `details` says which."""

    code = "not-found"
    http_status = 404


class MethodNotAllowed(RpaError):
    """The path exists but not with this HTTP method; `details['allowed']` lists the methods it takes."""

    code = "method-not-allowed"
    http_status = 405


class Conflict(RpaError):
    """The request is valid but the current state forbids it (already observing, ...)."""

    code = "conflict"
    http_status = 409


class PreconditionFailed(RpaError):
    """Something must happen first (an active session, a validated step, ...)."""

    code = "precondition-failed"
    http_status = 409


class WorkstationNotReady(PreconditionFailed):
    """A replay refused before its first input: the workstation is not connected or not showing what it needs."""

    code = "workstation-not-ready"
    retryable = True


# --- identity and limits ------------------------------------------------------------
class Unauthenticated(RpaError):
    """No valid access token: send `Authorization: Bearer <token>` (mint one with `rpa-mcp token`)."""

    code = "unauthenticated"
    http_status = 401


class Forbidden(RpaError):
    """The caller's roles do not allow this operation (or this machine); the message names the roles needed."""

    code = "forbidden"
    http_status = 403


class RateLimited(RpaError):
    """Too many calls of this operation by this identity; retry after `details['retry_after_s']` seconds."""

    code = "rate-limited"
    http_status = 429
    retryable = True

    def __init__(self, message: str, *, retry_after_s: float, **details: Any) -> None:
        super().__init__(message, retry_after_s=round(retry_after_s, 3), **details)
        self.retry_after_s = retry_after_s


class ImageWorkBusy(RateLimited):
    """This identity already has its share of image operations running or waiting; retry after `retry_after_s`."""

    code = "image-work-busy"


# --- confirmation (propose/apply) ------------------------------------------------------
class ConfirmationError(RpaError):
    """An apply_* token was refused; nothing was executed."""

    code = "confirmation-invalid"
    http_status = 403


class TokenExpired(ConfirmationError):
    """The confirmation token is past its lifetime: propose again."""

    code = "confirmation-expired"


class TokenAlreadyUsed(ConfirmationError):
    """The confirmation token was already applied once; it never runs twice."""

    code = "confirmation-already-used"
    http_status = 409


class TokenOtherCaller(ConfirmationError):
    """The confirmation token was issued to another caller: only its proposer may apply it."""

    code = "confirmation-other-caller"


class TokenOtherOperation(ConfirmationError):
    """The confirmation token belongs to another operation: call the apply_ that matches its propose_."""

    code = "confirmation-other-operation"


class ArgumentsChanged(ConfirmationError):
    """What the proposal was bound to changed since (a new competence version, ...): propose again."""

    code = "confirmation-arguments-changed"
    http_status = 409


class ApprovalPending(ConfirmationError):
    """A person has not approved the proposal yet on its approval page: wait, then apply again."""

    code = "approval-pending"
    http_status = 409
    retryable = True


class ApprovalRejected(ConfirmationError):
    """A person rejected the proposal on its approval page; it will never run."""

    code = "approval-rejected"


# --- collaborators -----------------------------------------------------------------
class Unavailable(RpaError):
    """A collaborator (agent, OCR engine, judge model) is unreachable or switched off."""

    code = "unavailable"
    http_status = 503
    retryable = True


class ConfigurationError(RpaError):
    """A setting or the data folder is unusable (a short signing key, no key in the folder...): see the message."""

    code = "configuration-invalid"
    http_status = 500


class StartupRefused(RpaError):
    """The server refuses to start with these settings (the message says which and what to do)."""

    code = "startup-refused"
    http_status = 500


class SchemaOutdated(RpaError):
    """The database schema is older (or newer) than this server's code: run `rpa-mcp db upgrade`."""

    code = "schema-outdated"
    http_status = 503


class ToolQuotaExceeded(RpaError):
    """An agent-loop run used its quota of tool calls; the call was not executed."""

    code = "tool-quota-exceeded"
    http_status = 429


class InternalError(RpaError):
    """A bug or an unexpected failure on the server; the server log has the details."""

    code = "internal-error"
    http_status = 500


def all_error_classes() -> list[type[RpaError]]:
    """Every class of the tree, root first (used by the generated reference)."""
    out: list[type[RpaError]] = []
    stack: list[type[RpaError]] = [RpaError]
    while stack:
        cls = stack.pop(0)
        out.append(cls)
        stack.extend(cls.__subclasses__())
    return out
