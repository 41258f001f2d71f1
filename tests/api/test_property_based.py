"""A bounded property-based run of the REST API with schemathesis, against a real server over HTTP.

Every operation of the committed OpenAPI document is called with generated requests (valid and
invalid ones) as an operator and as a desktop agent. Whatever comes in, the answer is never a
5xx and always conforms to the document: a documented status, the documented content type,
a body that validates against the documented schema, and invalid input refused with a 4xx.

The run is bounded (a few dozen examples per operation and identity, derandomized so CI sees
the same requests every time) and its generator is bounded too, see `BOUNDS` below.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, settings

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeOcr, loopback_socket

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "reference" / "openapi.json"
AGENT_TOKEN = "agent-static-token-for-the-api-run-0123"
EXAMPLES = 15  # fuzzed per operation and identity; with the examples and coverage phases, a few dozen each

# What the generator does not send, and why:
# - a long poll longer than 0.2 s: `wait` may be up to 60 s (25 s when absent) and the run would spend
#   its time waiting; a valid `wait` is lowered to 0.2 s, an invalid one is sent as generated (the long
#   poll itself is covered by the replay and contract tests);
# - JSON nested thousands of levels deep and integers of thousands of digits: schemathesis does not
#   generate them, and they are limits of the transport (the body parser), tested on their own with the
#   other HTTP limits. Bodies that are not UTF-8 are generated, and refused with a 400.
MAX_WAIT_S = 0.2
CONFIG = schemathesis.Config.from_dict(
    {
        "generation": {"mode": "all", "max-examples": EXAMPLES, "deterministic": True},
        "phases": {"stateful": {"enabled": False}},
        "checks": {
            "positive_data_acceptance": {"enabled": False},  # an unknown id is a valid string and a 404
            "use_after_free": {"enabled": False},
            "ensure_resource_availability": {"enabled": False},
            "ignored_auth": {"enabled": False},
        },
    }
)
CALLS: Counter[str] = Counter()  # requests sent per operation (read by the report below)
STATUSES: Counter[int] = Counter()  # answers per status class
SCHEMA = schemathesis.openapi.from_dict(json.loads(COMMITTED.read_text(encoding="utf-8")), config=CONFIG)


@dataclass
class Api:
    base_url: str
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """The whole app under uvicorn on 127.0.0.1 in a thread, with a little data to find."""
    data = tmp_path_factory.mktemp("api") / "data"
    settings_ = Settings(
        data_dir=data,
        jwt_secret="property-run-secret-that-is-long-enough-0123456789",
        api_token=AGENT_TOKEN,
        rate_limit_per_minute=10**7,  # the run is many calls from one identity; limits have their own tests
        auth_lockout_failures=10**6,
    )
    services = build_services(settings_, ocr=FakeOcr())
    services.shadow.ingest(
        [{"session_id": "s-api", "machine_id": "PC-API", "ts": 1_764_000_000, "type": "focus", "window_title": "A"}]
    )
    app = create_app(services=services)
    sock = loopback_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    started = threading.Event()
    while not started.wait(0.05):
        if server.started or not thread.is_alive():
            started.set()
    assert server.started, "the server did not start"
    host, port = sock.getsockname()[:2]
    tokens = {
        "operator": services.access_tokens.mint("api-run", ["operator"], ttl_s=3600),
        "agent": AGENT_TOKEN,
    }
    yield Api(f"http://{host}:{port}", tokens)
    server.should_exit = True
    thread.join(timeout=30)
    services.db.close()


def _bounded(case: Any) -> None:
    """A valid long-poll wait above MAX_WAIT_S (or none: 25 s) becomes MAX_WAIT_S; an invalid one stays."""
    if case.operation.path == "/api/v1/replay/next" and isinstance(case.query, dict):
        case.query.setdefault("wait", MAX_WAIT_S)
    if case.operation.path == "/api/v1/tools/replay_next" and isinstance(case.body, dict):
        case.body.setdefault("wait", MAX_WAIT_S)
    for where in (case.query, case.body):
        if not isinstance(where, dict) or "wait" not in where or isinstance(where["wait"], bool):
            continue
        try:
            wait = float(where["wait"])
        except (TypeError, ValueError):
            continue
        if MAX_WAIT_S < wait <= 60:
            where["wait"] = MAX_WAIT_S if isinstance(where["wait"], int | float) else str(MAX_WAIT_S)


@pytest.mark.parametrize("role", ["operator", "agent"])
@SCHEMA.parametrize()
@settings(
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_no_request_gets_a_5xx_and_every_answer_conforms_to_the_document(case: Any, role: str, api: Api) -> None:
    _bounded(case)
    response = case.call_and_validate(base_url=api.base_url, headers={"Authorization": f"Bearer {api.tokens[role]}"})
    CALLS[f"{case.operation.method.upper()} {case.operation.path}"] += 1
    STATUSES[response.status_code // 100] += 1


def test_the_run_reached_every_operation_of_the_document() -> None:
    """Runs after the property test (same module, in order): the run was not vacuous."""
    assert CALLS, "run the whole module: this checks what the property test above sent"
    operations = {f"{m.upper()} {p}" for p, item in SCHEMA.raw_schema["paths"].items() for m in item}
    assert set(CALLS) == operations
    assert min(CALLS.values()) >= 10 and STATUSES[5] == 0
