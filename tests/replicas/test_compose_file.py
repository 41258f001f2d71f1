"""The deployment files of docs/deploy/ checked without a container runtime: compose.yaml against
the Compose Specification's published JSON Schema (schemas/compose-spec.json), and what it, the
env example, nginx.conf and the Dockerfile say against the code (settings names, the health
route, the services the balancer sends to, the files the image copies)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from rpa_mcp.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "docs" / "deploy"
SCHEMA = Path(__file__).with_name("schemas") / "compose-spec.json"
REPLICAS = ("rpa1", "rpa2", "rpa3")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((DEPLOY / "compose.yaml").read_text())  # `<<: *replica` merges as Compose does
    assert isinstance(loaded, dict)
    return loaded


def _setting_names() -> set[str]:
    return {f"RPA_{name.upper()}" for name in Settings.model_fields}


def _env_names(text: str) -> set[str]:
    return set(re.findall(r"\bRPA_[A-Z0-9_]+", text))


def test_compose_file_is_valid_against_the_published_compose_schema(compose):
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(compose), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


def test_the_schema_check_catches_a_misspelt_key(compose):
    broken = {**compose, "services": {**compose["services"], "rpa1": {**compose["services"]["rpa1"], "helthcheck": {}}}}
    assert list(jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).iter_errors(broken))


def test_every_replica_is_checked_on_the_health_route_and_waits_for_the_schema_upgrade(compose):
    services = compose["services"]
    assert services["migrate"]["command"] == ["rpa-mcp", "db", "upgrade"]
    for name in REPLICAS:
        service = services[name]
        assert "/healthz" in " ".join(service["healthcheck"]["test"]), name
        assert service["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}, name
        assert service["environment"]["RPA_STORE_URL"].startswith("postgresql://"), name
    assert set(services["nginx"]["depends_on"]) == set(REPLICAS)


def test_the_settings_the_deployment_sets_exist(compose):
    """Settings ignore unknown RPA_ variables: a misspelt name would be dropped without a word."""
    known = _setting_names()
    named = _env_names((DEPLOY / "compose.yaml").read_text()) | _env_names((DEPLOY / "rpa.env.example").read_text())
    named |= _env_names((DEPLOY / "Dockerfile").read_text())
    assert named, "no RPA_ setting found in docs/deploy"
    assert named <= known, f"not settings of rpa_mcp: {sorted(named - known)}"


def test_the_env_example_is_accepted_by_the_settings(tmp_path, monkeypatch):
    for line in (DEPLOY / "rpa.env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            monkeypatch.setenv(name.strip(), value.strip())
    monkeypatch.setenv("RPA_DATA_DIR", str(tmp_path))
    settings = Settings()
    assert settings.public_url == "https://rpa.hopital.example"
    assert settings.allowed_hosts == ["rpa.hopital.example"]


def test_the_balancer_sends_to_the_compose_replicas_on_their_port(compose):
    conf = (DEPLOY / "nginx.conf").read_text()
    upstreams = set(re.findall(r"server (rpa\d):(\d+)", conf))
    port = compose["x-replica"]["environment"]["RPA_PORT"]
    assert upstreams == {(name, port) for name in REPLICAS}
    assert compose["services"]["nginx"]["volumes"] == ["./nginx.conf:/etc/nginx/conf.d/default.conf:ro"]


def test_the_image_copies_files_that_exist():
    copied = re.findall(r"^COPY (.+) \S+$", (DEPLOY / "Dockerfile").read_text(), flags=re.MULTILINE)
    sources = [src for line in copied for src in line.split()]
    assert sources
    missing = [src for src in sources if not (ROOT / src).exists()]
    assert not missing, f"the Dockerfile copies what the repository lacks: {missing}"
