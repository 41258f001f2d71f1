"""One rooted error tree with stable codes.

Every error the product raises on purpose is an `RpaError`. Surfaces translate it in one
place each: MCP -> an `isError` result naming the code, REST -> problem+json with
`http_status`. `code` values are a contract (clients and tests depend on them).
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


class MalformedJson(InvalidInput):
    """The body is not strict JSON: invalid UTF-8, NaN/Infinity, a huge integer, too deep, duplicate keys."""

    code = "malformed-json"
    http_status = 400


class PayloadTooLarge(InvalidInput):
    code = "payload-too-large"
    http_status = 413


class ImageRejected(InvalidInput):
    """Not a PNG/JPEG, corrupt, empty, or over the pixel limit (decompression bomb)."""

    code = "image-rejected"


class NotFound(RpaError):
    code = "not-found"
    http_status = 404


class Conflict(RpaError):
    """The request is valid but the current state forbids it (already observing, ...)."""

    code = "conflict"
    http_status = 409


class PreconditionFailed(RpaError):
    """Something must happen first (an active session, a validated step, ...)."""

    code = "precondition-failed"
    http_status = 409


# --- identity and limits ------------------------------------------------------------
class Unauthenticated(RpaError):
    code = "unauthenticated"
    http_status = 401


class Forbidden(RpaError):
    code = "forbidden"
    http_status = 403


class RateLimited(RpaError):
    code = "rate-limited"
    http_status = 429
    retryable = True

    def __init__(self, message: str, *, retry_after_s: float, **details: Any) -> None:
        super().__init__(message, retry_after_s=round(retry_after_s, 3), **details)
        self.retry_after_s = retry_after_s


# --- confirmation (propose/apply) ------------------------------------------------------
class ConfirmationError(RpaError):
    """An apply_* token was refused; nothing was executed."""

    code = "confirmation-invalid"
    http_status = 403


class TokenExpired(ConfirmationError):
    code = "confirmation-expired"


class TokenAlreadyUsed(ConfirmationError):
    code = "confirmation-already-used"
    http_status = 409


class TokenOtherCaller(ConfirmationError):
    code = "confirmation-other-caller"


class TokenOtherOperation(ConfirmationError):
    code = "confirmation-other-operation"


class ArgumentsChanged(ConfirmationError):
    code = "confirmation-arguments-changed"
    http_status = 409


class ApprovalPending(ConfirmationError):
    code = "approval-pending"
    http_status = 409
    retryable = True


class ApprovalRejected(ConfirmationError):
    code = "approval-rejected"


# --- collaborators -----------------------------------------------------------------
class Unavailable(RpaError):
    """A collaborator (agent, OCR engine, judge model) is unreachable or switched off."""

    code = "unavailable"
    http_status = 503
    retryable = True


class InternalError(RpaError):
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
