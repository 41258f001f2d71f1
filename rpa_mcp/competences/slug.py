"""Names -> file slugs that can never leave the competences folder."""

from __future__ import annotations

import re
import unicodedata

from rpa_mcp.errors import InvalidInput

MAX_SLUG = 80
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FORBIDDEN = ("..", "/", "\\", "\x00")


def slugify(name: str, *, field: str = "name") -> str:
    """Lowercase ASCII, accents stripped, other characters folded to '-'.

    Names holding '..', a path separator or NUL are refused outright rather than folded,
    so a name can never be read as a path; so are names with no letter or digit and
    names whose slug would exceed 80 characters (truncating could merge two competences).
    The check runs on the name as Unicode folds it (NFKC): a full-width '．．／' is '../'.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("a competence needs a non-empty name", field=field)
    if any(bad in unicodedata.normalize("NFKC", name) for bad in _FORBIDDEN):
        raise InvalidInput(f"{name!r} is not a competence name: no '..', '/', '\\' or NUL", field=field)
    decomposed = unicodedata.normalize("NFKD", name)
    ascii_only = "".join(c for c in decomposed if not unicodedata.combining(c)).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_only.lower()).strip("-")
    if not slug:
        raise InvalidInput(f"{name!r} has no letter or digit to name a file with", field=field)
    if len(slug) > MAX_SLUG:
        raise InvalidInput(f"the name is too long: its slug must be at most {MAX_SLUG} characters", field=field)
    return slug


def is_slug(text: str) -> bool:
    return len(text) <= MAX_SLUG and SLUG_RE.fullmatch(text) is not None
