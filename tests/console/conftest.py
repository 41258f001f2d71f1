"""Console fixtures: the whole app in memory (TestClient) and helpers to sign in and post forms."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from rpa_mcp.bootstrap import Services
from rpa_mcp.entrypoints.app import create_app
from tests.conftest import console_credential_for

BASE = "http://127.0.0.1:8765"


def csrf_of(html: str, action: str) -> str:
    """The CSRF token of the form posting to `action` on a page."""
    match = re.search(
        rf'action="{re.escape(action)}"[^>]*>\s*<input type="hidden" name="csrf" value="([0-9a-f]+)"', html
    )
    assert match is not None, f"no form to {action} on the page"
    return match[1]


class Browser:
    """A TestClient that signs in like a person and posts forms with their CSRF token and Origin."""

    def __init__(self, client: TestClient, services: Services) -> None:
        self.client, self.services = client, services

    def sign_in(self, subject: str, *roles: str, token: str | None = None, next_: str = "/console") -> Any:
        page = self.client.get("/console/login")
        nonce = re.search(r'name="login_csrf" value="([^"]+)"', page.text)
        assert nonce is not None, page.text
        return self.client.post(
            "/console/login",
            data={
                "token": token or console_credential_for(self.services, subject, *roles),
                "login_csrf": nonce[1],
                "next": next_,
            },
            headers={"origin": BASE},
            follow_redirects=False,
        )

    def get(self, url: str, **kwargs: Any) -> Any:
        return self.client.get(url, **kwargs)

    def submit(self, page_url: str, action: str, data: dict[str, str] | None = None, **kwargs: Any) -> Any:
        """Open the page, then post its form to `action` as the browser would (token and Origin)."""
        token = csrf_of(self.client.get(page_url).text, action)
        return self.client.post(
            action, data={"csrf": token, **(data or {})}, headers={"origin": BASE}, follow_redirects=False, **kwargs
        )

    def post(self, action: str, data: dict[str, str], *, origin: str | None = BASE) -> Any:
        headers = {"origin": origin} if origin else {}
        return self.client.post(action, data=data, headers=headers, follow_redirects=False)


@pytest.fixture
def app(services: Services) -> Any:
    return create_app(services=services)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, base_url=BASE) as client:
        yield client


@pytest.fixture
def browser(client: TestClient, services: Services) -> Browser:
    return Browser(client, services)


@pytest.fixture
def other_browser(app: Any, client: TestClient, services: Services) -> Browser:
    """A second person's browser on the same app (its lifespan already runs for `client`)."""
    return Browser(TestClient(app, base_url=BASE), services)
