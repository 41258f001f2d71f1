"""A newcomer's first start: settings errors in one line, misspelt names warned, one server per
data folder, a busy port before the models load, an unreachable database said quickly, `GET /`."""

from __future__ import annotations

import socket
import time

import pytest

from rpa_mcp import startup
from rpa_mcp.cli import main
from rpa_mcp.errors import ConfigurationError
from rpa_mcp.settings import Settings
from tests.conftest import SECRET
from tests.security.conftest import client_for, make_services

pytestmark = pytest.mark.anyio


def test_a_list_setting_accepts_comma_separated_names_and_a_json_list(monkeypatch):
    monkeypatch.setenv("RPA_ALLOWED_HOSTS", "rpa.hopital.example, rpa2.hopital.example")
    monkeypatch.setenv("RPA_ALLOWED_ORIGINS", '["https://rpa.hopital.example"]')
    settings = Settings()
    assert settings.allowed_hosts == ["rpa.hopital.example", "rpa2.hopital.example"]
    assert settings.allowed_origins == ["https://rpa.hopital.example"]


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("RPA_PORT", "eighty", "Bind port"),
        ("RPA_ALLOWED_HOSTS", '["unclosed', "comma-separated list"),
        ("RPA_OCR_THREADS", "99", "onnxruntime threads"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it_and_its_expected_form(
    tmp_path, monkeypatch, capsys, name, value, expected
):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    monkeypatch.setenv(name, value)
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"rpa-mcp: error: {name}:")
    assert expected in err and "unexpected" not in err


def test_a_misspelt_setting_is_warned_with_the_closest_known_name():
    warnings = startup.unknown_names({"RPA_JWT_SECERT": "x", "RPA_PORT": "1", "RPA_AGENT_TOKEN": "t", "HOME": "/"})
    assert len(warnings) == 1
    assert warnings[0].startswith("RPA_JWT_SECERT") and "RPA_JWT_SECRET" in warnings[0]


def test_serve_warns_of_a_misspelt_name_before_anything_else(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    monkeypatch.setenv("RPA_WATCHDOG_ENABLD", "false")
    monkeypatch.setenv("RPA_PORT", "eighty")  # stops the start right after the warning
    assert main(["serve"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and "RPA_WATCHDOG_ENABLED" in lines[0] and "RPA_PORT" in lines[1]


def test_token_warns_of_a_misspelt_secret_on_stderr_only(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    monkeypatch.setenv("RPA_JWT_SECERT", "typo")
    assert main(["token", "--sub", "alice", "--role", "operator"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("\n") == 1 and "RPA_JWT_SECRET?" in captured.err


def test_a_second_server_on_one_data_folder_is_refused(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET)
    first = startup.lock_data_dir(settings)
    assert first is not None
    try:
        with pytest.raises(ConfigurationError) as refused:
            startup.lock_data_dir(settings)
        assert refused.value.code == "configuration-invalid"
    finally:
        first.release()
    again = startup.lock_data_dir(settings)  # free once the first server is gone
    assert again is not None
    again.release()


def test_replicas_on_postgresql_take_no_folder_lock(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, store_url="postgresql://rpa@127.0.0.1:1/rpa")
    assert startup.lock_data_dir(settings) is None


def test_an_sqlite_url_is_locked_and_not_probed_as_postgresql(tmp_path):
    settings = Settings(data_dir=tmp_path, jwt_secret=SECRET, store_url=f"sqlite:///{tmp_path / 'x.sqlite3'}")
    startup.probe_database(settings)  # nothing to reach
    held = startup.lock_data_dir(settings)
    assert held is not None
    held.release()


def test_serve_on_a_locked_folder_is_one_line_and_builds_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    monkeypatch.setattr("rpa_mcp.bootstrap.build_services", _never)
    held = startup.lock_data_dir(Settings())
    assert held is not None
    try:
        assert main(["serve", "--port", "0"]) == 2
    finally:
        held.release()
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "RPA_DATA_DIR" in captured.err


def test_a_busy_port_is_said_before_the_models_load(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RPA_JWT_SECRET", SECRET)
    monkeypatch.setattr("rpa_mcp.bootstrap.build_services", _never)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        assert main(["serve", "--port", str(busy.getsockname()[1])]) == 2
    finally:
        busy.close()
    assert "--port" in capsys.readouterr().err


def test_a_refused_database_is_one_line_naming_the_setting_without_the_password(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    settings = Settings(data_dir=tmp_path, store_url=f"postgresql://rpa:hunter2@127.0.0.1:{port}/rpa")
    started = time.monotonic()
    with pytest.raises(ConfigurationError) as refused:
        startup.probe_database(settings)
    assert time.monotonic() - started < 10
    assert "RPA_STORE_URL" in refused.value.message and "hunter2" not in refused.value.message
    assert "\n" not in refused.value.message


def test_a_silent_database_is_given_up_on_within_the_timeout(tmp_path):
    silent = socket.socket()  # accepts TCP connections (the kernel's backlog) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        url = f"postgresql://rpa@127.0.0.1:{silent.getsockname()[1]}/rpa"
        started = time.monotonic()
        with pytest.raises(ConfigurationError):
            startup.probe_database(Settings(data_dir=tmp_path, store_url=url), timeout_s=2)
        assert time.monotonic() - started < 5
    finally:
        silent.close()


async def test_the_root_page_points_to_mcp_console_and_docs_without_a_token(tmp_path):
    services = make_services(tmp_path)
    async with client_for(services, None) as client:
        page = await client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for link in ("/mcp", "/console", "docs/getting-started.md", "/healthz"):
        assert link in page.text
    assert SECRET not in page.text and "Bearer ey" not in page.text


async def test_a_refused_host_or_origin_names_the_settings_to_change(tmp_path):
    services = make_services(tmp_path)
    async with client_for(services, None) as client:
        host = await client.get("/healthz", headers={"host": "rpa.hopital.example"})
        origin = await client.get("/healthz", headers={"origin": "https://evil.example"})
    assert host.status_code == 421 and host.json()["code"] == "misdirected-request"
    assert "RPA_PUBLIC_URL" in host.json()["detail"] and "RPA_ALLOWED_HOSTS" in host.json()["detail"]
    assert origin.status_code == 403 and "RPA_ALLOWED_ORIGINS" in origin.json()["detail"]


def test_the_banner_names_the_console():
    from rpa_mcp.serve_banner import banner as _banner

    settings = Settings(jwt_secret=SECRET)
    banner = _banner("http://127.0.0.1:8765", None, settings, "RPA_JWT_SECRET (fingerprint x)")
    assert "http://127.0.0.1:8765/console" in banner.splitlines()[0]


def _never(*args: object, **kwargs: object) -> object:
    raise AssertionError("the services (and the text models) must not be built before the checks pass")


def test_a_busy_port_is_said_before_the_vision_libraries_are_even_imported(tmp_path):
    import os
    import subprocess
    import sys

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    script = (
        "import sys; from rpa_mcp.cli import main; rc = main(['serve', '--port', sys.argv[1]]); "
        "print(rc, sorted(m for m in ('rpa_mcp.bootstrap', 'onnxruntime', 'rapidocr') if m in sys.modules))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("RPA_")}
    env |= {"RPA_DATA_DIR": str(tmp_path), "RPA_JWT_SECRET": SECRET}
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, str(busy.getsockname()[1])], env=env, capture_output=True, text=True
        )
    finally:
        busy.close()
    assert done.stdout.strip() == "2 []", done.stderr
    assert "already in use" in done.stderr
