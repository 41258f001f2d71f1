"""`rpa-mcp stdio`: a local client (the SDK's stdio client) acts as the holder of RPA_TOKEN, through dispatch()."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from rpa_mcp.bootstrap import build_services
from rpa_mcp.cli import main
from rpa_mcp.entrypoints.stdio import stdio_server
from rpa_mcp.errors import StartupRefused
from rpa_mcp.ops import build_registry
from rpa_mcp.settings import Settings
from tests.conftest import SECRET

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


def environment(data_dir: Path, **extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("RPA_")}
    return {**keep, "PYTHONPATH": str(ROOT), "RPA_DATA_DIR": str(data_dir), "RPA_JWT_SECRET": SECRET, **extra}


async def test_a_local_client_over_stdio_acts_as_the_token_holder_with_its_roles_and_audit(tmp_path):
    data_dir = tmp_path / "data"
    services = build_services(build_settings(data_dir))  # the real clock: the server process checks the token now
    token = str(services.access_tokens.mint("vic", ["viewer"], ttl_s=600))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "rpa_mcp", "stdio"], env=environment(data_dir, RPA_TOKEN=token)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        read_ok = await session.call_tool("list_competences", {})
        refused = await session.call_tool("shadow_start", {"machine_id": "PC-1"})
    viewer = {op.name for op in build_registry().for_surface("mcp") if "viewer" in op.allowed_roles}
    assert names == viewer and "shadow_start" not in names
    assert not read_ok.is_error
    assert refused.is_error and refused.meta["rpa/error"]["code"] == "forbidden"
    rows = [(r["actor"], r["operation"]) for r in services.audit.rows()]
    assert ("vic", "list_competences") in rows and ("vic", "shadow_start") in rows


def build_settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, jwt_secret=SECRET)


def test_without_a_token_or_with_a_bad_one_stdio_refuses_to_start(tmp_path):
    settings = build_settings(tmp_path / "data")
    with pytest.raises(StartupRefused):
        stdio_server(settings)
    with pytest.raises(StartupRefused):
        stdio_server(Settings(data_dir=tmp_path / "data", jwt_secret=SECRET, token="not-a-token"))


def test_the_command_says_what_is_missing_on_stderr(tmp_path, monkeypatch, capsys):
    for name in [k for k in os.environ if k.startswith("RPA_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    assert main(["stdio"]) != 0
    assert "RPA_TOKEN" in capsys.readouterr().err
