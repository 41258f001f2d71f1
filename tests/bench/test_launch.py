import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from rpa_mcp.bench.launch import bench_env, free_port, wait_healthy


def test_bench_env_drops_this_process_settings_and_sets_the_bench_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RPA_STORE_URL", "postgresql://elsewhere")
    env = bench_env(Path("/data"), 8123, secret="s", audit_key="a", agent_token="t")
    assert "RPA_STORE_URL" not in env
    assert env["RPA_PORT"] == "8123"
    assert (env["RPA_JWT_SECRET"], env["RPA_AUDIT_KEY"], env["RPA_API_TOKEN"]) == ("s", "a", "t")
    assert env["RPA_REPLAY_PREFLIGHT"] == "false"


def test_wait_healthy_fails_when_the_server_exited_at_start_up(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()

    async def main() -> None:
        await wait_healthy(f"http://127.0.0.1:{free_port()}", proc, within=30, log=tmp_path / "server.log")

    with pytest.raises(RuntimeError, match="exited"):
        anyio.run(main)
