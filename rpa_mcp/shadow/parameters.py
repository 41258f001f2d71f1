"""Workflow parameters: values a step typed (or the row it chose) that vary from one run to the next.

Suggested when a typed value looks like data — a date, a number, an identifier, a name — and
declared when the person agrees (the ``parameterize`` feedback). A parameterized step types
``{{name}}`` instead of the demonstration's value; the IR declares
``parameters: [{name, type, example, description, required}]`` and a replay must give each.

Types: ``string`` (names, identifiers, free text), ``number``, ``date`` (in the format of the
example: 13/03/2025 is ``\\d{1,2}/\\d{1,2}/\\d{4}``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from rpa_mcp.shadow.phrases import ARTICLES, SEARCH_VERBS
from rpa_mcp.vision.ocr import normalize_text

NAME_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
RESERVED = frozenset({"machine_id", "competence", "version", "params", "token", "session_id"})
MAX_VALUE = 60
_DATE = re.compile(r"^(\d{1,2}[/.-]\d{1,2}[/.-](\d{4}|\d{2})|\d{4}-\d{2}-\d{2})$")
_NUMBER = re.compile(r"^[-+]?\d{1,4}(?:[.,]\d+)?$")
_IDENT = re.compile(r"^(?=(?:.*\d){3})[A-Za-z0-9][A-Za-z0-9._/-]{3,}$")
_NAME_WORD = re.compile(r"^[^\W\d_]{2,}(?:[-'’][^\W\d_]+)*$")
_NAME_FIELDS = re.compile(r"\b(nom|prenom|patient|patiente|name|surname|firstname|lastname|usager|beneficiaire)\b")
KIND_NAMES = {
    "fr": {
        "name": "nom",
        "first_name": "prenom",
        "date": "date",
        "identifier": "identifiant",
        "number": "nombre",
        "record": "dossier",
    },
    "en": {
        "name": "name",
        "first_name": "first_name",
        "date": "date",
        "identifier": "identifier",
        "number": "number",
        "record": "record",
    },
}
REASONS = {
    "fr": {
        "name": "ressemble à un nom : il changera sans doute d'une fois sur l'autre",
        "date": "c'est une date : elle changera sans doute d'une fois sur l'autre",
        "identifier": "ressemble à un identifiant : il changera sans doute d'une fois sur l'autre",
        "number": "c'est un nombre : il changera sans doute d'une fois sur l'autre",
        "record": "l'élément choisi par son nom changera avec le patient",
    },
    "en": {
        "name": "looks like a name: it will probably change from one run to the next",
        "date": "is a date: it will probably change from one run to the next",
        "identifier": "looks like an identifier: it will probably change from one run to the next",
        "number": "is a number: it will probably change from one run to the next",
        "record": "the item chosen by its name will change with the patient",
    },
}


def placeholder(name: str) -> str:
    return "{{" + name + "}}"


def classify(value: str | None, label: str | None = None) -> str | None:
    """What kind of data a typed value looks like: date, number, identifier, name; None for anything else."""
    if not value:
        return None
    v = value.strip()
    if not v or len(v) > MAX_VALUE or "\n" in v or "{{" in v:
        return None
    if _DATE.match(v):
        return "date"
    if _NUMBER.match(v):
        return "number"
    if _IDENT.match(v) or (v.isdigit() and len(v) >= 5):
        return "identifier"
    words = v.split()
    if 1 <= len(words) <= 4 and all(_NAME_WORD.match(w) for w in words):
        shouting = any(w.isupper() and len(w) >= 2 for w in words)
        titled = len(words) >= 2 and all(w[0].isupper() for w in words)
        if shouting or titled or _NAME_FIELDS.search(normalize_text(label or "")):
            return "name"
    return None


def type_of(kind: str) -> str:
    return {"date": "date", "number": "number"}.get(kind, "string")


def slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", normalize_text(text)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_text).strip("_")[:40].rstrip("_")


def suggest_name(label: str | None, kind: str, locale: str, taken: Iterable[str] = ()) -> str:
    """A parameter name from the field's label ('Rechercher un patient' -> 'patient'), else from its kind."""
    words = [w for w in re.split(r"[\s'’]+", label or "") if w]
    if words and normalize_text(words[0]) in SEARCH_VERBS:
        words = words[1:]
    while words and normalize_text(words[0]) in ARTICLES:
        words = words[1:]
    base = slug(" ".join(words[:4])) if words else ""
    if not re.match(NAME_PATTERN, base or "-") or base in RESERVED:
        base = KIND_NAMES["fr" if locale == "fr" else "en"].get(kind, "valeur" if locale == "fr" else "value")
    used, name, n = set(taken), base, 2
    while name in used:
        name, n = f"{base[:36]}_{n}", n + 1
    return name


def reason(kind: str, locale: str) -> str:
    return REASONS["fr" if locale == "fr" else "en"][kind]


def name_problem(name: str) -> str | None:
    """Why a parameter name is refused (None: fine)."""
    if not re.match(NAME_PATTERN, name):
        return (
            f"parameter name {name!r} is not valid: use lowercase letters, digits and '_' "
            "(starting with a letter, at most 40), e.g. 'patient' or 'date_rdv'"
        )
    if name in RESERVED or name.startswith("secret"):
        return f"parameter name {name!r} is reserved: choose another one (e.g. 'patient')"
    return None


def date_pattern(example: str) -> str:
    """The shape of a date example as a regular expression: '13/03/2025' -> r'^\\d{1,2}/\\d{1,2}/\\d{4}$'."""
    parts = re.split(r"(\D)", example.strip())
    out = []
    for p in parts:
        if p.isdigit():
            out.append(r"\d{4}" if len(p) == 4 else r"\d{1,2}")
        else:
            out.append(re.escape(p))
    return "^" + "".join(out) + "$"


def declared(steps: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The IR's parameters, in the order the steps first use them."""
    out: dict[str, dict[str, Any]] = {}
    for step in steps:
        p = step.get("parameter")
        if not p or p["name"] in out:
            continue
        out[p["name"]] = {
            "name": p["name"],
            "type": p.get("type", "string"),
            "example": p.get("example"),
            "description": p.get("description") or "",
            "required": True,
        }
    return list(out.values())


def json_schema(parameter: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of one declared parameter, for a tool's input schema."""
    description = parameter.get("description") or f"Value of {parameter['name']}"
    example = parameter.get("example")
    if example not in (None, ""):
        description += f" (e.g. {example!r} in the demonstration)"
    if parameter.get("type") == "number":
        return {"type": "number", "description": description}
    schema: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 500, "description": description}
    if parameter.get("type") == "date" and isinstance(example, str) and example:
        schema["pattern"] = date_pattern(example)
    return schema
