"""Telling the people who approve that a request waits: a signed webhook and/or an e-mail.

The confirmation service calls its `ApprovalAlerts` port, `new_approval(view, url)`, when a request starts
waiting for a person (not for a person's own answer to a paused replay, which they approve by
answering). Each channel hands the alert to its `Outbox` at once and returns: a bounded queue
and one worker thread deliver it, tried again `ATTEMPTS` times with a doubling pause (a full
queue drops the alert with a warning: the request is never held up by a slow or absent receiver).
The console's own live notification needs none of this (console/views/waiting.py).

What leaves the server is what a person needs to find the request, never its arguments (typed
values may be patient data): the operation, its risk, who proposed it, the competence and
workstation named in its details, when it expires and the approval page's address.

- Webhook (`RPA_APPROVAL_WEBHOOK_URL`): `POST` of that JSON, `X-RPA-Signature: sha256=<hex>`, the
  HMAC-SHA256 of `<X-RPA-Timestamp>.<body>` with `RPA_APPROVAL_WEBHOOK_SECRET`; `X-RPA-Delivery`
  is the request's id (the same on every attempt: a receiver drops repeats). Retried on a
  network error, a 408, a 429 or a 5xx; another 4xx is not retried.
- E-mail (`RPA_APPROVAL_MAIL_TO`, `RPA_SMTP_*`): a short text message to each address.
Logs name the receiver by scheme, host and port only, and an error by its kind and status: never
a secret, a password or a URL's path or query (which may carry a token).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import queue
import smtplib
import ssl
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlsplit

import httpx2

from rpa_mcp.clock import Clock
from rpa_mcp.confirmation.service import ApprovalView
from rpa_mcp.errors import ConfigurationError
from rpa_mcp.settings import Settings, is_loopback_host

logger = logging.getLogger(__name__)
ATTEMPTS = 5
FIRST_PAUSE_S = 2.0
CAPACITY = 200
TIMEOUT_S = 10.0
MIN_SECRET_CHARS = 32
_NAMED_DETAILS = ("competence", "version", "machine_id", "replay_id", "name", "status")


@dataclass(frozen=True)
class ApprovalAlert:
    """What is told about a request waiting for a person (never its arguments)."""

    jti: str
    operation: str
    risk: str
    proposer: str
    about: dict[str, str | int]
    created_at: float
    expires_at: float
    url: str

    @classmethod
    def of(cls, view: ApprovalView, url: str) -> ApprovalAlert:
        about = {k: v for k in _NAMED_DETAILS if isinstance(v := view.details.get(k), str | int)}
        proposer = f"{view.proposer.subject}@{view.proposer.issuer}" if view.proposer.issuer else view.proposer.subject
        return cls(view.jti, view.operation, view.risk, proposer, about, view.created_at, view.expires_at, url)

    def body(self) -> dict[str, Any]:
        return {
            "event": "approval.waiting",
            "id": self.jti,
            "operation": self.operation,
            "risk": self.risk,
            "proposer": self.proposer,
            "about": self.about,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "approval_url": self.url,
        }

    def title(self) -> str:
        named = ", ".join(f"{k} {v}" for k, v in self.about.items())
        return f"{self.operation} ({named})" if named else self.operation


class Permanent(Exception):
    """A delivery the receiver refused for good (trying again would not help)."""


class Outbox:
    """One channel's queue and worker thread: `put` returns at once; the worker delivers each
    alert, again after a failure (`pause(seconds)` between attempts, doubling)."""

    def __init__(
        self,
        name: str,
        deliver: Callable[[ApprovalAlert], None],
        *,
        attempts: int = ATTEMPTS,
        first_pause_s: float = FIRST_PAUSE_S,
        capacity: int = CAPACITY,
        pause: Callable[[float], object] | None = None,
    ) -> None:
        self.name, self.deliver, self.attempts, self.first_pause_s = name, deliver, attempts, first_pause_s
        self._queue: queue.Queue[ApprovalAlert] = queue.Queue(maxsize=capacity)
        self._stopping = threading.Event()
        self._pause = pause if pause is not None else self._stopping.wait
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()

    def put(self, alert: ApprovalAlert) -> None:
        try:
            self._queue.put_nowait(alert)
        except queue.Full:
            logger.warning("%s: %d alerts wait already; the alert for request %s is dropped", self.name,
                           self._queue.qsize(), alert.jti)  # fmt: skip
            return
        with self._lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._run, name=f"alerts-{self.name}", daemon=True)
                self._worker.start()

    def join(self) -> None:
        """Return once every alert put so far was delivered or given up (tests, shutdown)."""
        self._queue.join()

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                alert = self._queue.get(timeout=1.0)
            except queue.Empty:
                continue
            try:
                self.send(alert)
            finally:
                self._queue.task_done()

    def send(self, alert: ApprovalAlert) -> bool:
        """Deliver one alert with its retries; whether it was delivered."""
        last = ""
        for attempt in range(1, self.attempts + 1):
            try:
                self.deliver(alert)
                return True
            except Permanent as refused:
                logger.error("%s: request %s refused, not tried again: %s", self.name, alert.jti, refused)
                return False
            except Exception as exc:
                last = describe(exc)
                if attempt == self.attempts:
                    break
                pause = self.first_pause_s * 2 ** (attempt - 1)
                logger.warning("%s: attempt %d of %d for request %s failed (%s); again in %.0f s", self.name,
                               attempt, self.attempts, alert.jti, last, pause)  # fmt: skip
                self._pause(pause)
        logger.error("%s: the alert for request %s is given up after %d attempts (%s)", self.name, alert.jti,
                     self.attempts, last)  # fmt: skip
        return False

    def close(self) -> None:
        self._stopping.set()


def describe(exc: BaseException) -> str:
    """An error as the log may show it: its kind and status, never a message that may quote a URL or secret."""
    if isinstance(exc, Permanent | _Retry):
        return str(exc)
    return type(exc).__name__


class _Retry(Exception):
    """A refusal worth trying again (408, 429, 5xx)."""


def where(url: str) -> str:
    """A receiver as the log may name it: scheme, host and port."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")


