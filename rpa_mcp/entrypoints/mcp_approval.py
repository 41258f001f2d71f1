"""A person's approval asked through their own client: URL-mode elicitation of the approval page.

When an `apply_` needs a second person's approval (`approval-pending`) and the client declared
URL-mode elicitation, the server sends the approval page's URL so the client shows it to its
person, who opens it or passes it on: on 2025-11-25 (a connection that can carry server
requests) through `elicitation/create` (mode `url`); on 2026-07-28 as an input request, an
`InputRequiredResult` whose `inputRequests` hold that elicitation, the client's answer coming
back with the call retried. The answer to the elicitation is never consent:
"accept" only means the person saw the link. The apply is dispatched again each time an approval
is decided (`rpa://approvals` is updated) and completes once the confirmation service lets it
through, that is once a person other than the proposer has approved on the page (the rule
stays in `ConfirmationService.check`). After `APPROVAL_WAIT_S` without it, or when the person
declines, the caller gets today's `approval-pending`, and a retry waits again without asking
twice for the same request. Clients without URL elicitation get `approval-pending` at once.
"""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.types import ElicitRequest, ElicitRequestURLParams, InputRequiredResult

from rpa_mcp.confirmation.service import APPROVALS_URI
from rpa_mcp.errors import ApprovalPending, RpaError
from rpa_mcp.notify import Notifier
from rpa_mcp.ops.replay_wait import HeardUri

logger = logging.getLogger(__name__)
APPROVAL_WAIT_S = 50.0  # under the 60 s after which many clients give up on a call
REMEMBERED = 1024  # requests already shown to a person (not asked again on a retry)
MESSAGE = (
    "This request needs a second person's approval (nobody approves their own request). Open the approval page, "
    "or send the link to a colleague with the approver role; it goes ahead once they approve."
)


def declares_url_elicitation(context: Any) -> bool:
    if context is None or getattr(context, "request_context", None) is None:
        return False
    capabilities = getattr(context.request_context.session, "client_capabilities", None)
    elicitation = capabilities.elicitation if capabilities is not None else None
    return bool(elicitation is not None and elicitation.url is not None)


def can_elicit_url(context: Any) -> bool:
    """Whether this request's client declared URL-mode elicitation and its connection can carry the request."""
    return declares_url_elicitation(context) and bool(context.request_context.session.can_send_request)


def can_request_input(context: Any) -> bool:
    """Whether the URL can travel as an input request: a 2026-07-28 request whose client declared URL elicitation."""
    return declares_url_elicitation(context) and str(context.request_context.protocol_version) >= "2026"


def approval_request(url: str, request_id: str) -> InputRequiredResult:
    """The input request of 2026-07-28 that shows the approval page (its key names the request)."""
    elicitation = ElicitRequest(params=ElicitRequestURLParams(message=MESSAGE, url=url, elicitation_id=request_id))
    return InputRequiredResult(input_requests={f"approval-{request_id}": elicitation}, request_state=request_id)


class ClientApprovals:
    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier
        self.asked: OrderedDict[str, None] = OrderedDict()

    async def apply(
        self, pending: ApprovalPending, context: Any, again: Callable[[], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """The apply's result once a person approved on the page; `pending` again when that did not happen."""
        url = str(pending.details.get("approval_url") or "")
        if not url:
            raise pending
        request_id = url.rstrip("/").rsplit("/", 1)[-1]
        heard = HeardUri(APPROVALS_URI)
        self.notifier.attach(heard)  # before asking: an approval made while the client shows the link is heard
        try:
            if request_id not in self.asked:
                self._remember(request_id)
                answer = await context.elicit_url(MESSAGE, url, request_id)
                if answer.action != "accept":
                    raise pending
            return await self.until_approved(pending, heard, again, lambda: self._complete(context, request_id))
        finally:
            self.notifier.detach(heard)

    async def apply_by_input(
        self, pending: ApprovalPending, context: Any, again: Callable[[], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any] | InputRequiredResult:
        """2026-07-28: first the input request showing the page, then (the call retried with the person's
        answer) the apply's result once a person approved; `pending` when that did not happen in time."""
        url = str(pending.details.get("approval_url") or "")
        if not url:
            raise pending
        request_id = url.rstrip("/").rsplit("/", 1)[-1]
        answer = (context.input_responses or {}).get(f"approval-{request_id}")
        if answer is None and request_id not in self.asked:
            self._remember(request_id)
            return approval_request(url, request_id)
        if answer is not None and getattr(answer, "action", None) != "accept":
            raise pending
        heard = HeardUri(APPROVALS_URI)
        self.notifier.attach(heard)
        try:
            return await self.until_approved(pending, heard, again, None)
        finally:
            self.notifier.detach(heard)

    async def until_approved(
        self,
        pending: ApprovalPending,
        heard: HeardUri,
        again: Callable[[], Awaitable[dict[str, Any]]],
        decided: Callable[[], Awaitable[None]] | None,
    ) -> dict[str, Any]:
        """The apply dispatched again at each approval decided, until it goes through, within APPROVAL_WAIT_S.
        Only the wait is bounded: an apply in flight is never interrupted (its outcome is the answer)."""
        deadline = anyio.current_time() + APPROVAL_WAIT_S
        while True:
            try:
                result = await again()
            except ApprovalPending:
                with anyio.move_on_after(deadline - anyio.current_time()) as waited:
                    await heard.event.wait()
                if waited.cancelled_caught:
                    raise pending from None
                heard.event.clear()
                continue
            except RpaError:  # rejected, expired...: decided, the client may close its link
                if decided is not None:
                    await decided()
                raise
            if decided is not None:
                await decided()
            return result

    def _remember(self, request_id: str) -> None:
        self.asked[request_id] = None
        while len(self.asked) > REMEMBERED:
            self.asked.popitem(last=False)

    async def _complete(self, context: Any, request_id: str) -> None:
        with contextlib.suppress(Exception):  # a client gone meanwhile still gets its answer, or nobody does
            await context.request_context.session.send_elicit_complete(request_id)
