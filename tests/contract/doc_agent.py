"""A desktop agent written from docs/replay-wire-contract.md alone, to check the server against it.

It imports nothing of rpa_mcp: only HTTP and the committed JSON Schemas under docs/schemas/.
Every body it sends is validated against the request schema of its endpoint, and every answer
against the answer schema (problem.schema.json for an error), before the test looks at it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from jsonschema import Draft202012Validator

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"

# endpoint -> (schema of the request body, schema of a 2xx answer), as the contract's table says
ENDPOINTS: dict[str, tuple[str | None, str]] = {
    "/api/v1/replay/next": (None, "replay-next-action"),
    "/api/v1/replay/receipt": ("replay-receipt", "replay-report-ack"),
    "/api/v1/replay/start": ("replay-start", "replay-report-ack"),
    "/api/v1/replay/heartbeat": ("replay-heartbeat", "replay-report-ack"),
    "/api/v1/replay/result": ("replay-result", "replay-report-ack"),
    "/api/v1/resolve_target": ("resolve-target-request", "resolve-target-answer"),
}


def schema(name: str) -> Draft202012Validator:
    loaded = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(loaded)
    return Draft202012Validator(loaded)


class ContractViolation(AssertionError):
    pass


def conform(name: str, body: Any) -> None:
    errors = sorted(schema(name).iter_errors(body), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        raise ContractViolation(f"{name}: {where}: {errors[0].message} in {json.dumps(body)[:400]}")


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


@dataclass
class DocAgent:
    """The agent of the contract: polls, journals (in memory), acknowledges, reports."""

    http: httpx2.AsyncClient
    machine_id: str
    token: str
    version: str | None = "2"
    checked: list[str] = field(default_factory=list)  # "<path> <status> <schema>" for every answer checked

    @property
    def headers(self) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"}
        if self.version is not None:
            headers["X-Replay-Protocol-Version"] = self.version
        return headers

    def _check(self, path: str, response: httpx2.Response) -> Answer:
        if response.status_code == 204:
            assert response.content == b"", "a 204 has no body"
            self.checked.append(f"{path} 204 -")
            return Answer(204, None, dict(response.headers))
        body = response.json()
        if response.status_code >= 400:
            assert response.headers["content-type"].startswith("application/problem+json")
            conform("problem", body)
            self.checked.append(f"{path} {response.status_code} problem")
        else:
            conform(ENDPOINTS[path][1], body)
            self.checked.append(f"{path} {response.status_code} {ENDPOINTS[path][1]}")
        return Answer(response.status_code, body, dict(response.headers))

    async def next(self, wait: float = 0) -> Answer:
        path = "/api/v1/replay/next"
        params = {"machine_id": self.machine_id, "wait": str(wait)}
        return self._check(path, await self.http.get(path, params=params, headers=self.headers))

    async def post(self, path: str, body: dict[str, Any], *, conforming: bool = True) -> Answer:
        request_schema = ENDPOINTS[path][0]
        if conforming and request_schema is not None:
            conform(request_schema, body)  # what the docs say the agent sends
        return self._check(path, await self.http.post(path, json=body, headers=self.headers))

    @staticmethod
    def ref(action: dict[str, Any]) -> dict[str, Any]:
        return {k: action[k] for k in ("replay_id", "action_id", "attempt_id")}
