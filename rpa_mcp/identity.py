"""Who is calling: the `Caller`, the roles a token can carry, and who counts as the same person.

Every surface (MCP, REST, function calling, the console) turns a verified credential into a
`Caller`; `dispatch()` checks its roles against the operation's risk level. An identity is an
issuer and a subject (`Identity`): this server's own tokens name people under `RPA_JWT_ISSUER`,
the hospital's identity provider under its issuer URL. `IdentityLinks` ties the identities of
one person together (`RPA_IDENTITY_LINKS`), so that a person's local subject and their identity
provider's subject count as one person when approvals are checked. No dependencies: kept apart
from the registry so the token adapters (`rpa_mcp.auth`) need nothing of the operations layer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ROLES = ("operator", "viewer", "agent", "approver")


@dataclass(frozen=True, order=True)
class Identity:
    """An issuer and the subject it names; written `subject@issuer` (the issuer alone never has an `@`)."""

    issuer: str
    subject: str

    def __str__(self) -> str:
        return f"{self.subject}@{self.issuer}" if self.issuer else self.subject

    @classmethod
    def parse(cls, text: str) -> Identity:
        """`subject@issuer`, split at the last `@` (a subject may be an e-mail address)."""
        subject, at, issuer = text.strip().rpartition("@")
        subject, issuer = subject.strip(), issuer.strip().rstrip("/")
        if not at or not subject or not issuer:
            raise ValueError(f"{text.strip()!r} is not SUBJECT@ISSUER (example: alice@rpa-mcp)")
        return cls(issuer, subject)


@dataclass(frozen=True)
class Caller:
    """Who is calling: from a verified access token, the static agent token, a console session, or local dev."""

    subject: str
    roles: frozenset[str]
    via: str = "mcp"  # mcp | rest | functions | web (the console: a signed-in person)
    auth: str = "jwt"  # jwt | api-token | oidc | console | disabled | internal
    machines: frozenset[str] | None = None  # an agent token bound to these workstations (None: not bound)
    issuer: str = ""  # who vouches for the subject ("" for callers made in this process)

    def has_any(self, roles: Iterable[str]) -> bool:
        return bool(self.roles & set(roles))

    @property
    def identity(self) -> Identity:
        return Identity(self.issuer, self.subject)


class IdentityLinks:
    """Identities that belong to one person: each identity is that person, and no other.

    Written `alice@rpa-mcp = 8c1f@https://idp.example; bob@rpa-mcp = 77ab@https://idp.example`:
    `;` between people, `=` between the identities of one person.
    """

    def __init__(self, people: Iterable[Iterable[Identity]] = ()) -> None:
        self._person: dict[Identity, int] = {}
        for n, identities in enumerate(people):
            group = list(identities)
            if len(group) < 2:
                raise ValueError(f"person #{n + 1} links {len(group)} identity; a link ties two or more together")
            for identity in group:
                if identity in self._person:
                    raise ValueError(f"{identity} is linked to two people; an identity belongs to one person")
                self._person[identity] = n

    @classmethod
    def parse(cls, text: str) -> IdentityLinks:
        people = [part for part in text.split(";") if part.strip()]
        return cls([Identity.parse(one) for one in person.split("=")] for person in people)

    def same_person(self, a: Identity, b: Identity) -> bool:
        if a == b:
            return True
        person = self._person.get(a)
        return person is not None and person == self._person.get(b)

    def __len__(self) -> int:
        return len(set(self._person.values()))


__all__ = ["ROLES", "Caller", "Identity", "IdentityLinks"]