class WebhookSender:
    """POSTs an alert's JSON, signed (HMAC-SHA256 of `<timestamp>.<body>`)."""

    def __init__(self, url: str, secret: bytes, clock: Clock, *, client: httpx2.Client | None = None) -> None:
        self.url, self.secret, self.clock = url, secret, clock
        self.client = client or httpx2.Client(timeout=TIMEOUT_S, follow_redirects=False)

    def headers(self, body: bytes, jti: str) -> dict[str, str]:
        stamp = str(int(self.clock.now()))
        mac = hmac.new(self.secret, stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
        return {
            "content-type": "application/json",
            "user-agent": "rpa-mcp approval alerts",
            "x-rpa-timestamp": stamp,
            "x-rpa-signature": f"sha256={mac}",
            "x-rpa-delivery": jti,
        }

    def __call__(self, alert: ApprovalAlert) -> None:
        body = json.dumps(alert.body(), ensure_ascii=False, separators=(",", ":")).encode()
        answer = self.client.post(self.url, content=body, headers=self.headers(body, alert.jti))
        status = answer.status_code
        if 200 <= status < 300:
            return
        if status in (408, 429) or status >= 500:
            raise _Retry(f"HTTP {status} from {where(self.url)}")
        raise Permanent(f"HTTP {status} from {where(self.url)}")


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    sender: str
    user: str | None = None
    password: str | None = None
    starttls: bool = True


class MailSender:
    """Sends an alert as a short text message to each recipient."""

    def __init__(self, server: SmtpServer, recipients: Sequence[str]) -> None:
        self.server, self.recipients = server, list(recipients)

    def message(self, alert: ApprovalAlert) -> EmailMessage:
        msg = EmailMessage()
        msg["Subject"] = f"Approval waiting: {alert.title()}"
        msg["From"] = self.server.sender
        msg["To"] = ", ".join(self.recipients)
        msg.set_content(
            f"A request waits for a person's approval.\n\n"
            f"What: {alert.title()}\nRisk: {alert.risk}\nProposed by: {alert.proposer}\n\n"
            f"Decide here (signed in to the console): {alert.url}\n"
            f"It lapses if nobody decides before it expires.\n"
        )
        return msg

    def __call__(self, alert: ApprovalAlert) -> None:
        server = self.server
        with smtplib.SMTP(server.host, server.port, timeout=TIMEOUT_S) as smtp:
            if server.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if server.user:
                smtp.login(server.user, server.password or "")
            smtp.send_message(self.message(alert))


class AlertChannels:
    """The configured channels (none, one or both), each with its own outbox."""

    def __init__(self, outboxes: Sequence[Outbox]) -> None:
        self.outboxes = list(outboxes)

    def new_approval(self, view: ApprovalView, url: str) -> None:
        alert = ApprovalAlert.of(view, url)
        for outbox in self.outboxes:
            outbox.put(alert)

    def join(self) -> None:
        for outbox in self.outboxes:
            outbox.join()

    def close(self) -> None:
        for outbox in self.outboxes:
            outbox.close()


def from_settings(settings: Settings, clock: Clock) -> AlertChannels:
    """The channels RPA_APPROVAL_WEBHOOK_URL and RPA_APPROVAL_MAIL_TO ask for (none by default); a
    channel configured halfway is a ConfigurationError naming what is missing."""
    outboxes = []
    url = settings.approval_webhook_url
    if url:
        parts = urlsplit(url)
        if parts.scheme != "https" and not (parts.scheme == "http" and is_loopback_host(parts.hostname or "")):
            raise ConfigurationError("RPA_APPROVAL_WEBHOOK_URL: expected an https:// URL (http:// only on loopback)")
        secret = settings.approval_webhook_secret
        if secret is None or len(secret.get_secret_value()) < MIN_SECRET_CHARS:
            raise ConfigurationError(
                f"RPA_APPROVAL_WEBHOOK_SECRET: the webhook needs a signing key of {MIN_SECRET_CHARS} characters "
                "or more (e.g. `openssl rand -hex 32`)"
            )
        sender = WebhookSender(url, secret.get_secret_value().encode(), clock)
        outboxes.append(Outbox(f"approval webhook {where(url)}", sender))
    if settings.approval_mail_to:
        if not settings.smtp_host:
            raise ConfigurationError("RPA_APPROVAL_MAIL_TO: approval e-mails need RPA_SMTP_HOST (and RPA_SMTP_PORT)")
        password = settings.smtp_password.get_secret_value() if settings.smtp_password else None
        server = SmtpServer(
            settings.smtp_host, settings.smtp_port, settings.smtp_from, settings.smtp_user, password,
            settings.smtp_starttls,
        )  # fmt: skip
        mail = MailSender(server, settings.approval_mail_to)
        outboxes.append(Outbox(f"approval mail smtp://{settings.smtp_host}", mail))
    return AlertChannels(outboxes)


__all__ = [
    "AlertChannels",
    "ApprovalAlert",
    "MailSender",
    "Outbox",
    "Permanent",
    "SmtpServer",
    "WebhookSender",
    "from_settings",
]
