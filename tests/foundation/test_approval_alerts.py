"""Approval alerts: a signed webhook and an e-mail when a request starts waiting, off the request path."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import socketserver
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from rpa_mcp import approval_alerts
from rpa_mcp.approval_alerts import AlertChannels, ApprovalAlert, MailSender, Outbox, SmtpServer, WebhookSender
from rpa_mcp.bootstrap import build_services
from rpa_mcp.errors import ConfigurationError
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock, loopback_socket

SECRET = "s" * 40
TYPED = "Dupont Jeanne 12/03/1950"  # a typed value: patient data, never in an alert


@dataclass
class Receiver:
    """A webhook receiver on loopback answering the scripted statuses, then 204."""

    statuses: list[int]
    seen: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    got = Receiver([])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            got.seen.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(got.statuses.pop(0) if got.statuses else 204)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    got.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/approvals?token=do-not-log-me"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield got
    server.shutdown()
    server.server_close()


def _alert() -> ApprovalAlert:
    return ApprovalAlert(
        "jti-1", "start_replay", "act", "alice@rpa-mcp", {"competence": "Observation", "machine_id": "PC-1"},
        1000.0, 1300.0, "https://rpa.example/console/approvals/jti-1",
    )  # fmt: skip


def test_a_webhook_is_signed_and_tried_again_after_a_server_error(receiver, caplog):
    receiver.statuses = [503, 502]
    pauses: list[float] = []
    outbox = Outbox("webhook", WebhookSender(receiver.url, SECRET.encode(), FakeClock(1000.0)), pause=pauses.append)
    caplog.set_level(logging.DEBUG, logger="rpa_mcp.approval_alerts")
    assert outbox.send(_alert())
    assert len(receiver.seen) == 3 and pauses == [2.0, 4.0]
    headers, body = receiver.seen[-1]
    expected = hmac.new(SECRET.encode(), b"1000." + body, hashlib.sha256).hexdigest()
    assert headers["x-rpa-signature"] == f"sha256={expected}" and headers["x-rpa-timestamp"] == "1000"
    assert {h["x-rpa-delivery"] for h, _ in receiver.seen} == {"jti-1"}  # a receiver drops repeats
    sent = json.loads(body)
    assert sent["event"] == "approval.waiting" and sent["approval_url"].endswith("/console/approvals/jti-1")
    assert sent["about"] == {"competence": "Observation", "machine_id": "PC-1"}
    logged = caplog.text
    assert "HTTP 503" in logged and "do-not-log-me" not in logged and "/hooks" not in logged and SECRET not in logged


def test_a_refusal_is_not_tried_again_and_a_dead_receiver_is_given_up(receiver):
    receiver.statuses = [403]
    pauses: list[float] = []
    sender = WebhookSender(receiver.url, SECRET.encode(), FakeClock())
    assert not Outbox("webhook", sender, pause=pauses.append).send(_alert())
    assert len(receiver.seen) == 1 and pauses == []
    dead = WebhookSender(f"http://127.0.0.1:{_closed_port()}/", SECRET.encode(), FakeClock())
    assert not Outbox("webhook", dead, attempts=3, pause=pauses.append).send(_alert())
    assert pauses == [2.0, 4.0]


def _closed_port() -> int:
    sock = loopback_socket()
    port = int(sock.getsockname()[1])
    sock.close()
    return port


def test_a_proposal_never_waits_for_its_alert_and_sends_no_argument(tmp_path):
    delivered, release = [], threading.Event()

    def slow(alert: ApprovalAlert) -> None:
        release.wait(timeout=30)  # a receiver that hangs
        delivered.append(alert)

    outbox = Outbox("slow", slow)
    services = build_services(Settings(data_dir=tmp_path), clock=FakeClock())
    services.confirmations.alerts = AlertChannels([outbox])
    proposal = services.confirmations.propose(
        operation="start_replay", risk="dangerous", proposer="alice", args={"params": {"name": TYPED}},
        summary=f"Replay; it will type {TYPED}", details={"competence": "Observation", "machine_id": "PC-1",
        "typed": [TYPED]}, diff=None, binding={}, issuer="rpa-mcp", via="mcp",
    )  # fmt: skip
    assert proposal.approval_mode == "human" and delivered == []  # returned while the receiver hangs
    release.set()
    outbox.join()
    [alert] = delivered
    assert alert.jti == proposal.jti and alert.url == proposal.approval_url and alert.proposer == "alice@rpa-mcp"
    mail = MailSender(_smtp(0), ["a@b"]).message(alert).as_string()
    assert TYPED not in json.dumps(alert.body()) and TYPED not in mail


def test_a_persons_own_answer_to_a_pause_alerts_nobody(tmp_path):
    told: list[ApprovalAlert] = []
    services = build_services(Settings(data_dir=tmp_path), clock=FakeClock())
    services.confirmations.alerts = AlertChannels([Outbox("list", told.append)])
    services.confirmations.propose(
        operation="answer_pause", risk="act", proposer="carol", args={}, summary="", details={}, diff=None,
        binding={}, issuer="rpa-mcp", via="web",
    )  # fmt: skip
    services.confirmations.alerts.join()  # type: ignore[union-attr]
    assert told == []


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({"approval_webhook_url": "https://hooks.example/x"}, "RPA_APPROVAL_WEBHOOK_SECRET"),
        ({"approval_webhook_url": "https://hooks.example/x", "approval_webhook_secret": "short"}, "SECRET"),
        ({"approval_webhook_url": "http://hooks.example/x", "approval_webhook_secret": SECRET}, "https"),
        ({"approval_mail_to": "a@b.example"}, "RPA_SMTP_HOST"),
    ],
)
def test_a_channel_configured_halfway_is_refused_at_start(tmp_path, env, missing):
    with pytest.raises(ConfigurationError) as refused:
        approval_alerts.from_settings(Settings(data_dir=tmp_path, **env), FakeClock())
    assert refused.value.code == "configuration-invalid" and missing in refused.value.message


# --- e-mail, through a minimal SMTP server on loopback ---------------------------------------------
def _smtp(port: int) -> SmtpServer:
    return SmtpServer("127.0.0.1", port, "rpa@hopital.example", starttls=False)


@pytest.fixture
def smtp_server() -> Iterator[tuple[int, list[bytes]]]:
    messages: list[bytes] = []

    class Session(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            self.wfile.write(b"220 test ESMTP\r\n")
            while line := self.rfile.readline():
                verb = line[:4].upper()
                if verb in (b"EHLO", b"HELO"):
                    self.wfile.write(b"250 test\r\n")
                elif verb == b"DATA":
                    self.wfile.write(b"354 go on\r\n")
                    data = b""
                    while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                        data += chunk
                    messages.append(data)
                    self.wfile.write(b"250 queued\r\n")
                elif verb == b"QUIT":
                    self.wfile.write(b"221 bye\r\n")
                    return
                else:  # MAIL FROM, RCPT TO, RSET, NOOP
                    self.wfile.write(b"250 ok\r\n")

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Session)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], messages
    server.shutdown()
    server.server_close()


def test_an_approval_email_names_the_request_and_its_page(smtp_server):
    port, messages = smtp_server
    assert Outbox("mail", MailSender(_smtp(port), ["cadre@hopital.example"])).send(_alert())
    [raw] = messages
    mail = message_from_bytes(raw)
    assert mail["To"] == "cadre@hopital.example" and "start_replay" in mail["Subject"]
    assert "https://rpa.example/console/approvals/jti-1" in mail.get_payload(decode=True).decode()
