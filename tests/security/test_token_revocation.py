"""Revoking a workstation's tokens: refused on every server within the refresh delay, re-enrolment works."""

from __future__ import annotations

import pytest

from rpa_mcp.bootstrap import build_services
from rpa_mcp.cli import main
from rpa_mcp.settings import Settings
from rpa_mcp.store.revocations import REFRESH_S, TokenRevocations
from rpa_mcp.testing import FakeClock, FakeOcr
from tests.conftest import SECRET
from tests.security.conftest import AGENT_TOKEN, client_for

pytestmark = pytest.mark.anyio


async def _status(services, token: str) -> tuple[int, dict[str, object]]:
    async with client_for(services, token) as client:
        answer = await client.get("/metrics")
    return answer.status_code, answer.json() if answer.status_code == 401 else {}


async def test_a_revoked_subject_is_refused_once_the_servers_reread_and_a_new_token_passes(tmp_path):
    clock = FakeClock()
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET, api_token=AGENT_TOKEN)
    services = build_services(settings, clock=clock, ocr=FakeOcr())
    before = services.access_tokens.mint("ws-pc-12", ["viewer"], now=clock.now())
    other = services.access_tokens.mint("ws-pc-13", ["viewer"], now=clock.now())
    assert (await _status(services, before))[0] == 200
    clock.advance(1)
    TokenRevocations(services.db, clock).revoke("ws-pc-12", by="test")  # as `rpa-mcp revoke`, another process
    clock.advance(REFRESH_S)
    status, body = await _status(services, before)
    assert status == 401 and body["reason"] == "revoked"
    assert (await _status(services, other))[0] == 200  # another workstation keeps working
    clock.advance(1)
    again = services.access_tokens.mint("ws-pc-12", ["viewer"], now=clock.now())  # re-enrolled
    assert (await _status(services, again))[0] == 200


def test_the_cli_revokes_and_lists(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    assert main(["revoke", "ws-pc-12"]) == 0
    assert "ws-pc-12" in capsys.readouterr().out
    assert main(["revoke", "--list"]) == 0
    assert capsys.readouterr().out.startswith("ws-pc-12\t")
    assert main(["revoke"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
