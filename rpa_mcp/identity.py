"""Who is calling: the `Caller` and the roles a token can carry. No dependencies.

Every surface (MCP, REST, function calling, the approval pages) turns a verified credential
into a `Caller`; `dispatch()` checks its roles against the operation's risk level. Kept apart
from the registry so the token adapters (`rpa_mcp.auth`) need nothing of the operations layer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ROLES = ("operator", "viewer", "agent", "approver")


@dataclass(frozen=True)
class Caller:
    """Who is calling: from a verified access token, the static agent token, or local dev."""

    subject: str
    roles: frozenset[str]
    via: str = "mcp"  # mcp | rest | functions | web
    auth: str = "jwt"  # jwt | api-token | disabled | internal
    machines: frozenset[str] | None = None  # an agent token bound to these workstations (None: not bound)

    def has_any(self, roles: Iterable[str]) -> bool:
        return bool(self.roles & set(roles))


__all__ = ["ROLES", "Caller"]
