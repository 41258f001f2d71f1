"""The read-back's adapters: the HTTP channel (`RecordReader` over httpx2) and the thread it runs on.

The bearer token (RPA_READBACK_TOKEN) lives here only: it is sent in the Authorization header and
never appears in an error, a log line, the evidence or a competence file. Redirects are not
followed (a redirect could leave the allow-list); an answer is read within one overall deadline.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2
from pydantic import SecretStr

from rpa_mcp.replay.ports import RecordUnreadable

MAX_ANSWER_BYTES = 2_000_000


class HttpRecordReader:
    """`RecordReader`: `GET url` (Accept: JSON, FHIR JSON), its answer parsed as JSON."""

    def __init__(self, token: SecretStr | None = None, *, transport: httpx2.BaseTransport | None = None) -> None:
        self._token = token
        self._transport = transport  # tests: an httpx2.MockTransport

    def get_json(self, url: str, *, timeout_s: float) -> Any:
        # One client per read-back (they are rare): no pooled connection outlives it.
        with httpx2.Client(follow_redirects=False, trust_env=False, transport=self._transport) as client:
            return self._get(client, url, timeout_s)

    def _get(self, client: httpx2.Client, url: str, timeout_s: float) -> Any:
        headers = {"Accept": "application/fhir+json, application/json"}
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token.get_secret_value()}"
        deadline = time.monotonic() + timeout_s
        try:
            with client.stream("GET", url, headers=headers, timeout=httpx2.Timeout(timeout_s)) as response:
                if response.status_code != 200:
                    raise RecordUnreadable(f"the read-back answered HTTP {response.status_code}")
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_ANSWER_BYTES:
                        raise RecordUnreadable(f"the read-back's answer is larger than {MAX_ANSWER_BYTES} bytes")
                    if time.monotonic() > deadline:
                        raise RecordUnreadable(f"no complete answer within {timeout_s:g} s", timed_out=True)
        except httpx2.TimeoutException as exc:
            raise RecordUnreadable(f"no answer within {timeout_s:g} s", timed_out=True) from exc
        except httpx2.HTTPError as exc:
            raise RecordUnreadable(f"the read-back did not answer ({type(exc).__name__})") from exc
        try:
            return json.loads(bytes(body))
        except ValueError as exc:
            raise RecordUnreadable("the read-back's answer is not JSON") from exc


class ThreadBackground:
    """`Background` on a small pool of threads: a read-back never waits on the report path or the event loop."""

    def __init__(self, workers: int = 2) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rpa-readback")

    def submit(self, job: Callable[[], None]) -> None:
        self._pool.submit(job)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
